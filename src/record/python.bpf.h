/* CPython frames at the sample instant (profile.bpf.c): for a process
 * user space found running a known interpreter (py_procs: the address
 * of its _PyRuntime and the offsets, runtime/python_abi.h), find the
 * sampled thread's PyThreadState (native_thread_id == tid; before 3.11
 * the tid in the struct pthread its thread_id points to), walk its
 * frames from the current one outwards and store them, packed, in
 * py_stacks under a hash of their content, as the native stacks are
 * stored. The walk reads user memory with bpf_probe_read_user: a
 * pointer that does not read ends it. Included by profile.bpf.c only. */
#ifndef SCORCH_RECORD_PYTHON_BPF_H
#define SCORCH_RECORD_PYTHON_BPF_H

#include "runtime/python_abi.h"

struct python_bpf_stack {
	__u32 nr;
	__u32 pad;
	__u64 frames[PYTHON_MAX_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_FILTER_ENTRIES);
	__type(key, __u32);
	__type(value, struct python_walk_params);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, PROFILE_STACK_ENTRIES);
	__type(key, __u32);
	__type(value, struct python_bpf_stack);
} py_stacks SEC(".maps");

/* Processes sampled that are not in py_procs, since user space last
 * took them: it looks at each (a process that exec'd a CPython shows up
 * here within a round, rather than when its samples come out of the
 * time-ordered queue, which lags on a busy machine). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_NEW_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} py_seen SEC(".maps");

struct python_scratch {
	struct python_bpf_stack stack;
	__u8 head[128 + 8]; /* + slack: a u64 read at any offset below 128 */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct python_scratch);
} py_scratch SEC(".maps");

