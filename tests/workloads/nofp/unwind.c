/* A workload for DWARF unwinding, built -O2 -fomit-frame-pointer (like
 * distribution binaries): its functions keep no frame pointer, so only
 * unwinding from .eh_frame finds their callers. Phases, one after the
 * other, in fixed shares of SECONDS (default 2) of wall time:
 *   leaves   main;phase_leaves;work_a;leaf_a twice the time of ...;work_b;leaf_b
 *   qsort    main;phase_qsort;qsort (libc);...;slow_compare
 *   memcmp   main;phase_memcmp;<libc memcmp>  (the leaf inside libc)
 *   deep     main;phase_deep;recurse x 300;deep_leaf  (deeper than 127)
 *   threads  start_thread;thread_main;thread_a | thread_b  (two threads)
 * Function names are checked by tests/record. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Burn about n units of CPU. */
__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n * 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink += x;
	return x;
}

__attribute__((noinline)) unsigned long leaf_a(unsigned long n) { return spin(n) + 1; }
__attribute__((noinline)) unsigned long leaf_b(unsigned long n) { return spin(n) + 2; }
__attribute__((noinline)) unsigned long work_a(unsigned long n) { return leaf_a(n) * 3; }
__attribute__((noinline)) unsigned long work_b(unsigned long n) { return leaf_b(n) * 5; }

__attribute__((noinline)) void phase_leaves(double until)
{
	while (now() < until) {
		sink += work_a(20);
		sink += work_a(20);
		sink += work_b(20);
	}
}

__attribute__((noinline)) int slow_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	for (int i = 0; i < 200; i++)
		sink += (unsigned long)(x ^ i);
	return (x > y) - (x < y);
}

__attribute__((noinline)) void phase_qsort(double until)
{
	enum { N = 4000 };
	int *v = malloc(N * sizeof(int));
	while (now() < until) {
		for (int i = 0; i < N; i++)
			v[i] = (i * 7919) % N;
		qsort(v, N, sizeof(int), slow_compare);
	}
	sink += (unsigned long)v[0];
	free(v);
}

__attribute__((noinline)) void phase_memcmp(double until)
{
	enum { N = 1 << 20 };
	char *a = calloc(N, 1), *b = calloc(N, 1);
	while (now() < until)
		for (int i = 0; i < 64; i++)
			sink += (unsigned long)memcmp(a, b, N) + (unsigned long)i;
	free(a);
	free(b);
}

__attribute__((noinline)) unsigned long deep_leaf(void) { return spin(5) + 1; }

__attribute__((noinline)) unsigned long recurse(int depth)
{
	volatile int mine = depth; /* read after the call: a real frame each */
	if (!depth)
		return deep_leaf();
	return recurse(depth - 1) + (unsigned long)mine;
}

__attribute__((noinline)) void phase_deep(double until)
{
	while (now() < until)
		sink += recurse(300);
}

__attribute__((noinline)) unsigned long thread_a(unsigned long n) { return spin(n) + 3; }
__attribute__((noinline)) unsigned long thread_b(unsigned long n) { return spin(n) + 4; }

struct job {
	double until;
	int which;
};

static void *thread_main(void *arg)
{
	const struct job *j = arg;
	while (now() < j->until)
		sink += j->which ? thread_b(10) : thread_a(10);
	return NULL;
}

__attribute__((noinline)) void phase_threads(double until)
{
	struct job ja = { until, 0 }, jb = { until, 1 };
	pthread_t a, b;
	pthread_create(&a, NULL, thread_main, &ja);
	pthread_create(&b, NULL, thread_main, &jb);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	double t = now();
	phase_leaves(t += seconds * 0.35);
	phase_qsort(t += seconds * 0.15);
	phase_memcmp(t += seconds * 0.15);
	phase_deep(t += seconds * 0.15);
	phase_threads(t += seconds * 0.20);
	return 0;
}
