/* Fuzz target: the spool's reader (store/spool.c), which sends whatever
 * entries an earlier run (or a crash, or anyone who can write to the
 * directory) left in it. The input is written as an entry file and read
 * back with spool_oldest; then its halves are spooled with spool_add and
 * must come back byte for byte. Runs in a private directory. */
#include "store/spool.h"
#include "private_dir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *spool_dir(void)
{
	return private_dir("spool");
}

/* Empty the spool, whatever it holds. */
static void drain(struct spool *s)
{
	struct spool_entry e;
	int r;
	while ((r = spool_oldest(s, &e)) != 0)
		if (r > 0) {
			spool_done(s, &e);
			spool_entry_release(&e);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = spool_dir();
	struct spool s;
	if (spool_open(&s, dir, 1 << 20))
		abort();
	drain(&s);
	char path[128];
	snprintf(path, sizeof(path), "%s/0000000000000001-00000000-000000.spool", dir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	spool_close(&s);

	if (spool_open(&s, dir, 1 << 20))
		abort();
	drain(&s);
	const char *parts[SPOOL_PARTS] = { (const char *)data, (const char *)data + size / 2 };
	const size_t lens[SPOOL_PARTS] = { size / 2, size - size / 2 };
	if (spool_add(&s, parts, lens))
		abort();
	struct spool_entry e;
	if (spool_oldest(&s, &e) != 1)
		__builtin_trap(); /* what it wrote, it cannot read */
	for (int i = 0; i < SPOOL_PARTS; i++)
		if (e.len[i] != lens[i] || memcmp(e.data[i], parts[i], lens[i]))
			__builtin_trap();
	spool_done(&s, &e);
	spool_entry_release(&e);
	spool_close(&s);
	return 0;
}
