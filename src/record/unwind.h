/* DWARF unwinding of user stacks while record samples (--call-graph dwarf
 * or auto): a symbolizer that follows the sampled processes' address
 * spaces (fed the same process events as procmaps.c, in time order) and
 * unwinds each sample's register set and stack copy with report's libdw
 * unwinder (symbolize/unwind_dwarf.c), so only return addresses, never
 * stack bytes, outlive the sample. */
#ifndef SCORCH_RECORD_UNWIND_H
#define SCORCH_RECORD_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record_unwinder;
struct record_sample;

/* NULL when this build has no DWARF unwinder (no elfutils). read_proc:
 * read /proc/PID/maps of processes first seen (false in tests and fuzzers,
 * which describe every mapping in records). */
struct record_unwinder *record_unwinder_new(bool read_proc);
void record_unwinder_free(struct record_unwinder *u);

void record_unwinder_comm(struct record_unwinder *u, uint32_t pid, uint32_t tid, const char *comm,
			  bool exec);
void record_unwinder_fork(struct record_unwinder *u, uint32_t ppid, uint32_t ptid, uint32_t pid,
			  uint32_t tid);
void record_unwinder_mmap(struct record_unwinder *u, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *path);
/* A process exited: free what unwinding its samples held (libdw's view
 * of its modules and their CFI), which would otherwise grow with every
 * process a system-wide recording sees. */
void record_unwinder_exit(struct record_unwinder *u, uint32_t pid);
/* A process first seen: its current mappings from /proc/PID/maps. */
void record_unwinder_load(struct record_unwinder *u, uint32_t pid);

/* Unwind s's register set and stack copy into ips (leaf first, callers as
 * return addresses, like a frame-pointer callchain). Returns the count, 0
 * when nothing could be unwound; *complete tells whether the walk ended
 * where the unwind tables say the stack starts. */
int record_unwind(struct record_unwinder *u, const struct record_sample *s, uint64_t *ips, int max,
		  bool *complete);

#endif
