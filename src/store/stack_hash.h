/* The store's name of a stack: a 64-bit hash of its frame names, root
 * first, computed the same way by every writer (base/hash.h), so the
 * stacks table holds each stack once whoever sent it. */
#ifndef SCORCH_STORE_STACK_HASH_H
#define SCORCH_STORE_STACK_HASH_H

#include "profile/profile.h"

#include <stdint.h>

/* The hash of every node's stack (root..node), malloc'd array of p->nr. */
uint64_t *stack_hashes(const struct profile *p);

#endif
