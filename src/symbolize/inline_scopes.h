/* The scopes around an address in a compilation unit, as libdw's
 * dwarf_getscopes and dwarf_getscopes_die find them, from an index of the
 * unit built the first time one of its addresses is asked. Both libdw
 * calls walk the unit's DIE tree from its root for every address (the
 * second one up to the DIE: every function before it in the unit); the
 * inline engine (inline_dw.c) asked them for each distinct address, which
 * was 85% of `report`'s and `record`'s time on DWARF-unwound stacks. The
 * answers are libdw's: units the index cannot follow exactly (imported
 * units, ranges libdw cannot read, an inline whose abstract origin is in
 * another unit) are asked to libdw itself. Built only with elfutils. */
#ifndef SCORCH_SYMBOLIZE_INLINE_SCOPES_H
#define SCORCH_SYMBOLIZE_INLINE_SCOPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

struct scope_cache;

/* One file's units (those of one Dwarf). use_index false: every answer
 * from libdw's walks (the reference the index is tested against). */
struct scope_cache *scope_cache_new(bool use_index);
void scope_cache_free(struct scope_cache *c);

/* dwarf_getscopes(cu, addr) then dwarf_getscopes_die of the innermost
 * scope it finds: the concrete nesting of that scope, innermost first, the
 * unit's DIE last. Returns the count with *scopes malloc'd, 0 when
 * dwarf_getscopes finds nothing (or returns 0), -1 on its errors. */
int scope_nesting(struct scope_cache *c, Dwarf_Die *cu, uint64_t addr, Dwarf_Die **scopes);

/* The unit DIE's own children of tag DW_TAG_subprogram whose address
 * ranges hold addr (dwarf_haspc), in DIE order. Returns the count with
 * *subs malloc'd (NULL when 0). */
int scope_unit_subprograms(struct scope_cache *c, Dwarf_Die *cu, uint64_t addr, Dwarf_Die **subs);

#endif
