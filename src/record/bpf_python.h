/* The BPF backend's side of runtime frames read at the sample
 * (python.bpf.h): the processes the runtimes own handed to the program
 * (py_procs: runtime.h's bpf_params), the processes the program met
 * offered to the runtimes again (py_seen), and the frames it stored per
 * sample (py_stacks) read back once per id, as the sample's payload.
 * Built only with libbpf (HAVE_LIBBPF). */
#ifndef SCORCH_RECORD_BPF_PYTHON_H
#define SCORCH_RECORD_BPF_PYTHON_H

#include "record/bpf_stack_cache.h"
#include "record/recorder.h"

struct bpf_python {
	int procs_fd, stacks_fd, seen_fd;
	struct bpf_stack_cache cache; /* py_stacks by id */
	void *value;                  /* one py_stacks value */
};

void bpf_python_init(struct bpf_python *bp, int procs_fd, int stacks_fd, int seen_fd);
void bpf_python_release(struct bpf_python *bp);
/* Offer the processes the program met again (an exec on its way), and
 * hand it the processes owned since the last call. */
void bpf_python_update(struct bpf_python *bp, struct recorder *r);
/* The frames of py_stacks id `id` (a profile_key's python_stack) as s's
 * payload (non-NULL even when there are none: they were read at the
 * sample, not to be read later). */
void bpf_python_sample(struct bpf_python *bp, int32_t id, struct record_sample *s);

#endif
