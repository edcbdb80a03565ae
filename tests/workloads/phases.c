/* Workload for the time tests (heat map, --time): phases known in time.
 * `phases ROUNDS MS` runs ROUNDS rounds of two phases of MS milliseconds
 * each (default 2 rounds of 1500 ms): phase a spins in phase_a the whole
 * time; phase b spins in phase_b for 1 ms of every 20 ms and sleeps the
 * rest, so on a CPU-time clock phase b has fewer samples a second than
 * phase a. Each phase times itself and prints, when it ends,
 * "a START END CPU" or "b START END CPU": CLOCK_MONOTONIC nanoseconds (the
 * clock perf record -k CLOCK_MONOTONIC stamps samples with), and the CPU
 * time the phase got (CLOCK_THREAD_CPUTIME_ID ns), which on a busy
 * machine is less than its work asked for.
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
 * -g phases.c -o phases */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

__attribute__((noinline)) void checkpoint(unsigned long x)
{
	sink = x;
}

/* Spin until `until` (ns), in this function's own loop. */
__attribute__((noinline)) void phase_a(uint64_t until)
{
	unsigned long x = sink;
	while (now_ns() < until) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		checkpoint(x);
	}
}

__attribute__((noinline)) void phase_b(uint64_t until)
{
	unsigned long x = sink;
	while (now_ns() < until) {
		uint64_t slice = now_ns() + 1000000;
		while (now_ns() < slice) {
			for (int i = 0; i < 1000; i++)
				x = x * 6364136223846793005ul + 1442695040888963407ul;
			checkpoint(x);
		}
		struct timespec nap = { 0, 19000000 };
		nanosleep(&nap, NULL);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2;
	long ms = argc > 2 ? atol(argv[2]) : 1500;
	if (rounds < 1 || ms < 1) {
		fprintf(stderr, "usage: phases [ROUNDS [MS]]\n");
		return 2;
	}
	for (int r = 0; r < 2 * rounds; r++) {
		uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID), s = now_ns();
		if (r % 2)
			phase_b(s + (uint64_t)ms * 1000000);
		else
			phase_a(s + (uint64_t)ms * 1000000);
		uint64_t e = now_ns();
		cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		printf("%c %llu %llu %llu\n", r % 2 ? 'b' : 'a', (unsigned long long)s, (unsigned long long)e,
		       (unsigned long long)cpu);
	}
	return 0;
}
