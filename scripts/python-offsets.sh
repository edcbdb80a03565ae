#!/bin/sh
# Print the offsets src/runtime/python_layouts.c uses, computed from a
# CPython's own headers: scripts/python-offsets.sh INCLUDE_DIR...
# (e.g. /usr/include/python3.11 from libpython3.11-dev, or a pyenv build's
# $(pyenv root)/versions/3.12.1/include/python3.12). Needs a C compiler.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/off.c" <<'C'
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stdio.h>
#include <stddef.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_frame.h"
#define P(name, v) printf("  %-28s %zu\n", name, (size_t)(v))
int main(void)
{
	printf("%s\n", PY_VERSION);
	P("runtime.interpreters_head", offsetof(_PyRuntimeState, interpreters.head));
	P("interp.threads_head", offsetof(PyInterpreterState, threads.head));
	P("tstate.next", offsetof(PyThreadState, next));
	P("tstate.native_thread_id", offsetof(PyThreadState, native_thread_id));
#if PY_VERSION_HEX >= 0x030d0000
	P("tstate.current_frame", offsetof(PyThreadState, current_frame));
	P("frame.f_executable", offsetof(_PyInterpreterFrame, f_executable));
	P("frame.instr_ptr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	P("tstate.cframe", offsetof(PyThreadState, cframe));
	P("cframe.current_frame", offsetof(_PyCFrame, current_frame));
	P("frame.f_code", offsetof(_PyInterpreterFrame, f_code));
	P("frame.prev_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
	P("frame.previous", offsetof(_PyInterpreterFrame, previous));
	P("frame.owner", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX < 0x030c0000
	P("frame.is_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
	P("code.firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("code.filename", offsetof(PyCodeObject, co_filename));
	P("code.name", offsetof(PyCodeObject, co_name));
	P("code.qualname", offsetof(PyCodeObject, co_qualname));
	P("code.linetable", offsetof(PyCodeObject, co_linetable));
	P("code.co_code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
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
