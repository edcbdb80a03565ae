/* Workload for scorch report's tests: three threads with distinct stacks
 * run for SECONDS (default 0.5) of wall time.
 *   main thread ("rp main"): outer -> middle -> inner (a 3-deep chain)
 *   thread "rp worker 7": recurse(12) -> ... -> spin, a comm ending in
 *     " <digits>", which stackcollapse-perf.pl folds as "rp_worker"
 *   thread "rp-alloc": churn(): malloc/free through libc
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -g -pthread */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static volatile unsigned long sink;
static double seconds = 0.5;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth > 0)
		recurse(depth - 1);
	else
		spin(20000);
	sink += (unsigned long)depth;
}

__attribute__((noinline)) void inner(void)
{
	spin(30000);
}

__attribute__((noinline)) void middle(void)
{
	inner();
	sink++;
}

__attribute__((noinline)) void outer(void)
{
	middle();
	sink++;
}

__attribute__((noinline)) void churn(void)
{
	for (int i = 0; i < 64; i++) {
		char *p = malloc(64 + (size_t)i * 48);
		memset(p, i, 64);
		sink += (unsigned long)p[3];
		free(p);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "rp worker 7");
	double end = now() + seconds;
	while (now() < end)
		recurse(12);
	return NULL;
}

static void *allocator(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "rp-alloc");
	double end = now() + seconds;
	while (now() < end)
		churn();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	prctl(PR_SET_NAME, "rp main");
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, allocator, NULL);
	double end = now() + seconds;
	while (now() < end)
		outer();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
