/* synth_timed SECONDS HZ CPUS > out.txt: perf script's default text for a
 * made-up system-wide capture, for bench/time.sh (no such capture is in the
 * corpus): CPUS CPUs sampled HZ times a second each for SECONDS, every
 * sample with a timestamp, a cpu-clock period and a stack of 4 to 15
 * frames under one of 24 processes, each with a call tree of its own (3
 * callees a frame, the first the likeliest). Deterministic (a fixed LCG).
 * The mix changes with time, so the heat map has something to show: each
 * process is busy in bursts of its own period, and every 7 s a 300 ms
 * "pause" puts most samples in one function. 600 s at 999 Hz on 2 CPUs:
 * 1.2M samples, ~110k distinct stacks, ~370k frames in the merged graph
 * (bench/time.sh prints them), the order of a real system-wide capture
 * (the corpus's b-sys-gcc: 275k samples, 54k stacks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(state >> 33);
}

/* A skewed pick in [0, n): small numbers are more likely. */
static uint32_t skewed(uint32_t n)
{
	uint32_t a = next() % n, b = next() % n;
	return a < b ? a : b;
}

static const char *const comms[] = { "java", "postgres", "nginx", "node", "python3", "cc1", "ld", "make",
				     "bash", "sshd", "redis-server", "kworker/0:1", "swapper", "rustc", "go",
				     "clickhouse", "systemd", "dockerd", "containerd", "envoy", "ruby", "php-fpm",
				     "mysqld", "chromium" };
enum { NCOMMS = sizeof(comms) / sizeof(comms[0]), NFUNCS = 400 };

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: synth_timed SECONDS HZ CPUS\n");
		return 2;
	}
	long seconds = atol(argv[1]), hz = atol(argv[2]), cpus = atol(argv[3]);
	if (seconds < 1 || hz < 1 || cpus < 1)
		return 2;
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	uint64_t t0 = 12345000000000ull, step = 1000000000ull / (uint64_t)hz;
	for (long tick = 0; tick < seconds * hz; tick++) {
		for (long cpu = 0; cpu < cpus; cpu++) {
			uint64_t t = t0 + (uint64_t)tick * step + (uint64_t)cpu * 137 + next() % 1000;
			double s = (double)(t - t0) / 1e9;
			uint32_t c = skewed(NCOMMS);
			/* bursts: process c is busy in the first half of its own period */
			if ((uint64_t)(s * 1000) % (2000 + 250 * c) > 1000 + 125 * c)
				c = (c + 1 + next() % 3) % NCOMMS;
			int pause = (uint64_t)(s * 1000) % 7000 < 300;
			printf("%s %5u [%03ld] %llu.%06llu: %10llu cpu-clock:pppH: \n", comms[c], 1000 + c * 7, cpu,
			       (unsigned long long)(t / 1000000000ull), (unsigned long long)(t % 1000000000ull / 1000),
			       (unsigned long long)step);
			/* a call tree per process: at each level one of 3 callees,
			 * the first more likely */
			uint32_t depth = 4 + skewed(12), f = (c * 37) % NFUNCS;
			uint32_t frames[16];
			for (uint32_t d = 0; d < depth; d++) {
				f = (f * 31 + 7 + skewed(pause ? 2 : 3) * 101) % (NFUNCS - 1);
				frames[d] = f;
			}
			if (pause)
				frames[depth - 1] = 399;
			for (uint32_t d = depth; d-- > 0;)
				printf("\t%16llx fn_%u+0x%x (/usr/lib/lib%u.so)\n",
				       (unsigned long long)(0x7f0000000000ull + frames[d] * 0x1000), frames[d],
				       frames[d] % 256, frames[d] % 16);
			putchar('\n');
		}
	}
	return 0;
}
