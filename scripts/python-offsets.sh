#!/bin/sh
# Print the offsets src/runtime/python_layouts.c uses, computed from a
# CPython's own headers: scripts/python-offsets.sh INCLUDE_DIR...
# (e.g. /usr/include/python3.11 from libpython3.11-dev, or a pyenv build's
# $(pyenv root)/versions/3.12.1/include/python3.12; 3.8 and later). Needs a C
# compiler.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/off.c" <<'C'
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stdio.h>
#include <stddef.h>
#if PY_VERSION_HEX >= 0x03090000
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#else
#include "internal/pycore_pystate.h"
#endif
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include <frameobject.h>
#endif
#define P(name, v) printf("  %-28s %zu\n", name, (size_t)(v))
int main(void)
{
	printf("%s\n", PY_VERSION);
	P("runtime.interpreters_head", offsetof(_PyRuntimeState, interpreters.head));
	P("tstate.next", offsetof(PyThreadState, next));
#if PY_VERSION_HEX >= 0x030b0000
	P("interp.threads_head", offsetof(PyInterpreterState, threads.head));
	P("tstate.native_thread_id", offsetof(PyThreadState, native_thread_id));
#else
	P("interp.tstate_head", offsetof(PyInterpreterState, tstate_head));
	P("tstate.thread_id", offsetof(PyThreadState, thread_id));
	P("tstate.frame", offsetof(PyThreadState, frame));
	P("frame.f_back", offsetof(PyFrameObject, f_back));
	P("frame.f_code", offsetof(PyFrameObject, f_code));
	P("frame.f_lasti", offsetof(PyFrameObject, f_lasti));
	P("sizeof(PyCodeObject)", sizeof(PyCodeObject));
#endif
#if PY_VERSION_HEX >= 0x030d0000
	P("tstate.current_frame", offsetof(PyThreadState, current_frame));
	P("frame.f_executable", offsetof(_PyInterpreterFrame, f_executable));
	P("frame.instr_ptr", offsetof(_PyInterpreterFrame, instr_ptr));
#elif PY_VERSION_HEX >= 0x030b0000
	P("tstate.cframe", offsetof(PyThreadState, cframe));
	P("cframe.current_frame", offsetof(_PyCFrame, current_frame));
	P("frame.f_code", offsetof(_PyInterpreterFrame, f_code));
	P("frame.prev_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
#if PY_VERSION_HEX >= 0x030b0000
	P("frame.previous", offsetof(_PyInterpreterFrame, previous));
	P("frame.owner", offsetof(_PyInterpreterFrame, owner));
#endif
#if PY_VERSION_HEX >= 0x030b0000 && PY_VERSION_HEX < 0x030c0000
	P("frame.is_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
	P("code.firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("code.filename", offsetof(PyCodeObject, co_filename));
	P("code.name", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030b0000
	P("code.qualname", offsetof(PyCodeObject, co_qualname));
	P("code.co_code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#endif
#if PY_VERSION_HEX >= 0x030a0000
	P("code.linetable", offsetof(PyCodeObject, co_linetable));
#else
	P("code.lnotab", offsetof(PyCodeObject, co_lnotab));
#endif
	P("str.length", offsetof(PyASCIIObject, length));
	P("str.state", offsetof(PyASCIIObject, state));
	P("sizeof(PyASCIIObject)", sizeof(PyASCIIObject));
	P("sizeof(PyCompactUnicodeObject)", sizeof(PyCompactUnicodeObject));
	P("bytes.ob_size", offsetof(PyVarObject, ob_size));
	P("bytes.ob_sval", offsetof(PyBytesObject, ob_sval));
	return 0;
}
C
for inc in "$@"; do
	${CC:-cc} -w -I"$inc" -I"$inc/internal" "$tmp/off.c" -o "$tmp/off"
	"$tmp/off"
done
