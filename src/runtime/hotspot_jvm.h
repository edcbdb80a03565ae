/* A HotSpot JVM's interpreter, found from outside: the libjvm.so it maps
 * (/proc/PID/maps), that file's exported vmStructs variables (its .dynsym,
 * read with libelf), their values in the process's memory, and from them
 * the layout naming needs (hotspot_structs.h) and the template
 * interpreter's code range (hotspot_method.h). Reads use process_vm_readv
 * (the rights /proc/PID/mem needs). */
#ifndef SCORCH_RUNTIME_HOTSPOT_JVM_H
#define SCORCH_RUNTIME_HOTSPOT_JVM_H

#include "runtime/hotspot_structs.h"

#include <stdbool.h>
#include <stdint.h>

struct hotspot_jvm {
	uint32_t pid;
	struct hotspot_layout layout;
	uint64_t interp_lo, interp_hi; /* 0, 0 until the JVM has made its interpreter */
	char path[256];                /* the libjvm.so mapped */
};

enum hotspot_found {
	HOTSPOT_NONE,    /* no libjvm.so mapped (yet: a launcher loads it) */
	HOTSPOT_FOUND,   /* the layout is read */
	HOTSPOT_REFUSED, /* a libjvm.so whose tables cannot be used: why says which */
};

/* Look for the JVM in pid (proc_root: "/proc", or a test's copy). */
enum hotspot_found hotspot_jvm_find(struct hotspot_jvm *j, uint32_t pid, const char *proc_root, const char **why);

/* Try again to read the interpreter's range (once it exists); true when
 * j has one. */
bool hotspot_jvm_interpreter(struct hotspot_jvm *j);

/* The 8-byte words at addrs[0..n) of process pid into out, in as few
 * reads as it takes (one for up to 256 readable words); a word that
 * cannot be read is 0. */
void hotspot_read_words(uint32_t pid, const uint64_t *addrs, uint64_t *out, size_t n);

/* A hotspot_read_fn over another process's memory: arg points to its pid
 * (a uint32_t). */
bool hotspot_read_process(void *arg, uint64_t addr, void *buf, size_t len);

#endif
