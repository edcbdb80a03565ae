/* --off-cpu on the BPF backend (record-private, libbpf only): offcpu.bpf.c
 * on sched_switch, beside (--wall) or instead of profile.bpf.c's
 * sampling; its user side is bpf_offcpu.c. */
#ifndef SCORCH_RECORD_BPF_OFFCPU_H
#define SCORCH_RECORD_BPF_OFFCPU_H

#include "record/bpf_stacks.h"
#include "record/profile_abi.h"
#include "record/recorder.h"
#include "record/target.h"

/* Each returns 0, or -1 after an error; bpf_offcpu_open returns
 * RECORD_UNAVAILABLE when the program cannot load here (the driver falls
 * back to perf). */
struct bpf_offcpu;
/* The program shares profile.bpf.c's stack maps (class_fds) and
 * user-stack ring; depth: frames kept per stack (--max-stack);
 * copy_stack: DWARF, user stacks copied out at switch-out. */
int bpf_offcpu_open(const struct record_opts *o, const struct record_target *t, const int class_fds[PROFILE_CLASSES],
		    uint32_t depth, int ring_fd, bool copy_stack, struct bpf_offcpu **out);
/* Target filters and attachment, before the command is released. */
int bpf_offcpu_attach(struct bpf_offcpu *oc, const struct record_opts *o, const struct record_target *t);
/* bpf_scan_pids over its counts (and blocked and waking pids). */
void bpf_offcpu_scan_pids(struct bpf_offcpu *oc, struct recorder *r, bool refresh);
/* Detach (the end of sampling: threads still switched out count to now). */
void bpf_offcpu_detach(struct bpf_offcpu *oc);
/* A record from the shared ring: an on-CPU sample's copy (returned as
 * is), a blocked thread's copy (kept: NULL), or the end of its block (the
 * copy, off_cpu_ns set, *size its length; NULL when its copy is unknown). */
const void *bpf_offcpu_ring_record(struct bpf_offcpu *oc, const void *data, size_t *size);
/* --wakers: the waker a completed copy (size bytes, from
 * bpf_offcpu_ring_record) carries, as a sample in s; else NULL. */
const struct record_sample *bpf_offcpu_waker(struct bpf_offcpu *oc, const struct profile_ustack *u, size_t size,
					     struct record_sample *s);
/* The blocked time, per stack, to the recorder; statistics to stats.
 * Threads still blocked whose stack was copied go to copied(). */
void bpf_offcpu_drain(struct bpf_offcpu *oc, struct recorder *r, struct record_stats *stats, uint32_t limit,
		      void (*copied)(void *arg, const void *data, size_t len), void *arg);
void bpf_offcpu_close(struct bpf_offcpu *oc);

#endif
