/* A workload for scorch record --wall, built -O2 -fomit-frame-pointer:
 * ROUNDS rounds (argument 1, default 50) of compute (spin until this
 * thread used 5 ms of CPU) then sleep_half (nanosleep 5 ms): half its
 * time on CPU, half off. At the end it prints what it measured itself:
 *   cpu SECONDS sleep SECONDS wall SECONDS
 * (wall: the loop's monotonic time, from its first round to its last).
 * Function names are checked by tests/record. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HALF_NS 5000000L

static volatile unsigned long sink;

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until the thread used HALF_NS of CPU (not of wall time: a busy
 * machine's preemptions do not shorten it); returns the CPU seconds. */
__attribute__((noinline)) double compute(void)
{
	double t = clock_s(CLOCK_THREAD_CPUTIME_ID), end = t + HALF_NS / 1e9, c;
	unsigned long x = sink;
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		c = clock_s(CLOCK_THREAD_CPUTIME_ID);
	} while (c < end);
	sink = x;
	return c - t;
}

__attribute__((noinline)) double sleep_half(void)
{
	double t = clock_s(CLOCK_MONOTONIC);
	struct timespec ts = { 0, HALF_NS };
	while (nanosleep(&ts, &ts))
		;
	return clock_s(CLOCK_MONOTONIC) - t;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	double cpu = 0, slept = 0, busy = 0, start = clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < rounds; i++) {
		double t = clock_s(CLOCK_MONOTONIC);
		cpu += compute();
		busy += clock_s(CLOCK_MONOTONIC) - t;
		slept += sleep_half();
	}
	printf("cpu %.6f sleep %.6f wall %.6f busy %.6f\n", cpu, slept, clock_s(CLOCK_MONOTONIC) - start, busy);
	return 0;
}
