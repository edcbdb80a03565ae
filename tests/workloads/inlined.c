/* Workload for scorch record's --max-stack tests: main calls work(), and
 * work's code spins in mix(), inlined into churn(), inlined into work
 * (always_inline, so even -fno-inline keeps it so), for SECONDS (default
 * 1) of CPU time. Most samples' user stacks hold one address for three
 * functions: DWARF unwinding names them work;churn;mix (churn and mix
 * "(inlined)" in perf script), then main and libc's start code.
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
 * -g inlined.c -o inlined */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	for (int i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static inline __attribute__((always_inline)) unsigned long churn(unsigned long x)
{
	return mix(x ^ 7) + 1;
}

__attribute__((noinline)) unsigned long work(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned long x = sink;
	while (cpu_seconds() < end)
		x = churn(x);
	return x;
}

int main(int argc, char **argv)
{
	sink = work(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
