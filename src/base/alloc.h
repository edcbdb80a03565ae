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
