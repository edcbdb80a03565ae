/* Fuzz target: what the fleet stores read back that others may have
 * written: a directory store's index lines (store/dir_index.h) and the
 * ClickHouse stacks reply (store/clickhouse_reply.h). The first byte
 * chooses: even, the rest is index text split at newlines; odd, it is a
 * RowBinary reply (bit 1: grouped by host; bit 2: the two replies of the
 * query with time, counts per bucket then frames, split where the second
 * byte says, in 256ths of the rest). */
#include "store/clickhouse_reply.h"
#include "store/dir_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void index_lines(const char *data, size_t size)
{
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = 0;
	for (char *s = copy, *nl; s < copy + size; s = nl + 1) {
		nl = memchr(s, '\n', size - (size_t)(s - copy));
		if (!nl)
			nl = copy + size;
		*nl = 0;
		struct dir_entry e;
		if (!dir_index_parse(s, &e)) {
			size_t len;
			struct store_meta m = { e.host, e.start_ns, e.end_ns, e.event, e.rate_hz, e.unit,
						(const char *const *)e.labels, e.nr_labels };
			free(dir_index_line(&m, e.file, &len));
		}
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (!(data[0] & 1)) {
		index_lines((const char *)data + 1, size - 1);
		return 0;
	}
	struct profile p;
	profile_init(&p);
	if (data[0] & 4 && size >= 2) {
		size_t rest = size - 2, cut = rest * data[1] / 256;
		const char *r = (const char *)data + 2;
		ch_reply_timed("fuzz", r, cut, r + cut, rest - cut, data[0] & 2, &p);
	} else {
		ch_reply_stacks("fuzz", (const char *)data + 1, size - 1, data[0] & 2, &p);
	}
	profile_release(&p);
	return 0;
}
