/* Fuzz target: what a directory store's reader takes from files others
 * may have written: a day's stack table (store/dir_table.h) and an
 * interval file's counts by its numbers (store/dir_counts.h), named into
 * a profile. The input: the table's length and where its first frame
 * ends (two 16-bit little-endian numbers, each cut to what there is),
 * the table's records (compressed here into two zstd frames, so the
 * records are what varies; the second against the first, as the
 * writer compresses each against the history), then the interval file's decompressed
 * bytes. */
#include "store/dir_counts.h"
#include "store/dir_table.h"

#include "profile/profile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* src as one zstd frame appended to out (at *n), compressed against
 * prefix (the records before it), as the writer does. */
static void frame(char **out, size_t *n, const uint8_t *src, size_t len, const uint8_t *prefix, size_t plen)
{
#ifdef HAVE_ZSTD
	size_t cap = ZSTD_compressBound(len);
	*out = realloc(*out, *n + cap);
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_refPrefix(z, prefix, plen);
	size_t got = ZSTD_compress2(z, *out + *n, cap, src, len);
	ZSTD_freeCCtx(z);
	if (!ZSTD_isError(got))
		*n += got;
#else /* the reader refuses the table: nothing else to run */
	(void)out;
	(void)n;
	(void)src;
	(void)len;
	(void)prefix;
	(void)plen;
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t rest = size - 4, cut = (size_t)(data[0] | data[1] << 8), split = (size_t)(data[2] | data[3] << 8);
	cut = cut < rest ? cut : rest;
	split = split < cut ? split : cut;
	const uint8_t *table = data + 4, *counts = table + cut;
	char *file = NULL;
	size_t n = 0;
	frame(&file, &n, table, split, NULL, 0);
	frame(&file, &n, table + split, cut - split, table, split);
	struct dir_table t;
	dir_table_init(&t, false);
	if (!dir_table_read(&t, "fuzz", file ? file : "", n)) {
		struct profile p;
		profile_init(&p);
		dir_counts_add(&p, &t, "fuzz", (const char *)counts, rest - cut);
		profile_release(&p);
	}
	dir_table_release(&t);
	/* the writer's side reads the same bytes */
	dir_table_init(&t, true);
	dir_table_read(&t, "fuzz", file ? file : "", n);
	dir_table_release(&t);
	free(file);
	return 0;
}
