/* Workload for scorch report's JIT test (x86-64): copies a small counting
 * loop into anonymous executable memory, names it in /tmp/perf-PID.map as
 * a JIT would ("jitted_spin"), and runs it for SECONDS (default 0.4). With
 * a second argument "unnamed" the map names other code only, so the loop's
 * frames are unknown inside the map. The map file is removed by the test,
 * not here, so perf script can read it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	double seconds = argc > 1 ? atof(argv[1]) : 0.4;
	/* mov rax, rdi; 1: dec rax; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 64, code, sizeof(code));
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	if (argc > 2 && !strcmp(argv[2], "unnamed"))
		fprintf(f, "%lx 10 jitted_elsewhere\n", (unsigned long)(mem + 1024));
	else
		fprintf(f, "%lx %zx jitted_spin\n", (unsigned long)(mem + 64), sizeof(code));
	fclose(f);
	void (*fn)(unsigned long) = (void (*)(unsigned long))(void *)(mem + 64);
	double end = now() + seconds;
	while (now() < end)
		fn(2000000);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 2;
#endif
}
