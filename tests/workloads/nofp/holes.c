/* A thread whose hot path runs under a frame with a big stack buffer it
 * almost never touches, as coreutils sort's compare() keeps 8 KiB for
 * collation and its merge threads run under it: the buffer's middle
 * pages are never present, so a stack copy must get past pages it cannot
 * read to reach the thread's start. Fixed work (the same samples whatever
 * the load): holes [ROUNDS] (default 200000 rounds, about 0.2 s). */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(void)
{
	for (unsigned long i = 0; i < 2000; i++)
		sink += i;
}

__attribute__((noinline)) static void compare(int long_key)
{
	char buf[8192];
	if (long_key) /* never, here: the buffer's pages stay untouched */
		buf[0] = 1;
	__asm__ volatile("" : : "r"(buf) : "memory");
	leaf();
}

__attribute__((noinline)) static void *worker(void *arg)
{
	unsigned long rounds = *(unsigned long *)arg;
	for (unsigned long i = 0; i < rounds; i++)
		compare(0);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, &rounds))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
