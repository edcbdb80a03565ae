/* bench/offcpu.sh's load: two threads pass a byte back and forth through
 * two pipes, ROUNDS times (argument 1, default 20000). A thread blocks when
 * its read finds the pipe empty: up to 2 blocks a round trip (about 23,000
 * for 20,000 round trips on a busy 2-core machine, as the other thread
 * often writes first; fewer when a profiler slows them). Prints "ROUNDS
 * wall_seconds cpu_seconds blocks": its own clocks, and the voluntary
 * context switches of both threads (getrusage), the blocks a profiler
 * should see. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2], rounds = 20000;
static long ponger_blocks;

static long thread_blocks(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *ponger(void *arg)
{
	char c;
	for (int i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	ponger_blocks = thread_blocks();
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 1 || pipe(ping) || pipe(pong))
		return 2;
	pthread_t th;
	long before = thread_blocks();
	double t = clock_s(CLOCK_MONOTONIC), c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (pthread_create(&th, NULL, ponger, NULL))
		return 2;
	char b = 'x';
	for (int i = 0; i < rounds; i++)
		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			return 1;
	long main_blocks = thread_blocks() - before;
	pthread_join(th, NULL);
	printf("%d %.6f %.6f %ld\n", rounds, clock_s(CLOCK_MONOTONIC) - t, clock_s(CLOCK_PROCESS_CPUTIME_ID) - c,
	       main_blocks + ponger_blocks);
	return 0;
}
