/* Fuzz target: the two small config parsers of scorch flamegraph, the
 * --nameattr file and --cp's palette.map (both read from a path, so the
 * input is written to a memory file first). */
#include "render/nameattr.h"
#include "render/palette.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	struct nameattr na;
	if (nameattr_load(&na, path) == 0)
		nameattr_find(&na, "main", 4);
	nameattr_release(&na);
	struct palette_map *m = palette_map_new();
	size_t ignored = 0;
	palette_map_load(m, path, &ignored);
	struct rgb c;
	palette_map_get(m, "main", 4, &c);
	palette_map_free(m);
	close(fd);
	return 0;
}
