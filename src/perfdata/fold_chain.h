/* Callchains folded straight to the trie (fold_chain.c), on the folder
 * (folder.h), and at report -j1 the samples held while the kernel's
 * symbols are read. */
#ifndef SCORCH_PERFDATA_FOLD_CHAIN_H
#define SCORCH_PERFDATA_FOLD_CHAIN_H

#include "perfdata/folder.h"

#include <stdbool.h>
#include <stdint.h>

/* A callchain folded below [cpu (PUSHES_NO_CPU: none),] pname (named by
 * the thread alone when comm is its comm, else NULL) and counted period,
 * without the per-frame detour, for samples whose names do not depend on
 * the process (not Java) and that need no per-frame output (--script,
 * --inline, sites). A sample whose kernel frames need the kernel's symbols
 * may be held until they are read (kernel_catch_up). */
void fold_callchain(struct folder *f, const struct pd_sample *s, const char *comm, sym_t cpu, sym_t pname,
		    uint64_t period);

/* Whether the kernel's symbols are read (kernel_wait set). */
bool kernel_ready(struct folder *f);

/* Wait for the kernel's symbols and fold the samples held for them (nothing
 * when kernel_wait is NULL). */
void kernel_catch_up(struct folder *f);

/* The replay's hook before a kernel MMAP record (replay.h). */
bool defer_kernel_map(void *arg);

#endif
