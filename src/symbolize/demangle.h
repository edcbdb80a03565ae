/* Symbol demangling as perf 6.1 prints names: libiberty's cplus_demangle
 * without options (no parameter lists), C++ and Rust; see demangle.c. */
#ifndef SCORCH_SYMBOLIZE_DEMANGLE_H
#define SCORCH_SYMBOLIZE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Demangle name[0..n). Returns a malloc'd string, or NULL when the name is
 * not mangled (or no demangler is available). */
char *demangle(const char *name, size_t n);

/* A demangled name, in the inline buffer when it fits. */
struct demangled {
	char *s; /* NUL-terminated */
	size_t len, cap;
	char inline_buf[256];
};

/* Demangle the NUL-terminated name into d (true), or leave d empty
 * (false). Either way demangled_release(d) afterwards. */
bool demangle_into(const char *name, struct demangled *d);
void demangled_release(struct demangled *d);

#endif
