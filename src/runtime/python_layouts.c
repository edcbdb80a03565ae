/* CPython's structure offsets, per version, for x86-64 release builds.
 *
 * Every number was computed by compiling offsetof()/sizeof() with
 * Py_BUILD_CORE against a version's own headers (Include/ and
 * Include/internal/): scripts/python-offsets.sh does it for the headers it
 * is given. 3.11: Debian 12's libpython3.11-dev (3.11.2) and pyenv's
 * 3.11.7 give the same values; 3.12: pyenv 3.12.1; 3.13: pyenv 3.13.0,
 * whose _PyRuntime also carries them (_Py_DebugOffsets, read at run time
 * instead where present: python_layout_from_debug). Patch releases keep
 * these layouts (CPython's ABI rule for a minor release's internals is
 * not a promise, but 3.11.2 and 3.11.7 agree).
 *
 * 3.8 to 3.10 (pyenv's 3.8.18, 3.9.18 and 3.10.13, the same script with
 * PyFrameObject's fields: scripts/python-offsets.sh) walk PyFrameObjects
 * from tstate->frame and do not record a thread's kernel tid
 * (native_thread_id is new in 3.11): a thread state is matched by its
 * thread_id, the pthread_t, whose struct pthread holds the tid at the
 * offset the process's libc gives (python_detect reads it). 3.8 and
 * 3.9 agree on every offset used here; 3.10 moved f_lasti (and counts it
 * in code units) and replaced co_lnotab by co_linetable at the same place. */
#include "runtime/python_layouts.h"

#include <string.h>

static const struct python_offsets v3_11 = {
	.version = 0x030b0000,
	.runtime_interpreters_head = 40,
	.interp_threads_head = 16,
	.tstate_next = 8,
	.tstate_native_thread_id = 160,
	.tstate_frame = 56, /* cframe */
	.cframe_current_frame = 8,
	.frame_previous = 48,
	.frame_code = 32,
	.frame_instr = 56, /* prev_instr */
	.frame_is_entry = 68,
	.frame_owner = 69,
	.owner_cstack = 256, /* no shim frames: is_entry marks a run's end */
	.code_filename = 112,
	.code_name = 120,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_firstlineno = 72,
	.code_adaptive = 184,
	.unicode_length = 16,
	.unicode_state = 32,
	.unicode_ascii_size = 48,
	.unicode_compact_size = 72,
	.bytes_size = 16,
	.bytes_data = 32,
	.instr_is_current = 0,
};

static const struct python_offsets v3_12 = {
	.version = 0x030c0000,
	.runtime_interpreters_head = 40,
	.interp_threads_head = 72,
	.tstate_next = 8,
	.tstate_native_thread_id = 144,
	.tstate_frame = 56, /* cframe */
	.cframe_current_frame = 0,
	.frame_previous = 8,
	.frame_code = 0,
	.frame_instr = 56, /* prev_instr */
	.frame_is_entry = PYTHON_NO_OFFSET,
	.frame_owner = 70,
	.owner_cstack = 3, /* FRAME_OWNED_BY_CSTACK */
	.code_filename = 112,
	.code_name = 120,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_firstlineno = 68,
	.code_adaptive = 192,
	.unicode_length = 16,
	.unicode_state = 32,
	.unicode_ascii_size = 40, /* no wstr from 3.12 (PEP 623) */
	.unicode_compact_size = 56,
	.bytes_size = 16,
	.bytes_data = 32,
	.instr_is_current = 0,
};

static const struct python_offsets v3_13 = {
	.version = 0x030d0000,
	.runtime_interpreters_head = 632,
	.interp_threads_head = 7344,
	.tstate_next = 8,
	.tstate_native_thread_id = 160,
	.tstate_frame = 72, /* current_frame: no _PyCFrame any more */
	.cframe_current_frame = PYTHON_NO_OFFSET,
	.frame_previous = 8,
	.frame_code = 0, /* f_executable: a code object, or None in a C entry's frame */
	.frame_instr = 56, /* instr_ptr */
	.frame_is_entry = PYTHON_NO_OFFSET,
	.frame_owner = 70,
	.owner_cstack = 3,
	.code_filename = 112,
	.code_name = 120,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_firstlineno = 68,
	.code_adaptive = 200,
	.unicode_length = 16,
	.unicode_state = 32,
	.unicode_ascii_size = 40,
	.unicode_compact_size = 56,
	.bytes_size = 16,
	.bytes_data = 32,
	.instr_is_current = 1,
};

