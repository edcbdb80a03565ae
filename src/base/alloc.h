/* Allocation that dies on out-of-memory, and overflow-checked growth. */
#ifndef SCORCH_BASE_ALLOC_H
#define SCORCH_BASE_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Blocks of 1 MiB or more (from xmalloc, xrealloc, xreallocarray,
 * xcalloc_dense) are aligned on 2 MiB, a multiple of it and asked for
 * transparent huge pages: such arrays (symbol tables, records, profile
 * nodes) are mostly written, and one fault per 2 MiB instead of 512 took
 * report's page faults on a system-wide capture from 19,600 to ~8,000
 * (each costs ~2 us here). xrealloc moves a block there when it first
 * reaches 1 MiB; later growth is left to realloc. That is not the remap
 * it looks like: the advice covers only the aligned part of glibc's
 * mapping, which splits it, so glibc's mremap fails (EFAULT) and realloc
 * falls back to malloc, copy and free, into pages without the advice
 * (seen with strace; advising the whole mapping, or copying into a new
 * huge-page block, each cost more faults or memory elsewhere).
 * All are freed with free(). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc(p, nmemb * size), dying on multiplication overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/* calloc that writes the zeros now, for arrays read before they are written
 * (counters, sums, probed tables): calloc's fresh pages would cost two page
 * faults each (the shared zero page mapped on the read, then copied on the
 * write), written now they cost one. */
void *xcalloc_dense(size_t nmemb, size_t size);
/* n zeroed bytes for a big table probed at random: xcalloc_dense, so from
 * 1 MiB on on huge pages (the probes do not also miss the TLB). */
void *xcalloc_table(size_t n);
char *xmemdup0(const void *p, size_t n);

/* For a process that runs for days (record --every), from now on: big
 * blocks are left to malloc, on ordinary pages. A huge page is resident
 * whole from its first write, so an agent's tables, which grow a block at
 * a time, took its memory up in steps of 2 MiB that a long run does not
 * give back (bench/NOTES.md: 4 MB less and a third less growth in 7
 * minutes at 99 Hz under churn). Process-wide, as malloc's own settings
 * are: call it before other threads start. */
void alloc_big_blocks_on_small_pages(void);

/* Out of memory (or of a table's ids): "scorch: out of memory: WHAT" on
 * stderr, the temporary files of outputs in progress removed (old outputs
 * stay as they were), exit status 1. What every x*alloc does on failure. */
_Noreturn void alloc_fail(const char *what);

/* For a command that makes many small blocks on its main thread (report:
 * an address space, a thread and a few hash entries per process seen):
 * glibc's main heap grows `pad` bytes ahead at a time from now on, and
 * what it just grew is advised for transparent huge pages, so that the
 * small blocks' first writes fault once per 2 MiB rather than once per
 * page. Nothing under the sanitizers (their allocator
 * is not glibc's). */
struct heap_ahead {
	uintptr_t from, len; /* the part grown ahead and advised (len 0: none) */
};
struct heap_ahead alloc_small_blocks_on_huge_pages(size_t pad);
/* A thread of its own writes in (MADV_POPULATE_WRITE: faults in, changes
 * nothing written) the `bytes` of h past what is in memory of it now, the
 * part the heap's next blocks come from: their page faults (zeroing 2 MiB
 * each, slow on a VM whose host took the memory back) are then taken on
 * another CPU. For a caller that knows how much more it will allocate and
 * has a CPU to spare; a no-op for bytes under 2 MiB or without h. */
void alloc_heap_fault_in(const struct heap_ahead *h, size_t bytes);

/* A process about to exit may leave what it allocated to the exit (the
 * kernel takes the pages back at once; freeing a large heap block by block
 * costs tenths of a second). Not under a leak checker, which would report
 * it: sanitizer builds, or -DSCORCH_FREE_AT_EXIT for valgrind. */
#if defined(__SANITIZE_ADDRESS__) || defined(SCORCH_FREE_AT_EXIT)
#define FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define FREE_AT_EXIT 1
#endif
#endif
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

/* Make room for at least `need` elements in ptr[], growing `alloc` by 3/2. */
#define VEC_GROW(ptr, need, alloc)                                                   \
	do {                                                                         \
		if ((size_t)(need) > (size_t)(alloc)) {                              \
			size_t vec_grow_n_ = (size_t)(alloc) * 3 / 2 + 16;           \
			if (vec_grow_n_ < (size_t)(need))                            \
				vec_grow_n_ = (size_t)(need);                        \
			(ptr) = xreallocarray((ptr), vec_grow_n_, sizeof(*(ptr)));   \
			(alloc) = vec_grow_n_;                                       \
		}                                                                    \
	} while (0)

/* Make room for exactly `need` elements in ptr[] (when it has less): for
 * a count known before the elements come. */
#define VEC_RESERVE(ptr, need, alloc)                                                \
	do {                                                                         \
		if ((size_t)(need) > (size_t)(alloc)) {                              \
			(ptr) = xreallocarray((ptr), (size_t)(need), sizeof(*(ptr)));  \
			(alloc) = (need);                                            \
		}                                                                    \
	} while (0)

/* VEC_GROW for arrays indexed by id and read before they are written: the
 * new elements are zeroed. */
#define VEC_GROW_ZEROED(ptr, need, alloc)                                            \
	do {                                                                         \
		size_t vec_was_ = (size_t)(alloc);                                   \
		VEC_GROW(ptr, need, alloc);                                          \
		if ((size_t)(alloc) > vec_was_)                                      \
			memset((ptr) + vec_was_, 0,                                  \
			       ((size_t)(alloc) - vec_was_) * sizeof(*(ptr)));       \
	} while (0)

#endif
