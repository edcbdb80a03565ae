/* The directory store's stack table (dir_table.h). */
#include "store/dir_table.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"

#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

/* zstd's level for the table's frames: each put's new names and stacks
 * once, so a slower level costs little after the first interval. */
enum { TABLE_ZSTD_LEVEL = 9 };

/* The last DIR_TABLE_WINDOW bytes of the records before the next frame:
 * the history that frame is compressed against (dir_table.h). */
static const char *window(const struct dir_table *t, size_t *len)
{
	*len = t->history.len < DIR_TABLE_WINDOW ? t->history.len : DIR_TABLE_WINDOW;
	return t->history.len ? t->history.data + t->history.len - *len : NULL; /* (no history: no buffer) */
}

static void remember(struct dir_table *t, const char *b, size_t n)
{
	if (t->history.len + n > 2 * DIR_TABLE_WINDOW) { /* (trimmed now and then, not at each frame) */
		size_t keep = t->history.len < DIR_TABLE_WINDOW ? t->history.len : DIR_TABLE_WINDOW;
		memmove(t->history.data, t->history.data + t->history.len - keep, keep);
		t->history.len = keep;
	}
	rb_bytes(&t->history, b, n);
}

void dir_table_init(struct dir_table *t, bool writer)
{
	*t = (struct dir_table){ .writer = writer };
	strpool_init(&t->pool);
	hashmap_init(&t->stack_of);
	if (!writer) {
		VEC_GROW(t->parent, 1, t->stacks_alloc);
		t->name = xrealloc(t->name, t->stacks_alloc * sizeof(*t->name));
		t->parent[0] = t->name[0] = 0;
	}
	t->nr_stacks = 1;
}

void dir_table_forget(struct dir_table *t)
{
	strpool_release(&t->pool);
	strpool_init(&t->pool);
	free(t->number_of_sym);
	t->number_of_sym = NULL;
	t->number_of_sym_alloc = 0;
	hashmap_release(&t->stack_of);
	hashmap_init(&t->stack_of);
}

size_t dir_table_writer_bytes(const struct dir_table *t)
{
	return hashmap_bytes(&t->stack_of) + strpool_bytes(&t->pool) +
	       (size_t)t->number_of_sym_alloc * sizeof(*t->number_of_sym);
}

void dir_table_release(struct dir_table *t)
{
	free(t->name_sym);
	strpool_release(&t->pool);
	free(t->parent);
	free(t->name);
	free(t->number_of_sym);
	hashmap_release(&t->stack_of);
	rb_release(&t->pending);
	rb_release(&t->history);
	*t = (struct dir_table){ 0 };
}

static void add_name(struct dir_table *t, const char *s, size_t n)
{
	uint32_t sym = strpool_intern(&t->pool, s, n);
	if (!t->writer) {
		VEC_GROW(t->name_sym, t->nr_names + 1, t->names_alloc);
		t->name_sym[t->nr_names] = sym;
	}
	if (t->writer && sym >= t->number_of_sym_alloc) {
		uint32_t old = t->number_of_sym_alloc;
		VEC_GROW(t->number_of_sym, sym + 1, t->number_of_sym_alloc);
		memset(t->number_of_sym + old, 0xff, (t->number_of_sym_alloc - old) * sizeof(uint32_t));
	}
	if (t->writer && t->number_of_sym[sym] == UINT32_MAX)
		t->number_of_sym[sym] = t->nr_names;
	t->nr_names++;
}

static void add_stack(struct dir_table *t, uint32_t parent, uint32_t name)
{
	if (t->writer) {
		bool fresh;
		hashmap_upsert(&t->stack_of, (uint64_t)parent << 32 | name, t->nr_stacks, &fresh);
	} else {
		if (t->nr_stacks == t->stacks_alloc) {
			VEC_GROW(t->parent, t->nr_stacks + 1, t->stacks_alloc);
			t->name = xrealloc(t->name, t->stacks_alloc * sizeof(*t->name));
		}
		t->parent[t->nr_stacks] = parent;
		t->name[t->nr_stacks] = name;
	}
	t->nr_stacks++;
}

uint32_t dir_table_name(struct dir_table *t, const char *s, size_t n)
{
	uint32_t sym = strpool_find(&t->pool, s, n);
	if (sym != UINT32_MAX && sym < t->number_of_sym_alloc && t->number_of_sym[sym] != UINT32_MAX)
		return t->number_of_sym[sym];
	add_name(t, s, n);
	rb_leb(&t->pending, 0x01);
	rb_str(&t->pending, s, n);
	return t->nr_names - 1;
}

uint32_t dir_table_stack(struct dir_table *t, uint32_t parent, uint32_t name)
{
	uint32_t id;
	if (hashmap_get(&t->stack_of, (uint64_t)parent << 32 | name, &id))
		return id;
	id = t->nr_stacks;
	add_stack(t, parent, name);
	rb_leb(&t->pending, 0x02);
	rb_leb(&t->pending, id - parent);
	rb_leb(&t->pending, name);
	return id;
}

/* A name read from the file: a line break or NUL would end a folded line
 * early, so those bytes become '?' (as ClickHouse's names do). */
static void add_safe_name(struct dir_table *t, const char *s, size_t n)
{
	if (!memchr(s, '\n', n) && !memchr(s, '\r', n) && !memchr(s, 0, n)) {
		add_name(t, s, n);
		return;
	}
	char *b = xmemdup0(s, n);
	for (size_t i = 0; i < n; i++)
		if (b[i] == '\n' || b[i] == '\r' || !b[i])
			b[i] = '?';
	add_name(t, b, n);
	free(b);
}

