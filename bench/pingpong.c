/* A context-switch-heavy load for bench/offcpu-bpf.sh: two threads pass a
 * byte back and forth through two pipes, ROUNDS times (argument 1, default
 * 100000), so each blocks in read(2) once per round. Prints its own wall
 * and CPU seconds ("WALL CPU") and the rounds per second. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 100000;

static void *ponger(void *arg)
{
	char c;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	if (rounds < 1 || pipe(ping) || pipe(pong))
		return 2;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_t th;
	if (pthread_create(&th, NULL, ponger, NULL))
		return 2;
	char c = 'x';
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(th, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		     (double)ru.ru_stime.tv_usec / 1e6;
	printf("%.4f %.4f\n%.0f rounds/s\n", wall, cpu, (double)rounds / wall);
	return 0;
}
