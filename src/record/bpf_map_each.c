/* Reading a BPF hash map in batches (record-private, libbpf only): the
 * one loop every reader of the programs' maps shares (bpf_stacks.c's
 * stacks and counts, bpf_python.c's processes seen). Built only with
 * libbpf (HAVE_LIBBPF). */
#include "record/bpf_map_each.h"

#include "base/alloc.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>

int bpf_map_each(int fd, bool take, void (*fn)(void *arg, const void *key, const void *value), void *arg)
{
	struct bpf_map_info info = { 0 };
	uint32_t info_len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) || !info.key_size || !info.value_size)
		return -1;
	/* The kernel refuses (ENOSPC) a batch smaller than one hash bucket's
	 * entries: it grows then. */
	uint32_t room = 1024, token = 0;
	char *keys = xcalloc(room, info.key_size);
	char *values = xcalloc(room, info.value_size);
	bool started = false;
	int ret = 0;
	for (;;) {
		uint32_t n = room;
		const void *in = started ? &token : NULL;
		int e = take ? bpf_map_lookup_and_delete_batch(fd, (void *)in, &token, keys, values, &n, NULL)
			     : bpf_map_lookup_batch(fd, (void *)in, &token, keys, values, &n, NULL);
		bool end = e && errno == ENOENT; /* the last batch comes with ENOENT */
		if (e && errno == ENOSPC && room < (1u << 20)) {
			room *= 4;
			keys = xreallocarray(keys, room, info.key_size);
			values = xreallocarray(values, room, info.value_size);
			started = true; /* (the token says where it stopped) */
			continue;
		}
		started = true;
		for (uint32_t i = 0; i < n && (!e || end); i++)
			fn(arg, keys + (size_t)i * info.key_size, values + (size_t)i * info.value_size);
		if (e) {
			ret = end ? 0 : -1;
			break;
		}
	}
	free(keys);
	free(values);
	return ret;
}