/* The records of one decompressed frame. */
static int read_records(struct dir_table *t, const char *path, uint64_t at, const unsigned char *b, size_t n)
{
	struct rb_reader r = { b, b + n, false };
	if (at == 0) {
		if (n < 8 || memcmp(b, DIR_TABLE_MAGIC, 8))
			return error("%s: not a scorch stack table (no %s at its start)", path, DIR_TABLE_MAGIC);
		r.p += 8;
	}
	while (r.p < r.end && !r.bad) {
		uint64_t tag = rb_read_leb(&r);
		if (tag == 0x01) {
			size_t len;
			const char *s = rb_read_str(&r, &len);
			if (r.bad)
				break;
			add_safe_name(t, s, len);
		} else if (tag == 0x02) {
			uint64_t back = rb_read_leb(&r), name = rb_read_leb(&r);
			if (r.bad)
				break;
			if (back == 0 || back > t->nr_stacks || name >= t->nr_names)
				return error("%s: frame at byte %llu: stack %u refers to %s %llu, which is not "
					     "there", path, (unsigned long long)at, t->nr_stacks,
					     back == 0 || back > t->nr_stacks ? "parent" : "name",
					     (unsigned long long)(back == 0 || back > t->nr_stacks ? back : name));
			if (t->nr_stacks == UINT32_MAX || t->nr_names == UINT32_MAX)
				return error("%s: more than 2^32 stacks", path);
			add_stack(t, t->nr_stacks - (uint32_t)back, (uint32_t)name);
		} else {
			return error("%s: frame at byte %llu: unknown record %llu", path, (unsigned long long)at,
				     (unsigned long long)tag);
		}
	}
	if (r.bad)
		return error("%s: frame at byte %llu: a record is cut short", path, (unsigned long long)at);
	return 0;
}

#ifdef HAVE_ZSTD
/* One frame of the table (size bytes at f) decompressed against the
 * history, into *out (malloc'd). 0 or -1 (error printed). */
static int decompress_frame(struct dir_table *t, const char *path, const char *f, size_t size, char **out,
			    size_t *n)
{
	unsigned long long want = ZSTD_getFrameContentSize(f, size);
	if (want == ZSTD_CONTENTSIZE_ERROR || want == ZSTD_CONTENTSIZE_UNKNOWN || want > DIR_TABLE_FRAME_MAX)
		return error("%s: the frame at byte %llu does not say its size (or more than %u MiB)", path,
			     (unsigned long long)t->file_len, DIR_TABLE_FRAME_MAX >> 20);
	ZSTD_DCtx *z = ZSTD_createDCtx();
	size_t wlen;
	const char *w = window(t, &wlen);
	char *b = xmalloc(want ? want : 1);
	size_t got = z ? ZSTD_DCtx_refPrefix(z, w, wlen) : 0;
	if (z && !ZSTD_isError(got))
		got = ZSTD_decompressDCtx(z, b, want, f, size);
	ZSTD_freeDCtx(z);
	if (!z || ZSTD_isError(got) || got != want) {
		free(b);
		return error("%s: the frame at byte %llu does not decompress: %s", path,
			     (unsigned long long)t->file_len, !z ? "no memory" : ZSTD_isError(got) ? ZSTD_getErrorName(got)
			     : "shorter than it says");
	}
	*out = b;
	*n = got;
	return 0;
}
#endif

int dir_table_read(struct dir_table *t, const char *path, const char *data, size_t len)
{
#ifdef HAVE_ZSTD
	while (t->file_len < len) {
		const char *f = data + t->file_len;
		size_t size = ZSTD_findFrameCompressedSize(f, len - (size_t)t->file_len);
		if (ZSTD_isError(size))
			return 0; /* a last frame cut short (or garbage after the last whole frame) */
		char *b = NULL;
		size_t n = 0;
		if (decompress_frame(t, path, f, size, &b, &n))
			return -1;
		int ret = read_records(t, path, t->file_len, (const unsigned char *)b, n);
		if (!ret)
			remember(t, b, n);
		free(b);
		if (ret)
			return -1;
		t->file_len += size;
	}
	return 0;
#else
	(void)data;
	(void)len;
	return error("%s: scorch was built without libzstd (install libzstd-dev and rebuild)", path);
#endif
}

char *dir_table_take_frame(struct dir_table *t, size_t *len)
{
	if (!t->pending.len)
		return NULL;
#ifdef HAVE_ZSTD
	struct rb_buf raw = { 0 };
	if (t->file_len == 0)
		rb_bytes(&raw, DIR_TABLE_MAGIC, 8);
	rb_bytes(&raw, t->pending.data, t->pending.len);
	t->pending.len = 0;
	size_t cap = ZSTD_compressBound(raw.len), wlen, n = 0;
	const char *w = window(t, &wlen);
	char *out = xmalloc(cap);
	ZSTD_CCtx *z = ZSTD_createCCtx();
	if (!z || ZSTD_isError(n = ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, TABLE_ZSTD_LEVEL)) ||
	    ZSTD_isError(n = ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, DIR_TABLE_WINDOW_LOG)) ||
	    ZSTD_isError(n = ZSTD_CCtx_refPrefix(z, w, wlen)) || ZSTD_isError(n = ZSTD_compress2(z, out, cap, raw.data, raw.len))) {
		error("zstd: %s", z ? ZSTD_getErrorName(n) : "no memory");
		ZSTD_freeCCtx(z);
		free(out);
		rb_release(&raw);
		return NULL;
	}
	ZSTD_freeCCtx(z);
	remember(t, raw.data, raw.len);
	rb_release(&raw);
	t->file_len += n;
	*len = n;
	return out;
#else
	(void)len;
	return NULL;
#endif
}
