/* Workload for scorch record -e page-faults: main calls fault_a and fault_b,
 * each mapping fresh anonymous memory and writing one byte per page (one
 * page fault each), fault_a touching twice the pages of fault_b, for ROUNDS
 * rounds (default 40; 3 x 512 pages a round). Expected page-fault shares:
 * main;fault_a : main;fault_b = 2:1 (plus a few faults of the loader and libc).
 * Transparent huge pages are turned off for the mappings (one fault per
 * 4 KiB page, not per 2 MiB).
 * Build: cc -O1 -fno-omit-frame-pointer -fno-inline -g faults.c -o faults */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 512

__attribute__((noinline)) static void touch_pages(size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = pages * (size_t)page;
	volatile char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("faults: mmap");
		exit(1);
	}
	madvise((void *)m, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		m[i * (size_t)page] = 1;
	munmap((void *)m, len);
}

__attribute__((noinline)) void fault_a(void)
{
	touch_pages(2 * PAGES);
}

__attribute__((noinline)) void fault_b(void)
{
	touch_pages(PAGES);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	for (int i = 0; i < rounds; i++) {
		fault_a();
		fault_b();
	}
	return 0;
}