static const struct python_offsets v3_8 = {
	.version = 0x03080000,
	.runtime_interpreters_head = 32,
	.interp_threads_head = 8, /* tstate_head */
	.tstate_next = 8,
	.tstate_native_thread_id = PYTHON_NO_OFFSET,
	.tstate_frame = 24, /* frame: the PyFrameObject running */
	.cframe_current_frame = PYTHON_NO_OFFSET,
	.frame_previous = 24, /* f_back */
	.frame_code = 32,
	.frame_instr = 104, /* f_lasti, a byte offset */
	.frame_is_entry = PYTHON_NO_OFFSET,
	.frame_owner = PYTHON_NO_OFFSET,
	.owner_cstack = 256,
	.code_filename = 104,
	.code_name = 112,
	.code_qualname = PYTHON_NO_OFFSET,
	.code_linetable = 120, /* co_lnotab */
	.code_firstlineno = 40,
	.code_adaptive = 176, /* sizeof(PyCodeObject): the head read */
	.unicode_length = 16,
	.unicode_state = 32,
	.unicode_ascii_size = 48,
	.unicode_compact_size = 72,
	.bytes_size = 16,
	.bytes_data = 32,
	.frame_kind = PYTHON_FRAMES_OBJECTS,
	.lasti_shift = 1,
	.tstate_thread_id = 176,
	.line_table = PYTHON_LINES_LNOTAB,
};

static const struct python_offsets v3_9 = {
	.version = 0x03090000,
	.runtime_interpreters_head = 32,
	.interp_threads_head = 8,
	.tstate_next = 8,
	.tstate_native_thread_id = PYTHON_NO_OFFSET,
	.tstate_frame = 24,
	.cframe_current_frame = PYTHON_NO_OFFSET,
	.frame_previous = 24,
	.frame_code = 32,
	.frame_instr = 104,
	.frame_is_entry = PYTHON_NO_OFFSET,
	.frame_owner = PYTHON_NO_OFFSET,
	.owner_cstack = 256,
	.code_filename = 104,
	.code_name = 112,
	.code_qualname = PYTHON_NO_OFFSET,
	.code_linetable = 120,
	.code_firstlineno = 40,
	.code_adaptive = 176,
	.unicode_length = 16,
	.unicode_state = 32,
	.unicode_ascii_size = 48,
	.unicode_compact_size = 72,
	.bytes_size = 16,
	.bytes_data = 32,
	.frame_kind = PYTHON_FRAMES_OBJECTS,
	.lasti_shift = 1,
	.tstate_thread_id = 176,
	.line_table = PYTHON_LINES_LNOTAB,
};

static const struct python_offsets v3_10 = {
	.version = 0x030a0000,
	.runtime_interpreters_head = 32,
	.interp_threads_head = 8,
	.tstate_next = 8,
	.tstate_native_thread_id = PYTHON_NO_OFFSET,
	.tstate_frame = 24,
	.cframe_current_frame = PYTHON_NO_OFFSET,
	.frame_previous = 24,
	.frame_code = 32,
	.frame_instr = 96, /* f_lasti, in code units */
	.frame_is_entry = PYTHON_NO_OFFSET,
	.frame_owner = PYTHON_NO_OFFSET,
	.owner_cstack = 256,
	.code_filename = 104,
	.code_name = 112,
	.code_qualname = PYTHON_NO_OFFSET,
	.code_linetable = 120, /* co_linetable, 3.10's format */
	.code_firstlineno = 40,
	.code_adaptive = 176,
	.unicode_length = 16,
	.unicode_state = 32,
	.unicode_ascii_size = 48,
	.unicode_compact_size = 72,
	.bytes_size = 16,
	.bytes_data = 32,
	.frame_kind = PYTHON_FRAMES_OBJECTS,
	.lasti_shift = 0,
	.tstate_thread_id = 176,
	.line_table = PYTHON_LINES_310,
};

