/* What the BPF program (src/record/profile.bpf.c) and user space share
 * to walk a CPython thread's frames at the sample instant: the offsets
 * of one interpreter (struct python_offsets, python_layouts.c fills them)
 * and the packed frame the walk emits. Fixed-width kernel types, so both
 * compilers agree on the layout. */
#ifndef SCORCH_RUNTIME_PYTHON_ABI_H
#define SCORCH_RUNTIME_PYTHON_ABI_H

#include <linux/types.h>

#define PYTHON_NO_OFFSET 0xffffffffu
#define PYTHON_MAX_FRAMES 1024 /* Python frames kept per sample, leaf end */
#define PYTHON_MAX_THREADS 256 /* thread states looked at to find the sampled one */

/* Offsets into the interpreter's structures, in bytes. */
struct python_offsets {
	__u32 version;                   /* PY_VERSION_HEX */
	__u32 runtime_interpreters_head; /* _PyRuntimeState.interpreters.head */
	__u32 interp_threads_head;       /* PyInterpreterState.threads.head */
	__u32 tstate_next;               /* PyThreadState.next */
	__u32 tstate_native_thread_id;   /* PyThreadState.native_thread_id (the kernel tid) */
	__u32 tstate_frame;              /* .cframe (3.11, 3.12) or .current_frame (3.13) */
	__u32 cframe_current_frame;      /* _PyCFrame.current_frame, or PYTHON_NO_OFFSET */
	__u32 frame_previous;            /* _PyInterpreterFrame.previous */
	__u32 frame_code;                /* .f_code (3.11, 3.12) or .f_executable (3.13) */
	__u32 frame_instr;               /* .prev_instr (3.11, 3.12) or .instr_ptr (3.13) */
	__u32 frame_is_entry;            /* .is_entry (3.11), or PYTHON_NO_OFFSET */
	__u32 frame_owner;               /* .owner */
	__u32 owner_cstack;              /* owner of a C entry's shim frame (3.12+), or 256: none */
	__u32 code_filename, code_name, code_qualname, code_linetable, code_firstlineno;
	__u32 code_adaptive;             /* co_code_adaptive: the bytecode, inline */
	__u32 unicode_length, unicode_state, unicode_ascii_size, unicode_compact_size;
	__u32 bytes_size, bytes_data;
	__u32 instr_is_current;          /* 1: frame_instr is the instruction running (3.13) */
	/* 3.8-3.10: frame objects, and threads known by their pthread_t. */
	__u32 frame_kind;                /* PYTHON_FRAMES_INTERP or PYTHON_FRAMES_OBJECTS */
	__u32 lasti_shift;               /* FRAMES_OBJECTS: frame_instr is the int f_lasti, a code unit
					    index << lasti_shift (1: a byte offset, 3.8 and 3.9; 0: 3.10) */
	__u32 tstate_thread_id;          /* PyThreadState.thread_id (pthread_self()), used when
					    tstate_native_thread_id is PYTHON_NO_OFFSET */
	__u32 pthread_tid;               /* the kernel tid's offset in libc's struct pthread (glibc says,
					    _thread_db_pthread_tid), when tstate_thread_id is used */
	__u32 line_table;                /* PYTHON_LINES_*: what code_linetable holds */
};

/* frame_kind: 3.11+ walk _PyInterpreterFrames (several per run of the
 * evaluator, runs ended by is_entry or a shim frame); 3.8-3.10 walk
 * PyFrameObjects (f_back), each run by an evaluator activation of its
 * own (every frame is an entry), its instruction from the int f_lasti
 * (-1 before its first instruction). Those versions have no
 * co_qualname (code_qualname PYTHON_NO_OFFSET: co_name is the name) and
 * code_adaptive is then the size of the code object's head to read. */
#define PYTHON_FRAMES_INTERP 0
#define PYTHON_FRAMES_OBJECTS 1
/* line_table: 3.11+'s location table, 3.10's co_linetable (byte pairs:
 * bytecode bytes, line delta; -128 no line), 3.8-3.9's co_lnotab (byte
 * pairs: bytecode bytes, line delta). */
#define PYTHON_LINES_LOCATIONS 0
#define PYTHON_LINES_310 1
#define PYTHON_LINES_LNOTAB 2

/* What the BPF program needs to walk one process's frames (a map from
 * the process's pid to this). */
struct python_walk_params {
	__u64 runtime;            /* address of _PyRuntime */
	struct python_offsets off;
	__u32 head_len;           /* bytes of a frame's head that hold the fields read (<= 120) */
};

/* One Python frame as the walk emits it, leaf first: the code object's
 * address, the entry bit (the outermost frame of one run of the
 * evaluator: 3.11's is_entry, or the frame under a 3.12+ shim) and the
 * code unit index of the instruction (PYTHON_INSTR_UNKNOWN when it does
 * not fit). User-space addresses fit in 47 bits on x86-64. */
#define PYTHON_FRAME_CODE(f) ((f) & ((1ull << 47) - 1))
#define PYTHON_FRAME_ENTRY(f) (((f) >> 47) & 1)
#define PYTHON_FRAME_INSTR(f) ((__u32)((f) >> 48))
#define PYTHON_INSTR_UNKNOWN 0xffffu
#define PYTHON_FRAME(code, entry, instr) \
	(((__u64)(code) & ((1ull << 47) - 1)) | (__u64)((entry) ? 1 : 0) << 47 | (__u64)(instr) << 48)

#endif
