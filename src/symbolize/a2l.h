/* perf 6.1's inline expansion of DWARF-unwound frames: one long-running
 * `addr2line -e FILE -i -f` per DSO, asked "ADDR\n,\n" (the "," yields a
 * "??" / "??:0" sentinel that ends the answer), exactly the way perf's
 * srcline.c drives it when perf is built without libbfd (Debian's). The
 * names binutils reports (linkage names for the outer function, DW_AT_name
 * for inlined scopes) are what perf prints, which a libdw walk would not
 * reproduce, so scorch runs the same tool. */
#ifndef SCORCH_SYMBOLIZE_A2L_H
#define SCORCH_SYMBOLIZE_A2L_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct a2l;

/* Start addr2line on path (with -C -s too when `demangle`, as
 * stackcollapse-perf.pl --inline runs it); NULL when it cannot run. */
struct a2l *a2l_open(const char *path, bool demangle);
void a2l_close(struct a2l *a);
/* The function names of the records for addr, innermost first: calls
 * fn(name, arg) for each; returns how many, 0 when addr2line knows nothing,
 * -1 when the process failed (it is then closed for good). */
int a2l_query(struct a2l *a, uint64_t addr, void (*fn)(const char *name, void *arg), void *arg);

#endif
