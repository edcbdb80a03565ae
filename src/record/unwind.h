/* DWARF unwinding of user stacks while record samples (--call-graph dwarf
 * or auto).
 *
 * Each sample's register set is walked up its stack copy frame by frame:
 * the frame's address is found in the process's mappings (procmaps.h, the
 * one address-space model record keeps, fed by both backends), the
 * mapping's file gives the CFI rules for it (unwind_tables.h: parsed by
 * libdw once per file, shared by every process that maps the file), and
 * the rules give the caller's registers, read from the stack copy. Where a
 * file has no CFI for an address, one frame-pointer step is taken instead,
 * as libdw's own unwinder does. Only return addresses, never stack bytes,
 * outlive the sample. x86-64 only. */
#ifndef SCORCH_RECORD_UNWIND_H
#define SCORCH_RECORD_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record_unwinder;
struct record_sample;
struct procmaps;

/* NULL when this build has no DWARF unwinder (no elfutils). */
struct record_unwinder *record_unwinder_new(void);
void record_unwinder_free(struct record_unwinder *u);

/* Unwind s's register set and stack copy against the mappings of s->pid
 * in maps into ips (leaf first, callers as return addresses, like a
 * frame-pointer callchain). Returns the count, 0 when nothing could be
 * unwound; *complete tells whether the walk ended where the unwind tables
 * say the stack starts. */
int record_unwind(struct record_unwinder *u, const struct procmaps *maps, const struct record_sample *s,
		  uint64_t *ips, int max, bool *complete);

#endif
