/* perf_event attributes and opening, for both backends (perf_attr.h). No
 * dependency beyond the kernel's uapi header. */
#include "record/perf_attr.h"

#include "base/error.h"
#include "record/host.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int record_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group, flags | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : (int)fd;
}

/* When the task belongs to another user, the kernel's ptrace access check
 * is in the way, not only the paranoid level. */
int record_refused_other_user(pid_t task)
{
	char path[32];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)task);
	if (stat(path, &st) || st.st_uid == geteuid())
		return 0;
	return error("sampling process %d: not permitted: it belongs to uid %u, scorch runs as uid "
		     "%u. Sampling another user's process needs root, or CAP_SYS_PTRACE (the kernel "
		     "checks ptrace access) with CAP_PERFMON or kernel.perf_event_paranoid <= 1",
		     (int)task, (unsigned)st.st_uid, (unsigned)geteuid());
}

int record_perf_error(int err, const char *what)
{
	switch (err) {
	case EACCES:
	case EPERM: {
		int level = 4;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 4;
			fclose(f);
		}
		return error("%s: not permitted (kernel.perf_event_paranoid = %d). Run as root, grant "
			     "CAP_PERFMON (setcap cap_perfmon+ep on the binary), or lower the sysctl: "
			     "'sysctl kernel.perf_event_paranoid=1' allows kernel stacks of your own "
			     "processes, 0 allows system-wide sampling (-a)",
			     what, level);
	}
	case ESRCH:
		return error("%s: no such process", what);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return error("%s: event not supported on this machine (no hardware PMU, as in most "
			     "virtual machines?); -e cpu-clock works everywhere", what);
	case EMFILE:
		return error("%s: too many open files (raise 'ulimit -n')", what);
	case ENOSYS:
		return error("%s: perf_event_open is not available in this kernel", what);
	default:
		return error("%s: perf_event_open: %s", what, strerror(err));
	}
}

void record_fill_attr(struct perf_event_attr *attr, const struct record_opts *o, bool cycles)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (cycles) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	}
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_CALLCHAIN;
	if (o->event == RECORD_EVENT_COUNTED) {
		/* No PERF_SAMPLE_PERIOD: with it, the kernel makes every
		 * software event a sample whatever the period (-c N ignored). */
		attr->type = o->counted.type;
		attr->config = o->counted.config;
		attr->sample_period = o->period ? o->period : 1;
	} else {
		attr->sample_type |= PERF_SAMPLE_PERIOD;
		attr->freq = 1;
		attr->sample_freq = o->freq;
	}
	attr->disabled = 1;
	attr->exclude_user = o->kernel_only;
	attr->exclude_kernel = o->user_only;
	attr->exclude_callchain_user = o->kernel_only;
	attr->exclude_callchain_kernel = o->user_only;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
	/* 0: perf_event_max_stack (more is refused; DWARF unwinding goes on) */
	attr->sample_max_stack = (uint16_t)(o->max_stack ? record_max_stack(o) : 0);
	/* One clock for every ring (and for the BPF program's records):
	 * records are merged across CPUs by time. */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

void event_choice_init(struct event_choice *c, const struct record_opts *o)
{
	c->probing = o->event == RECORD_EVENT_AUTO;
	c->cycles = c->probing || o->event == RECORD_EVENT_CYCLES;
}

bool event_choice_retry(struct event_choice *c, const struct record_opts *o, bool failed, int err)
{
	if (failed && c->probing && c->cycles &&
	    (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)) {
		c->cycles = false;
		c->probing = false;
		if (!o->quiet)
			fprintf(stderr, "scorch: no hardware PMU for cycles here; sampling cpu-clock instead\n");
		return true;
	}
	c->probing = false;
	return false;
}

const char *event_choice_name(const struct event_choice *c, const struct record_opts *o)
{
	return o->event == RECORD_EVENT_COUNTED ? o->counted.name : c->cycles ? "cycles" : "cpu-clock";
}

/* The user registers libdw needs to start unwinding on x86-64: ip, sp,
 * the frame pointer and the other callee-saved registers (bx, r12-r15)
 * that CFI may restore (perf_regs.h numbering). */
#define USER_REGS_MASK 0xff01ffull

uint64_t record_user_regs_mask(void)
{
	return USER_REGS_MASK;
}

void record_attr_user_stack(struct perf_event_attr *attr, const struct record_opts *o)
{
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = USER_REGS_MASK;
	attr->sample_stack_user = record_stack_size(o);
	/* DWARF alone, as perf does: no frame-pointer chain to join. */
	if (o->unwind == RECORD_UNWIND_DWARF)
		attr->exclude_callchain_user = 1;
}