bool python_layout_of(uint32_t version, struct python_offsets *out)
{
	static const struct python_offsets *const known[] = { &v3_8, &v3_9, &v3_10, &v3_11, &v3_12, &v3_13 };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if ((version & 0xffff0000u) == known[i]->version) {
			*out = *known[i];
			out->version = version;
			return true;
		}
	}
	return false;
}

/* Word i of the block (little-endian x86-64, as the block is written). */
static uint64_t word(const uint8_t *block, size_t i)
{
	uint64_t v;
	memcpy(&v, block + i * 8, 8);
	return v;
}

/* 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h), as word
 * indices: cookie 0, version 1, free_threaded 2, runtime_state 3-5,
 * interpreter_state 6-18, thread_state 19-27, interpreter_frame 28-33,
 * code_object 34-43, pyobject 44-45, type_object 46-49, tuple 50-52,
 * list 53-55, dict 56-58, float 59-60, long 61-63, bytes 64-66, unicode_object 67-70 ... */
enum {
	DO_VERSION = 1, DO_FREE_THREADED = 2, DO_INTERPRETERS_HEAD = 5, DO_THREADS_HEAD = 9,
	DO_TSTATE_NEXT = 21, DO_CURRENT_FRAME = 23, DO_NATIVE_THREAD_ID = 25,
	DO_FRAME_PREVIOUS = 29, DO_FRAME_EXECUTABLE = 30, DO_FRAME_INSTR = 31, DO_FRAME_OWNER = 33,
	DO_CODE_FILENAME = 35, DO_CODE_NAME = 36, DO_CODE_QUALNAME = 37, DO_CODE_LINETABLE = 38,
	DO_CODE_FIRSTLINENO = 39, DO_CODE_ADAPTIVE = 43, DO_BYTES_SIZE = 65, DO_BYTES_DATA = 66,
	DO_UNICODE_STATE = 68, DO_UNICODE_LENGTH = 69, DO_UNICODE_ASCII_SIZE = 70, DO_WORDS = 71,
};

bool python_layout_from_debug(const uint8_t *block, size_t n, struct python_offsets *out)
{
	if (n < DO_WORDS * 8 || memcmp(block, "xdebugpy", 8))
		return false;
	uint64_t version = word(block, DO_VERSION);
	if ((version & 0xffff0000u) != 0x030d0000u || word(block, DO_FREE_THREADED) != 0)
		return false;
	struct python_offsets o = v3_13; /* what the block does not carry */
	o.version = (uint32_t)version;
	const struct { uint32_t *field; int at; } from[] = {
		{ &o.runtime_interpreters_head, DO_INTERPRETERS_HEAD },
		{ &o.interp_threads_head, DO_THREADS_HEAD },
		{ &o.tstate_next, DO_TSTATE_NEXT },
		{ &o.tstate_frame, DO_CURRENT_FRAME },
		{ &o.tstate_native_thread_id, DO_NATIVE_THREAD_ID },
		{ &o.frame_previous, DO_FRAME_PREVIOUS },
		{ &o.frame_code, DO_FRAME_EXECUTABLE },
		{ &o.frame_instr, DO_FRAME_INSTR },
		{ &o.frame_owner, DO_FRAME_OWNER },
		{ &o.code_filename, DO_CODE_FILENAME },
		{ &o.code_name, DO_CODE_NAME },
		{ &o.code_qualname, DO_CODE_QUALNAME },
		{ &o.code_linetable, DO_CODE_LINETABLE },
		{ &o.code_firstlineno, DO_CODE_FIRSTLINENO },
		{ &o.code_adaptive, DO_CODE_ADAPTIVE },
		{ &o.bytes_size, DO_BYTES_SIZE },
		{ &o.bytes_data, DO_BYTES_DATA },
		{ &o.unicode_state, DO_UNICODE_STATE },
		{ &o.unicode_length, DO_UNICODE_LENGTH },
		{ &o.unicode_ascii_size, DO_UNICODE_ASCII_SIZE },
	};
	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		uint64_t v = word(block, (size_t)from[i].at);
		if (v > 1u << 20) /* no structure is that big: not a block we understand */
			return false;
		*from[i].field = (uint32_t)v;
	}
	/* PyCompactUnicodeObject adds utf8_length and utf8 (no wstr from 3.12). */
	o.unicode_compact_size = o.unicode_ascii_size + 16;
	*out = o;
	return true;
}
