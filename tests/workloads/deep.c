/* Workload for scorch record's depth-limit tests: main calls recurse()
 * DEPTH times deep (default 200, more than the kernel's 127-frame limit),
 * and the innermost call spins in spin() until SECONDS (default 1) of CPU
 * time have passed. A sample's user stack is then spin, DEPTH recurse
 * frames, main and libc's start: with a limit below that, the root end
 * (main and what called it) is what is cut.
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
 * -g deep.c -o deep */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void spin(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned long x = sink;
	while (cpu_seconds() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

/* Not a tail call: the addition after the call keeps each frame. */
__attribute__((noinline)) unsigned long recurse(int depth, double seconds)
{
	if (depth <= 1) {
		spin(seconds);
		return sink;
	}
	return recurse(depth - 1, seconds) + (unsigned long)depth;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 200;
	double seconds = argc > 2 ? atof(argv[2]) : 1;
	sink = recurse(depth > 0 ? depth : 1, seconds);
	return 0;
}
