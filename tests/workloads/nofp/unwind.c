/* A workload for DWARF unwinding, built -O2 -fomit-frame-pointer (like
 * distribution binaries): its functions keep no frame pointer, so only
 * unwinding from .eh_frame finds their callers. Phases, one after the
 * other, each a fixed amount of work (so that two recordings of it agree
 * whatever the machine's load), about 2 s of CPU in all on a 2020s x86-64
 * core times SCALE (default 1):
 *   leaves   main;phase_leaves;work_a;leaf_a twice the time of ...;work_b;leaf_b
 *   qsort    main;phase_qsort;qsort (libc);...;slow_compare
 *   memcmp   main;phase_memcmp;<libc memcmp>  (the leaf inside libc)
 *   deep     main;phase_deep;recurse x 300;deep_leaf  (deeper than 127)
 *   threads  start_thread;thread_main;thread_a | thread_b  (two threads)
 * Function names are checked by tests/record. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

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

__attribute__((noinline)) void phase_leaves(long rounds)
{
	for (long r = 0; r < rounds; r++) {
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

__attribute__((noinline)) void phase_qsort(long rounds)
{
	enum { N = 4000 };
	int *v = malloc(N * sizeof(int));
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++)
			v[i] = (i * 7919) % N;
		qsort(v, N, sizeof(int), slow_compare);
	}
	sink += (unsigned long)v[0];
	free(v);
}

__attribute__((noinline)) void phase_memcmp(long rounds)
{
	enum { N = 1 << 20 };
	char *a = calloc(N, 1), *b = calloc(N, 1);
	for (long r = 0; r < rounds; r++)
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

__attribute__((noinline)) void phase_deep(long rounds)
{
	for (long r = 0; r < rounds; r++)
		sink += recurse(300);
}

__attribute__((noinline)) unsigned long thread_a(unsigned long n) { return spin(n) + 3; }
__attribute__((noinline)) unsigned long thread_b(unsigned long n) { return spin(n) + 4; }

struct job {
	long rounds;
	int which;
};

static void *thread_main(void *arg)
{
	const struct job *j = arg;
	for (long r = 0; r < j->rounds; r++)
		sink += j->which ? thread_b(10) : thread_a(10);
	return NULL;
}

__attribute__((noinline)) void phase_threads(long rounds)
{
	struct job ja = { rounds, 0 }, jb = { rounds, 1 };
	pthread_t a, b;
	pthread_create(&a, NULL, thread_main, &ja);
	pthread_create(&b, NULL, thread_main, &jb);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1;
	phase_leaves((long)(12000 * scale));
	phase_qsort((long)(80 * scale));
	phase_memcmp((long)(370 * scale));
	phase_deep((long)(50000 * scale));
	phase_threads((long)(40000 * scale));
	return 0;
}
