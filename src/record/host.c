/* What the machine and the options say about CPUs and stack depth
 * (host.h), and reading small /proc files. */
#include "record/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned record_kernel_max_stack(void)
{
	char buf[32];
	record_read_line("/proc/sys/kernel/perf_event_max_stack", buf, sizeof(buf));
	long v = strtol(buf, NULL, 10);
	return v > 0 ? (unsigned)v : 127; /* the kernel's default */
}

unsigned record_max_stack(const struct record_opts *o)
{
	unsigned kernel_max = record_kernel_max_stack();
	return o->max_stack && o->max_stack < kernel_max ? o->max_stack : kernel_max;
}

void record_read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)cap, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}


int record_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (int)n : 1;
}

bool record_cpu_wanted(const struct record_opts *o, int cpu)
{
	if (!o->nr_cpus)
		return true;
	for (size_t i = 0; i < o->nr_cpus; i++)
		if (o->cpus[i] == cpu)
			return true;
	return false;
}

unsigned record_stack_size(const struct record_opts *o)
{
	return o->stack_size ? o->stack_size : RECORD_STACK_SIZE_DEFAULT;
}

