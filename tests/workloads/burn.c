/* Workload for scorch record's tests: main alternates burn_a and burn_b,
 * giving burn_a twice the work of burn_b, until SECONDS (default 2) of CPU
 * time have passed (or `burn -n ROUNDS`: fixed work). Expected folded shares: main;burn_a : main;burn_b = 2:1.
 *
 * The loops sit in burn_a and burn_b themselves, and each also calls
 * checkpoint(): a function that calls nothing may run without a frame of
 * its own (gcc does this even with -fno-omit-frame-pointer), and then a
 * frame-pointer unwinder loses its caller.
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
 * -g burn.c -o burn */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void checkpoint(unsigned long x)
{
	sink = x;
}

__attribute__((noinline)) void burn_a(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < 2 * n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	checkpoint(x);
}

__attribute__((noinline)) void burn_b(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	checkpoint(x);
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	/* burn -n ROUNDS: a fixed amount of work, then "wall CPU" seconds on
	 * stdout (bench/record.sh measures the slowdown under a profiler). */
	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'n') {
		long rounds = atol(argv[2]);
		double t0 = wall_seconds(), c0 = cpu_seconds();
		for (long i = 0; i < rounds; i++) {
			burn_a(100000);
			burn_b(100000);
		}
		printf("%.4f %.4f\n", wall_seconds() - t0, cpu_seconds() - c0);
		return 0;
	}
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	while (cpu_seconds() < seconds) {
		burn_a(100000);
		burn_b(100000);
	}
	return 0;
}
