/* Fuzz target: demangling (symbolize/demangle.c), which every symbol name
 * of a recorded binary goes through: libiberty's cplus_demangle from
 * libbfd when it is installed, else libstdc++'s __cxa_demangle and the
 * parameter-list cut, for C++ and Rust (legacy and v0) names. A binary's
 * names are anyone's: nested templates, back references and Rust's
 * recursive types must end in a name or none, never a crash. The input is
 * tried as it is, behind "_Z" and behind "_R". */
#include "symbolize/demangle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void try_name(const char *prefix, const uint8_t *data, size_t size)
{
	size_t pl = strlen(prefix);
	char *name = malloc(pl + size + 1);
	memcpy(name, prefix, pl);
	memcpy(name + pl, data, size);
	name[pl + size] = 0;
	free(demangle(name, pl + size));
	struct demangled d;
	if (demangle_into(name, &d) && strlen(d.s) != d.len)
		__builtin_trap(); /* the length it says is not the string's */
	demangled_release(&d);
	free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0; /* room enough for any structure; longer inputs only cost time */
	try_name("", data, size);
	try_name("_Z", data, size);
	try_name("_R", data, size);
	return 0;
}
