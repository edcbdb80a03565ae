/* Symbol demangling as perf 6.1 prints names: libiberty's cplus_demangle
 * without options (no parameter lists), C++ and Rust; see demangle.c. */
#ifndef SCORCH_SYMBOLIZE_DEMANGLE_H
#define SCORCH_SYMBOLIZE_DEMANGLE_H

#include <stddef.h>

/* Demangle name[0..n). Returns a malloc'd string, or NULL when the name is
 * not mangled (or no demangler is available). */
char *demangle(const char *name, size_t n);

#endif
