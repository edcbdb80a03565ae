/* CPython frames from a live process, without flags, restarts or debug
 * packages: find the interpreter a process runs (python_detect), read a
 * thread's frames (python_thread_frames, or take those the BPF program
 * read at the sample), and name them from their code objects
 * (python_frame_name), which are read once per process and cached.
 *
 * Everything read from the process is untrusted: lengths are bounded,
 * loops are limited, and bytes that do not make sense give no name,
 * never a wrong one. Reads use process_vm_readv (the caller needs
 * the same rights as for /proc/PID/mem: ptrace access). */
#ifndef SCORCH_RUNTIME_PYTHON_H
#define SCORCH_RUNTIME_PYTHON_H

#include "base/hashmap.h"
#include "base/strpool.h"
#include "runtime/python_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One interpreter in one process. */
struct python_proc {
	uint32_t pid;
	uint32_t version;          /* PY_VERSION_HEX, 0 when unknown */
	uint64_t runtime;          /* address of _PyRuntime */
	struct python_offsets off; /* valid when supported */
	bool supported;
	const char *why;           /* when not supported: why, for the notice (static text), or NULL */
	char path[256];            /* the file holding _PyRuntime (exe or libpython) */
	/* Code objects met, by address: read once (they are not moved
	 * while alive; an address reused by another code object after the
	 * first is freed keeps the first one's name). */
	struct hashmap code_by_addr; /* address -> index in codes */
	struct python_code {
		uint32_t name;          /* "qualname (file)" in names, or UINT32_MAX: unreadable */
		uint32_t qualname, file; /* in names: the function's name, and co_filename whole */
		int32_t firstlineno;
		uint32_t units;          /* 3.11+: code units of its bytecode (ob_size), 0 unknown */
		uint32_t table, table_len; /* co_linetable bytes in tables */
	} *codes;
	size_t nr_codes, alloc_codes;
	uint8_t *tables;
	size_t nr_tables, alloc_tables;
	struct strpool names;
	void *words;               /* python_first_at_sample's scratch (a set of a sample's words), or NULL */
};

enum python_found {
	PYTHON_NONE = 0,        /* no CPython in the process */
	PYTHON_SUPPORTED = 1,   /* found, and its layout is known */
	PYTHON_UNSUPPORTED = 2, /* found, but the version's layout is not known or its memory
				   could not be read: python_proc.version and path say which */
};

/* Look for an interpreter in process pid (proc_root replaces "/proc",
 * NULL for /proc). Fills *p (python_proc_release it whatever the answer). */
enum python_found python_detect(struct python_proc *p, uint32_t pid, const char *proc_root);
void python_proc_release(struct python_proc *p);

/* The Python frames of thread tid now, leaf first, as packed frames
 * (python_abi.h), at most max, and each frame's address in addrs (when
 * not NULL); 0 when the thread runs no Python (or has no thread state),
 * -1 when the memory cannot be read. */
int python_thread_frames(const struct python_proc *p, uint32_t tid, uint64_t *out, uint64_t *addrs, int max);

/* Of n frames read now (leaf first, at addrs), the first that a sample
 * taken earlier shows running (its user registers, nregs of them, and
 * its stack copy point at it: python_at_sample.c); the frames before it
 * began after the sample. n when none is shown: they all came later, or
 * replaced those of the sample. */
int python_first_at_sample(struct python_proc *p, const uint64_t *frames, const uint64_t *addrs, int n,
			   const uint64_t *regs, size_t nregs, const uint8_t *stack, size_t stack_len);

/* Read the code object of frame (packed) now if it has not been: call
 * while the process lives, before python_frame_name. */
void python_note_frame(struct python_proc *p, uint64_t frame);
/* Its name, "qualname (file)", or NULL when its code object could not
 * be read; *line (if not NULL) its line, or -1. */
const char *python_frame_name(const struct python_proc *p, uint64_t frame, int *line);

/* The code units of frame's bytecode (3.11+; python_note_frame first), 0
 * when unknown. */
uint32_t python_code_units(const struct python_proc *p, uint64_t frame);

/* The parts of its name (python_frame_name must have given one): the
 * function's (qualified) name, its whole co_filename and co_firstlineno. */
void python_frame_source(const struct python_proc *p, uint64_t frame, const char **function, const char **file,
			 int *firstline);

/* Where a frame's file ends up in its name: co_filename's last
 * component, or its last two for a package's __init__.py. */
void python_short_file(const char *path, char *out, size_t cap);

/* Does a native frame of this name run Python frames (an activation of
 * the evaluation loop: _PyEval_EvalFrameDefault and its .cold part)? */
bool python_is_eval_frame(const char *name);

/* Read n bytes at addr in process pid; false unless all were read. */
bool python_read(uint32_t pid, uint64_t addr, void *buf, size_t n);

#endif
