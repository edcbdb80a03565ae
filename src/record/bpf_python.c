/* See bpf_python.h. */
#include "record/bpf_python.h"

#include "base/alloc.h"
#include "record/bpf_map_each.h"
#include "record/bpf_stack_cache.h"
#include "record/profile_abi.h"
#include "runtime/python_abi.h"

#include <bpf/bpf.h>
#include <stdlib.h>
#include <string.h>

/* As python.bpf.h lays it out. */
struct python_bpf_stack {
	uint32_t nr;
	uint32_t pad;
	uint64_t frames[PYTHON_MAX_FRAMES];
};

void bpf_python_init(struct bpf_python *bp, int procs_fd, int stacks_fd, int seen_fd)
{
	bp->procs_fd = procs_fd;
	bp->stacks_fd = stacks_fd;
	bp->seen_fd = seen_fd;
	bpf_stack_cache_init(&bp->cache);
	bp->value = xcalloc(1, sizeof(struct python_bpf_stack));
}

void bpf_python_release(struct bpf_python *bp)
{
	bpf_stack_cache_release(&bp->cache);
	free(bp->value);
}

static void seen_one(void *arg, const void *key, const void *value)
{
	uint32_t pid;
	(void)value;
	memcpy(&pid, key, sizeof(pid));
	recorder_runtime_recheck(arg, pid);
}

void bpf_python_update(struct bpf_python *bp, struct recorder *r)
{
	bpf_map_each(bp->seen_fd, true, seen_one, r);
	uint32_t pids[16];
	size_t n;
	while ((n = recorder_runtimes_owned(r, pids, 16)) > 0) {
		for (size_t i = 0; i < n; i++) {
			struct python_walk_params v;
			if (recorder_runtime_params(r, pids[i], &v, sizeof(v)) == sizeof(v))
				bpf_map_update_elem(bp->procs_fd, &pids[i], &v, BPF_ANY);
		}
	}
}

void bpf_python_sample(struct bpf_python *bp, int32_t id, struct record_sample *s)
{
	static const uint64_t none[1];
	s->payload = none;
	s->payload_len = 0;
	if (id <= 0)
		return;
	uint32_t nr;
	const uint64_t *got = bpf_stack_cache_get(&bp->cache, (uint32_t)id, &nr);
	if (!got) {
		struct python_bpf_stack *st = bp->value;
		uint32_t key = (uint32_t)id;
		if (bpf_map_lookup_elem(bp->stacks_fd, &key, st))
			return;
		nr = st->nr < PYTHON_MAX_FRAMES ? st->nr : PYTHON_MAX_FRAMES;
		got = bpf_stack_cache_put(&bp->cache, key, st->frames, nr);
	}
	s->payload = got;
	s->payload_len = nr * sizeof(uint64_t);
}
