/* The offsets of CPython's structures per version (python_layouts.c). */
#ifndef SCORCH_RUNTIME_PYTHON_LAYOUTS_H
#define SCORCH_RUNTIME_PYTHON_LAYOUTS_H

#include "runtime/python_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The layout of version (PY_VERSION_HEX) from the tables derived from
 * CPython's headers; false when the version is not known. */
bool python_layout_of(uint32_t version, struct python_offsets *out);

/* The layout from a 3.13 _Py_DebugOffsets block (the first bytes of
 * _PyRuntime, n of them: untrusted). False when it is not one, or not a
 * version whose block this reads (only 3.13's group order is known; a
 * free-threaded build is refused). */
bool python_layout_from_debug(const uint8_t *block, size_t n, struct python_offsets *out);
/* Bytes of _PyRuntime python_layout_from_debug reads. */
#define PYTHON_DEBUG_OFFSETS_SIZE (71 * 8)

#endif
