/* A workload for scorch record --off-cpu, built -O2 -fomit-frame-pointer
 * (like distribution binaries: only DWARF unwinding finds the callers).
 * Threads that block in known functions, each wait about U = 4 ms, for
 * ROUNDS waits (argument 1, default 120), all of them together:
 *   sleep_wait   6 threads: nanosleep                               (S)
 *   pipe_wait    3 threads: read(2) of a pipe each, that feed_pipe
 *                writes a byte to every U                           (S)
 *   cond_wait    1 thread: pthread_cond_wait, signalled by
 *                signal_cond every U                                (S)
 * The waits end at absolute ticks k x U from a common start (the sleepers
 * sleep until them, the feeder and the signaller act at them), so a
 * loaded machine's wake-up latency does not accumulate, and every thread
 * is blocked nearly all the time: blocked time splits 6:3:1 between the
 * three over the whole run and over any part of it (a recording that
 * attaches late, -p); and
 *   only_blocks  a thread that does nothing but poll(2) 10 x 50 ms (S):
 *                its off-CPU time is its wall time
 *   vfork_wait   ROUNDS times vfork(2) of a child that sleeps U then
 *                exits: the parent thread waits in uninterruptible
 *                sleep (D) in __vfork, the child sleeps (S) in syscall
 * At the end it prints what it measured itself (seconds):
 *   sleep_wait S pipe_wait S cond_wait S only_blocks_wall S vfork_wait S
 * Function names are checked by tests/record. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNIT_NS 4000000L

static int rounds = 120;
enum { READERS = 3 };
static int pipes[READERS][2]; /* one per reader: only feed_pipe's write wakes it */
static int next_reader;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int tickets; /* signals given and not yet taken (none coalesce) */
static struct timespec start;
static double measured[5]; /* seconds blocked per kind, as the threads saw it */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep until tick k (k x U after the start). */
static void until_tick(int k)
{
	long long ns = start.tv_nsec + (long long)k * UNIT_NS;
	struct timespec ts = { start.tv_sec + (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* Each waits once and returns the seconds it took (no tail call: the
 * frame stays on the stack while it blocks). */
__attribute__((noinline)) double sleep_wait(int tick)
{
	double t = now();
	until_tick(tick);
	return now() - t;
}

__attribute__((noinline)) double pipe_wait(int fd)
{
	char c;
	double t = now();
	if (read(fd, &c, 1) != 1)
		exit(1);
	return now() - t;
}

__attribute__((noinline)) double cond_wait(void)
{
	double t = now();
	pthread_mutex_lock(&lock);
	while (!tickets)
		pthread_cond_wait(&cond, &lock);
	tickets--;
	pthread_mutex_unlock(&lock);
	return now() - t;
}

__attribute__((noinline)) double only_blocks(void)
{
	double t = now();
	for (int i = 0; i < 10; i++)
		poll(NULL, 0, 50);
	return now() - t;
}

__attribute__((noinline)) double vfork_wait(void)
{
	double t = now();
	pid_t pid = vfork();
	if (pid == 0) {
		/* Only system calls in a vfork child (it shares our memory). */
		struct timespec ts = { 0, UNIT_NS };
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	double d = now() - t;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return d;
}

/* Add a thread's seconds to measured[kind]. */
static void add_measured(int kind, double seconds)
{
	pthread_mutex_lock(&lock);
	measured[kind] += seconds;
	pthread_mutex_unlock(&lock);
}

static void *sleeper_main(void *arg)
{
	double sum = 0;
	for (int i = 1; i <= rounds; i++)
		sum += sleep_wait(i);
	add_measured(0, sum);
	return arg;
}

static void *reader_main(void *arg)
{
	double sum = 0;
	int fd = pipes[__atomic_fetch_add(&next_reader, 1, __ATOMIC_RELAXED)][0];
	for (int i = 0; i < rounds; i++)
		sum += pipe_wait(fd);
	add_measured(1, sum);
	return arg;
}

__attribute__((noinline)) static void feed_pipe(void)
{
	for (int i = 1; i <= rounds; i++) {
		until_tick(i);
		for (int r = 0; r < READERS; r++)
			if (write(pipes[r][1], "x", 1) != 1)
				exit(1);
	}
}

static void *feeder_main(void *arg)
{
	feed_pipe();
	return arg;
}

static void *waiter_main(void *arg)
{
	double sum = 0;
	for (int i = 0; i < rounds; i++)
		sum += cond_wait();
	add_measured(2, sum);
	return arg;
}

__attribute__((noinline)) static void signal_cond(void)
{
	for (int i = 1; i <= rounds; i++) {
		until_tick(i);
		pthread_mutex_lock(&lock);
		tickets++;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
}

static void *signaller_main(void *arg)
{
	signal_cond();
	return arg;
}

static void *idle_main(void *arg)
{
	measured[3] = only_blocks();
	return arg;
}

static void *vforker_main(void *arg)
{
	for (int i = 0; i < rounds; i++)
		measured[4] += vfork_wait();
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 1)
		return 2;
	for (int r = 0; r < READERS; r++)
		if (pipe(pipes[r]))
			return 2;
	clock_gettime(CLOCK_MONOTONIC, &start);
	void *(*mains[])(void *) = { sleeper_main, sleeper_main, sleeper_main, sleeper_main, sleeper_main,
				     sleeper_main, reader_main,	 reader_main,  reader_main,  feeder_main,
				     waiter_main,  signaller_main, idle_main,  vforker_main };
	enum { N = sizeof(mains) / sizeof(mains[0]) };
	pthread_t th[N];
	for (int i = 0; i < N; i++)
		if (pthread_create(&th[i], NULL, mains[i], NULL))
			return 2;
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	printf("sleep_wait %.6f pipe_wait %.6f cond_wait %.6f only_blocks_wall %.6f vfork_wait %.6f\n",
	       measured[0], measured[1], measured[2], measured[3], measured[4]);
	return 0;
}
