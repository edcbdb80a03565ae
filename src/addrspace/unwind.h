/* DWARF unwinding of user stacks (perf's --call-graph dwarf samples, and
 * record's own --call-graph dwarf or auto), for record and report alike.
 *
 * A sample's register set is walked up its stack copy frame by frame: the
 * frame's address is found in its address space (procmaps.h, the one
 * model both commands feed), the caller says which file holds the code of
 * that mapping (a source: record names the mapped path, report the file
 * its DSO resolved to), the file gives the CFI rules for it
 * (unwind_tables.h: parsed by libdw once per file, shared by every process
 * that maps it), and the rules give the caller's registers, read from the
 * stack copy. Where a file has no CFI for an address, one frame-pointer
 * step is taken instead, as libdw's own unwinder does. Only return
 * addresses, never stack bytes, outlive the sample. x86-64 only. */
#ifndef SCORCH_ADDRSPACE_UNWIND_H
#define SCORCH_ADDRSPACE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwinder;
struct procmaps;
struct mapping;

/* One sample's user state, as perf samples it (PERF_SAMPLE_REGS_USER and
 * STACK_USER). */
struct unwind_stack {
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;   /* popcount(regs_mask) values, in perf_regs order */
	const uint8_t *stack;   /* the copy, from the sampled sp */
	size_t stack_len;
	uint32_t stack_holes;   /* bit i: the i-th page from the sp's page is not in the copy */
};

/* The file that holds a mapping's code: key names it for the unwinder's
 * cache (one key, one file); the file is image[0..image_len) when image is
 * set, else the file at path ("[vdso]": this process's own vdso). */
struct unwind_source {
	uint32_t key;
	const char *path;
	const void *image;
	size_t image_len;
};
/* Fill *src for mapping m; false when m has no file to unwind with (the
 * walk stops there, as perf's does). */
typedef bool (*unwind_source_of)(void *arg, const struct mapping *m, struct unwind_source *src);

/* NULL when this build has no DWARF unwinder (no elfutils). */
struct unwinder *unwinder_new(void);
void unwinder_free(struct unwinder *u);
/* The files' unwind tables' byte budget (unwind_tables.c's default,
 * UNWIND_TABLES_BYTES, otherwise). */
void unwinder_set_budget(struct unwinder *u, size_t bytes);
/* What the files' unwind tables hold now (bytes, within their budget:
 * unwind_tables.c), and how many were dropped for it so far. */
void unwinder_held(const struct unwinder *u, size_t *bytes, uint64_t *dropped);

/* Unwind s against space (of maps) into ips: ips[0] the sampled pc, then
 * the callers' return addresses (a caller interrupted by a signal: its pc
 * + 1), as a frame-pointer callchain holds them. Returns the count, 0 when
 * nothing could be unwound; *complete tells whether the walk ended where
 * the unwind tables say the stack starts. */
int unwind_user_stack(struct unwinder *u, const struct procmaps *maps, uint32_t space, const struct unwind_stack *s,
		      unwind_source_of source_of, void *arg, uint64_t *ips, int max, bool *complete);
/* As unwind_user_stack, and fps[i] (when fps is not NULL): the frame
 * pointer (rbp) frame i had, as the walk knew it, 0 when it did not. */
int unwind_user_stack_fp(struct unwinder *u, const struct procmaps *maps, uint32_t space,
			 const struct unwind_stack *s, unwind_source_of source_of, void *arg, uint64_t *ips,
			 uint64_t *fps, int max, bool *complete);

/* The frame pointer of each of a chain's n frames (ips: the sampled pc,
 * then return addresses), into fps: fps[0..known) as the DWARF walk gave
 * them (known 0: none, a frame-pointer chain: the leaf's is the sampled
 * rbp), then on along the frame-pointer chain in the stack copy: frame
 * k+1's is the word at frame k's when the word above it is frame k+1's
 * return address, as the kernel's walk found it. The rest (a word
 * outside the copy, a chain that does not match) are 0. */
void unwind_frame_pointers(const struct unwind_stack *s, const uint64_t *ips, uint32_t n, uint64_t *fps,
			   uint32_t known);
/* The word at addr in s's stack copy (as sampled); false outside it. */
bool unwind_stack_word(const struct unwind_stack *s, uint64_t addr, uint64_t *out);

#endif
