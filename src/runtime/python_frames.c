/* A thread's Python frames read from the process now (the perf backend,
 * and tests; the BPF program does the same walk at the sample):
 * _PyRuntime -> interpreters -> the thread state whose native_thread_id
 * (3.11+; before, the tid in the struct pthread its thread_id points
 * to) is the thread -> its current frame -> previous (f_back before
 * 3.11) ... Every pointer is the process's: a bad one ends the walk,
 * never the reader. */
#include "runtime/python.h"

#include <string.h>
#include <sys/uio.h>

bool python_read(uint32_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	if (!addr || !n)
		return false;
	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)n;
}

static bool read_ptr(uint32_t pid, uint64_t addr, uint64_t *out)
{
	return python_read(pid, addr, out, sizeof(*out));
}

enum { MAX_INTERPRETERS = 16 };

/* The thread state of tid, or 0 (none found); -1 when unreadable. */
static int find_tstate(const struct python_proc *p, uint32_t tid, uint64_t *out)
{
	const struct python_offsets *o = &p->off;
	uint64_t interp;
	*out = 0;
	if (!read_ptr(p->pid, p->runtime + o->runtime_interpreters_head, &interp))
		return -1;
	for (int i = 0; i < MAX_INTERPRETERS && interp; i++) {
		uint64_t t;
		if (!read_ptr(p->pid, interp + o->interp_threads_head, &t))
			return -1;
		for (int j = 0; j < PYTHON_MAX_THREADS && t; j++) {
			uint64_t native = 0;
			if (o->tstate_native_thread_id != PYTHON_NO_OFFSET) {
				if (!read_ptr(p->pid, t + o->tstate_native_thread_id, &native))
					return -1;
			} else {
				uint64_t pthread;
				uint32_t tid32;
				if (!read_ptr(p->pid, t + o->tstate_thread_id, &pthread))
					return -1;
				/* a thread state not bound to a thread yet has 0: skip it */
				if (pthread && python_read(p->pid, pthread + o->pthread_tid, &tid32, sizeof(tid32)))
					native = tid32;
			}
			if (native == tid) {
				*out = t;
				return 0;
			}
			if (!read_ptr(p->pid, t + o->tstate_next, &t))
				return -1;
		}
		if (!read_ptr(p->pid, interp, &interp)) /* PyInterpreterState.next is its first field */
			return -1;
	}
	return 0;
}

/* The frame fields a walk reads, from one read of the frame's head. */
struct frame_head {
	uint64_t previous, code, instr;
	uint8_t owner, is_entry;
};

/* A PyFrameObject (3.8-3.10): its own run of the evaluator, its
 * instruction from f_lasti. */
static bool read_frame_object(const struct python_proc *p, uint64_t frame, struct frame_head *h)
{
	const struct python_offsets *o = &p->off;
	uint8_t buf[128];
	uint32_t need = o->frame_instr + 4;
	if (o->frame_previous + 8 > need)
		need = o->frame_previous + 8;
	if (o->frame_code + 8 > need)
		need = o->frame_code + 8;
	if (need > sizeof(buf) || !python_read(p->pid, frame, buf, need))
		return false;
	int32_t lasti;
	memcpy(&h->previous, buf + o->frame_previous, 8);
	memcpy(&h->code, buf + o->frame_code, 8);
	memcpy(&lasti, buf + o->frame_instr, 4);
	h->instr = lasti < 0 ? 0 : (uint64_t)lasti >> o->lasti_shift;
	h->owner = 0;
	h->is_entry = 1;
	return true;
}

static bool read_frame(const struct python_proc *p, uint64_t frame, struct frame_head *h)
{
	const struct python_offsets *o = &p->off;
	if (o->frame_kind == PYTHON_FRAMES_OBJECTS)
		return read_frame_object(p, frame, h);
	uint8_t buf[128];
	uint32_t need = o->frame_owner + 1;
	if (o->frame_is_entry != PYTHON_NO_OFFSET && o->frame_is_entry + 1 > need)
		need = o->frame_is_entry + 1;
	uint32_t words[] = { o->frame_previous, o->frame_code, o->frame_instr };
	for (size_t i = 0; i < 3; i++)
		if (words[i] + 8 > need)
			need = words[i] + 8;
	if (need > sizeof(buf) || !python_read(p->pid, frame, buf, need))
		return false;
	memcpy(&h->previous, buf + o->frame_previous, 8);
	memcpy(&h->code, buf + o->frame_code, 8);
	memcpy(&h->instr, buf + o->frame_instr, 8);
	h->owner = buf[o->frame_owner];
	h->is_entry = o->frame_is_entry != PYTHON_NO_OFFSET ? buf[o->frame_is_entry] : 0;
	return true;
}

/* The code unit index of instr in code's bytecode (inline in the code
 * object), or PYTHON_INSTR_UNKNOWN. */
static uint32_t instr_index(const struct python_offsets *o, uint64_t code, uint64_t instr)
{
	uint64_t base = code + o->code_adaptive;
	if (instr < base) /* a frame that has not run an instruction yet */
		return 0;
	uint64_t idx = (instr - base) / 2;
	return idx < PYTHON_INSTR_UNKNOWN ? (uint32_t)idx : PYTHON_INSTR_UNKNOWN;
}

int python_thread_frames(const struct python_proc *p, uint32_t tid, uint64_t *out, uint64_t *addrs, int max)
{
	const struct python_offsets *o = &p->off;
	uint64_t t, frame;
	if (!p->supported)
		return -1;
	int rc = find_tstate(p, tid, &t);
	if (rc < 0 || !t)
		return rc;
	if (!read_ptr(p->pid, t + o->tstate_frame, &frame))
		return -1;
	if (o->cframe_current_frame != PYTHON_NO_OFFSET && frame &&
	    !read_ptr(p->pid, frame + o->cframe_current_frame, &frame))
		return -1;
	int n = 0;
	for (int steps = 0; frame && n < max && steps < 4 * PYTHON_MAX_FRAMES; steps++) {
		struct frame_head h;
		if (!read_frame(p, frame, &h))
			return n ? n : -1;
		if (h.owner == o->owner_cstack) { /* a C entry's shim: the run below it ends here */
			if (n)
				out[n - 1] |= PYTHON_FRAME(0, 1, 0);
		} else if (h.code && PYTHON_FRAME_CODE(h.code) == h.code) {
			uint32_t idx = o->frame_kind == PYTHON_FRAMES_OBJECTS
					       ? (h.instr < PYTHON_INSTR_UNKNOWN ? (uint32_t)h.instr : PYTHON_INSTR_UNKNOWN)
					       : instr_index(o, h.code, h.instr);
			if (addrs)
				addrs[n] = frame;
			out[n++] = PYTHON_FRAME(h.code, h.is_entry, idx);
		}
		frame = h.previous;
	}
	return n;
}
