/* Workload for scorch record's stack-map tests: many distinct stacks, each
 * with a kernel part that its user part decides. For SECONDS (default 1),
 * main calls descend() DEPTH levels deep (default 12); at each of the last
 * 12 levels it goes through left() or right() after one bit of a counter,
 * so the user stacks take 4,096 shapes. At the bottom, a path whose last
 * turn was left() writes to /dev/null in writer(), one whose last turn was
 * right() reads /dev/zero in reader(): every kernel write is under
 * ...;left;writer and every kernel read under ...;right;reader, whatever
 * the earlier turns.
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
 * -g branches.c -o branches */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int null_fd, zero_fd;
static char buf[512];

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void writer(void)
{
	for (int i = 0; i < 20; i++)
		if (write(null_fd, buf, sizeof(buf)) < 0)
			exit(1);
}

__attribute__((noinline)) void reader(void)
{
	for (int i = 0; i < 20; i++)
		if (read(zero_fd, buf, sizeof(buf)) < 0)
			exit(1);
}

void descend(unsigned level, unsigned path);

__attribute__((noinline)) void left(unsigned level, unsigned path)
{
	if (level)
		descend(level, path);
	else
		writer();
}

__attribute__((noinline)) void right(unsigned level, unsigned path)
{
	if (level)
		descend(level, path);
	else
		reader();
}

/* One level down: the last 12 levels turn by a bit of path. */
__attribute__((noinline)) void descend(unsigned level, unsigned path)
{
	level--;
	if (level >= 12 || !(path >> level & 1))
		left(level, path);
	else
		right(level, path);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned depth = argc > 2 ? (unsigned)atoi(argv[2]) : 12;
	null_fd = open("/dev/null", O_WRONLY);
	zero_fd = open("/dev/zero", O_RDONLY);
	if (null_fd < 0 || zero_fd < 0 || depth < 12)
		return 1;
	double end = cpu_seconds() + seconds;
	for (unsigned path = 0; cpu_seconds() < end; path++)
		descend(depth, path);
	return 0;
}
