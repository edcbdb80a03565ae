/* Workload for scorch record's tests: work in a thread and in a forked
 * child as well as in main, to check that a recorded command is followed
 * into the threads and children it creates. Each of parent_work,
 * thread_work and child_work runs for SECONDS of CPU (default 1).
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -g -pthread spawn.c */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_for(double seconds)
{
	double end = thread_cpu() + seconds;
	unsigned long x = sink;
	while (thread_cpu() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1;
	sink = x;
}

__attribute__((noinline)) void parent_work(double s) { spin_for(s); sink++; }
__attribute__((noinline)) void child_work(double s) { spin_for(s); sink++; }
__attribute__((noinline)) void *thread_work(void *arg)
{
	spin_for(*(double *)arg);
	sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	pid_t pid = fork();
	if (pid == 0) {
		child_work(seconds);
		_exit(0);
	}
	pthread_t t;
	pthread_create(&t, NULL, thread_work, &seconds);
	parent_work(seconds);
	pthread_join(t, NULL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return 0;
}
