/* LD_PRELOAD shim for tests: CLOCK_REALTIME (clock_gettime, gettimeofday,
 * time) shifted by the seconds written in the file $CLOCKSHIFT_FILE, read
 * again at most every 10 ms of CLOCK_MONOTONIC: a test steps the wall
 * clock of one process, as NTP would step the machine's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static int (*real_gettime)(clockid_t, struct timespec *);
static long long shift_ns, read_at = -1;

static long long shift(void)
{
	struct timespec m;
	real_gettime(CLOCK_MONOTONIC, &m);
	long long now = m.tv_sec * 1000000000ll + m.tv_nsec;
	if (read_at < 0 || now - read_at > 10000000) {
		read_at = now;
		const char *path = getenv("CLOCKSHIFT_FILE");
		FILE *f = path ? fopen(path, "r") : NULL;
		double s;
		if (f && fscanf(f, "%lf", &s) == 1)
			shift_ns = (long long)(s * 1e9);
		if (f)
			fclose(f);
	}
	return shift_ns;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (!real_gettime)
		real_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int r = real_gettime(id, ts);
	if (r || (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE))
		return r;
	long long t = ts->tv_sec * 1000000000ll + ts->tv_nsec + shift();
	ts->tv_sec = t / 1000000000ll;
	ts->tv_nsec = t % 1000000000ll;
	return 0;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;
	(void)tz;
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *out)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (out)
		*out = ts.tv_sec;
	return ts.tv_sec;
}
