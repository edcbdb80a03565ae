/* Allocation that dies on out-of-memory, and overflow-checked growth. */
#ifndef SCORCH_BASE_ALLOC_H
#define SCORCH_BASE_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc(p, nmemb * size), dying on multiplication overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xmemdup0(const void *p, size_t n);

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

#endif