static __always_inline __u64 py_read_ptr(__u64 addr)
{
	__u64 v = 0;
	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

struct py_thread_walk {
	const struct python_walk_params *pp;
	__u64 t;      /* the thread state looked at */
	__u32 tid;
	__u64 found;
};

static long py_thread_step(__u64 i, void *arg)
{
	struct py_thread_walk *w = arg;
	(void)i;
	const struct python_offsets *o = &w->pp->off;
	if (!w->t)
		return 1;
	__u64 native;
	if (o->tstate_native_thread_id != PYTHON_NO_OFFSET) {
		native = py_read_ptr(w->t + o->tstate_native_thread_id);
	} else { /* before 3.11: the tid in the struct pthread of its thread_id */
		__u64 pthread = py_read_ptr(w->t + o->tstate_thread_id);
		__u32 tid32 = 0;
		if (pthread)
			bpf_probe_read_user(&tid32, sizeof(tid32), (const void *)(pthread + o->pthread_tid));
		native = tid32;
	}
	if (native == w->tid) {
		w->found = w->t;
		return 1;
	}
	w->t = py_read_ptr(w->t + w->pp->off.tstate_next);
	return 0;
}

struct py_frame_walk {
	const struct python_walk_params *pp;
	struct python_scratch *s;
	__u64 frame;
};

/* The head's u64 at off (user space keeps the offsets below 120; the
 * mask is the verifier's bound). */
static __always_inline __u64 head_u64(const struct python_scratch *s, __u32 off)
{
	__u64 v;
	__builtin_memcpy(&v, &s->head[off & 127], 8);
	return v;
}

static long py_frame_step(__u64 i, void *arg)
{
	struct py_frame_walk *w = arg;
	struct python_scratch *s = w->s;
	const struct python_offsets *o = &w->pp->off;
	(void)i;
	if (!w->frame || s->stack.nr >= PYTHON_MAX_FRAMES)
		return 1;
	__u32 len = w->pp->head_len & 127;
	if (!len || bpf_probe_read_user(s->head, len, (const void *)w->frame))
		return 1;
	__u64 previous = head_u64(s, o->frame_previous);
	__u64 code = head_u64(s, o->frame_code);
	__u32 n = s->stack.nr;
	if (o->frame_kind == PYTHON_FRAMES_OBJECTS) {
		/* 3.8-3.10: a PyFrameObject, its own run; f_lasti an int */
		__s32 lasti = (__s32)head_u64(s, o->frame_instr);
		__u64 idx = lasti < 0 ? 0 : ((__u64)lasti >> (o->lasti_shift & 1));
		if (idx >= PYTHON_INSTR_UNKNOWN)
			idx = PYTHON_INSTR_UNKNOWN;
		if (code && code == PYTHON_FRAME_CODE(code)) {
			s->stack.frames[n & (PYTHON_MAX_FRAMES - 1)] = PYTHON_FRAME(code, 1, idx);
			s->stack.nr = n + 1;
		}
		w->frame = previous;
		return 0;
	}
	__u8 owner = s->head[o->frame_owner & 127];
	if (owner == o->owner_cstack) {
		/* a C entry's shim frame: the run below it ends here */
		if (n > 0 && n <= PYTHON_MAX_FRAMES)
			s->stack.frames[(n - 1) & (PYTHON_MAX_FRAMES - 1)] |= 1ull << 47;
	} else if (code && code == PYTHON_FRAME_CODE(code)) {
		__u64 instr = head_u64(s, o->frame_instr), base = code + o->code_adaptive;
		__u64 idx = instr < base ? 0 : (instr - base) / 2;
		__u8 entry = o->frame_is_entry != PYTHON_NO_OFFSET ? s->head[o->frame_is_entry & 127] : 0;
		if (idx >= PYTHON_INSTR_UNKNOWN)
			idx = PYTHON_INSTR_UNKNOWN;
		s->stack.frames[n & (PYTHON_MAX_FRAMES - 1)] = PYTHON_FRAME(code, entry, idx);
		s->stack.nr = n + 1;
	}
	w->frame = previous;
	return 0;
}

static long py_hash_step(__u64 i, void *arg)
{
	struct py_frame_walk *w = arg; /* frame: the running hash */
	const struct python_bpf_stack *st = &w->s->stack;
	if (i >= st->nr)
		return 1;
	__u64 h = (w->frame ^ st->frames[i & (PYTHON_MAX_FRAMES - 1)]) * 0x9e3779b97f4a7c15ull;
	w->frame = h ^ (h >> 31);
	return 0;
}

static long py_cmp_step(__u64 i, void *arg)
{
	struct py_frame_walk *w = arg; /* frame: the stored stack; pp: unused */
	const struct python_bpf_stack *have = (const void *)w->frame;
	__u32 k = (__u32)i & (PYTHON_MAX_FRAMES - 1);
	if (i >= w->s->stack.nr)
		return 1;
	if (have->frames[k] != w->s->stack.frames[k]) {
		w->pp = NULL; /* differ */
		return 1;
	}
	return 0;
}

/* The sampled thread's Python frames stored in py_stacks: their id
 * (> 0), 0 when there are none (not a process user space set up, or a
 * thread that runs no Python now), -EEXIST (another stack has the id) or
 * -ENOMEM (the map is full). A global function: the verifier checks it
 * once, on its own (inlined, it tripled the program's load time). */
__noinline int python_stack(__u32 tgid, __u32 tid)
{
	const struct python_walk_params *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	__u32 zero = 0;
	if (!pp) {
		if (!bpf_map_lookup_elem(&py_seen, &tgid)) {
			__u8 seen = 1;
			bpf_map_update_elem(&py_seen, &tgid, &seen, BPF_NOEXIST);
		}
		return 0;
	}
	struct python_scratch *s = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!s)
		return 0;
	__u64 interp = py_read_ptr(pp->runtime + pp->off.runtime_interpreters_head);
	if (!interp)
		return 0;
	struct py_thread_walk tw = { pp, py_read_ptr(interp + pp->off.interp_threads_head), tid, 0 };
	bpf_loop(PYTHON_MAX_THREADS, py_thread_step, &tw, 0);
	if (!tw.found)
		return 0;
	__u64 frame = py_read_ptr(tw.found + pp->off.tstate_frame);
	if (frame && pp->off.cframe_current_frame != PYTHON_NO_OFFSET)
		frame = py_read_ptr(frame + pp->off.cframe_current_frame);
	s->stack.nr = 0;
	struct py_frame_walk fw = { pp, s, frame };
	bpf_loop(PYTHON_MAX_FRAMES * 2, py_frame_step, &fw, 0);
	if (!s->stack.nr)
		return 0;
	fw.frame = s->stack.nr;
	bpf_loop(PYTHON_MAX_FRAMES, py_hash_step, &fw, 0);
	__u32 id = (__u32)(fw.frame ^ (fw.frame >> 32)) & 0x7fffffffu;
	if (!id)
		id = 1; /* 0 says "none" */
	const struct python_bpf_stack *have = bpf_map_lookup_elem(&py_stacks, &id);
	if (!have) {
		if (!bpf_map_update_elem(&py_stacks, &id, &s->stack, BPF_NOEXIST))
			return (__s32)id;
		have = bpf_map_lookup_elem(&py_stacks, &id);
		if (!have)
			return -ENOMEM;
	}
	/* The same id: the same frames, or another stack (a collision). */
	if (have->nr != s->stack.nr)
		return -EEXIST;
	struct py_frame_walk cw = { pp, s, (__u64)have };
	bpf_loop(PYTHON_MAX_FRAMES, py_cmp_step, &cw, 0);
	return cw.pp ? (__s32)id : -EEXIST;
}

#endif
