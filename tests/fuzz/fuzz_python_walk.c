/* Fuzz target: the walk of a CPython process's memory (runtime/
 * python_frames.c: interpreters, thread states, frames; runtime/
 * python_code.c: code objects, their strings and line tables), every byte
 * of which the profiled process controls, layouts from 3.13's
 * _Py_DebugOffsets block included.
 *
 * The "process" is this one: the input is copied to a fixed address
 * (BASE), so that pointers in it can point into it, and read back through
 * process_vm_readv as record reads another process (a pointer elsewhere
 * reads this process's memory, or fails, as a wild pointer would).
 * Input: byte 0 picks the layout (3.8 ... 3.13 by version, or 3.13 from
 * a debug block at BASE + 0x1000 of the memory), bytes 1-4 the thread id
 * looked for, 5-6 _PyRuntime's offset from BASE, then the memory. */
#include "runtime/python.h"
#include "runtime/python_layouts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0x200000000000ull /* in ASan's high memory, above its shadow */
#define SPAN (1u << 16)
enum { HEADER = 7, DEBUG_AT = 0x1000 };

static uint8_t *memory(void)
{
	static uint8_t *m;
	if (!m) {
		m = mmap((void *)(uintptr_t)BASE, SPAN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != (void *)(uintptr_t)BASE)
			abort();
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t versions[] = { 0x030812f0, 0x030912f0, 0x030a0df0,
					     0x030b02f0, 0x030c01f0, 0x030d00f0 };
	if (size < HEADER)
		return 0;
	uint8_t *m = memory();
	size_t n = size - HEADER < SPAN ? size - HEADER : SPAN;
	memset(m, 0, SPAN);
	memcpy(m, data + HEADER, n);

	struct python_proc p;
	memset(&p, 0, sizeof(p));
	hashmap_init(&p.code_by_addr);
	strpool_init(&p.names);
	p.pid = (uint32_t)getpid();
	unsigned pick = data[0] % 7;
	bool ok = pick < 6 ? python_layout_of(versions[pick], &p.off)
			   : python_layout_from_debug(m + DEBUG_AT, SPAN - DEBUG_AT, &p.off);
	if (ok) {
		p.version = p.off.version;
		p.supported = true;
		uint32_t tid;
		uint16_t at;
		memcpy(&tid, data + 1, 4);
		memcpy(&at, data + 5, 2);
		p.runtime = BASE + at;
		uint64_t frames[PYTHON_MAX_FRAMES], addrs[PYTHON_MAX_FRAMES];
		int got = python_thread_frames(&p, tid, frames, data[0] & 0x80 ? addrs : NULL, PYTHON_MAX_FRAMES);
		if (got > PYTHON_MAX_FRAMES)
			__builtin_trap();
		for (int i = 0; i < got; i++) {
			python_note_frame(&p, frames[i]);
			int line;
			const char *name = python_frame_name(&p, frames[i], &line);
			const char *function, *file;
			int first;
			python_frame_source(&p, frames[i], &function, &file, &first);
			if (name && strlen(name) > 4 * 256 * 2 + 8)
				__builtin_trap(); /* names are bounded (MAX_NAME characters each part) */
		}
	}
	python_proc_release(&p);
	return 0;
}
