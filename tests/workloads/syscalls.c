/* Workload for scorch record's tests: time spent mostly in the kernel
 * (small writes to /dev/null and getppid) for SECONDS (default 1), so that
 * sampling shows kernel frames under user frames (write_loop).
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -g syscalls.c */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void write_loop(int fd)
{
	char buf[64] = { 0 };
	for (int i = 0; i < 10000; i++)
		if (write(fd, buf, sizeof(buf)) < 0)
			break;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	int fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	while (cpu_seconds() < seconds)
		write_loop(fd);
	close(fd);
	return 0;
}
