/* Naming a HotSpot Method* read from an interpreted frame, with the
 * layout the JVM's vmStructs gave (hotspot_structs.h): Method ->
 * ConstMethod -> ConstantPool -> the name and signature Symbols (pool
 * slots whose tags say Utf8) and the holder class's name, as HotSpot's
 * perf map names compiled methods ("void Phases$Alpha.run()",
 * "java.lang.String java.lang.String.valueOf(char[], int, int)").
 *
 * A Method* from a stack is a guess until proven: it is named only when
 * every pointer reads, every index is inside its pool, both Symbols are
 * tagged Utf8, the signature parses, and the holder class lists that very
 * Method* among its methods. Anything else is refused (no name, never a
 * wrong one). */
#ifndef SCORCH_RUNTIME_HOTSPOT_METHOD_H
#define SCORCH_RUNTIME_HOTSPOT_METHOD_H

#include "runtime/hotspot_structs.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	HOTSPOT_MAX_SYMBOL = 1024,     /* longest class, method or signature Symbol read */
	HOTSPOT_NAME_CAP = 4096,       /* a method's name as formatted, NUL included */
	HOTSPOT_MAX_METHODS = 8192,    /* methods of one class looked through */
	/* x86-64: an interpreted frame keeps its Method* 3 words below its
	 * saved rbp (frame::interpreter_frame_method_offset, frame_x86.hpp) */
	HOTSPOT_FRAME_METHOD_OFFSET = 24,
};

/* A pointer to metadata as HotSpot allocates it: non-null, 8-byte
 * aligned, in user space. */
static inline bool hotspot_plausible(uint64_t p)
{
	return p && !(p & 7) && p < (1ull << 47);
}

/* The template interpreter's code: [*lo, *hi). False while the JVM has
 * not made it yet (or the queue is implausible). */
bool hotspot_interpreter_range(hotspot_read_fn read, void *arg, const struct hotspot_layout *l, uint64_t *lo,
			       uint64_t *hi);

/* The ConstMethod* of method (what a cached name is checked against: a
 * Method freed and reused holds another); false when unreadable. */
bool hotspot_const_method(hotspot_read_fn read, void *arg, const struct hotspot_layout *l, uint64_t method,
			  uint64_t *const_method);

/* method's name into buf (cap >= HOTSPOT_NAME_CAP); false when method
 * fails any check above. */
bool hotspot_method_name(hotspot_read_fn read, void *arg, const struct hotspot_layout *l, uint64_t method,
			 char *buf, size_t cap);

#endif
