/* Fuzz target: the kernel-symbol and JIT-map text parsers report reads
 * (kallsyms with its module symbols, /tmp/perf-PID.map). They read a path,
 * so the input is written to a memory file first; every table is then
 * looked up around the addresses it holds. The input is also compared,
 * as a kallsyms copy, with itself and with its second half. */
#include "symbolize/kallsyms.h"
#include "symbolize/perfmap.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(struct symtab *t)
{
	uint64_t lo, hi;
	if (!symtab_bounds(t, &lo, &hi))
		return;
	uint64_t step = (hi - lo) / 16 + 1;
	for (uint64_t a = lo; a <= hi && a >= lo; a += step) {
		struct symbol *s = symtab_find(t, a);
		if (s)
			symtab_name(t, s);
		if (a > UINT64_MAX - step)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct symtab t;
	symtab_init(&t);
	uint64_t text = 0;
	if (kallsyms_load(&t, path, &text) >= 0)
		probe(&t);
	symtab_release(&t);
	struct kmodules m = { 0 };
	if (kmodules_load(&m, path) >= 0) {
		const char *module;
		for (size_t i = 0; i < m.nr; i++)
			kmodules_lookup(&m, m.v[i].lo, &module);
	}
	kmodules_release(&m);
	symtab_init(&t);
	if (perfmap_parse(&t, (const char *)data, size))
		probe(&t);
	symtab_release(&t);
	int half = memfd_create("fuzz-half", 0);
	if (half >= 0 && write(half, data + size / 2, size - size / 2) == (ssize_t)(size - size / 2)) {
		char half_path[64];
		snprintf(half_path, sizeof(half_path), "/proc/self/fd/%d", half);
		(void)kallsyms_same_layout(path, path);
		(void)kallsyms_same_layout(path, half_path);
		(void)kallsyms_same_layout(half_path, path);
	}
	if (half >= 0)
		close(half);
	close(fd);
	return 0;
}
