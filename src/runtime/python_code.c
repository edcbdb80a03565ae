/* Code objects -> names and lines, read once per code object per
 * process (python.h). A code object is read whole up to its bytecode;
 * its strings and line table are bounded (MAX_NAME, MAX_TABLE). */
#include "runtime/python.h"
#include "runtime/python_decode.h"

#include "base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	MAX_NAME = 256,       /* characters of a qualname or file name kept */
	MAX_TABLE = 1 << 16,  /* bytes of a line table read */
	MAX_CODE_HEAD = 512,  /* a code object's fields before its bytecode */
};

/* The str at addr, as UTF-8 into out (cap bytes); false when unreadable. */
static bool read_str(const struct python_proc *p, uint64_t addr, char *out, size_t cap)
{
	const struct python_offsets *o = &p->off;
	uint8_t head[128];
	struct python_str s;
	if (o->unicode_compact_size > sizeof(head) || !python_read(p->pid, addr, head, o->unicode_compact_size) ||
	    !python_str_parse(head, o->unicode_compact_size, o, &s))
		return false;
	size_t chars = s.length < MAX_NAME ? s.length : MAX_NAME;
	uint8_t raw[MAX_NAME * 4];
	if (chars && !python_read(p->pid, addr + s.data, raw, chars * s.kind))
		return false;
	s.length = chars;
	python_str_utf8(&s, raw, chars * s.kind, out, cap);
	return true;
}

void python_short_file(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/');
	if (base && !strcmp(base, "/__init__.py")) {
		const char *pkg = base;
		while (pkg > path && pkg[-1] != '/')
			pkg--;
		base = pkg;
	} else {
		base = base ? base + 1 : path;
	}
	snprintf(out, cap, "%s", base);
}

bool python_is_eval_frame(const char *name)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";
	size_t n = sizeof(eval) - 1;
	return !strncmp(name, eval, n) && (!name[n] || !strcmp(name + n, ".cold"));
}

/* Read the code object at addr into a new entry of p->codes. */
static struct python_code read_code(struct python_proc *p, uint64_t addr)
{
	const struct python_offsets *o = &p->off;
	struct python_code c = { .name = UINT32_MAX, .firstlineno = -1 };
	uint8_t head[MAX_CODE_HEAD];
	/* no co_qualname before 3.11: co_name */
	uint32_t qual_off = o->code_qualname != PYTHON_NO_OFFSET ? o->code_qualname : o->code_name;
	/* The fields must lie in what is read: a 3.13 process's debug offsets
	 * (python_layout_from_debug) are its own to say. */
	uint64_t need = o->code_adaptive;
	const uint64_t ends[] = { (uint64_t)o->code_filename + 8, (uint64_t)qual_off + 8,
				  (uint64_t)o->code_linetable + 8, (uint64_t)o->code_firstlineno + 4 };
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (ends[i] > need)
			need = ends[i];
	if (need > sizeof(head) || !python_read(p->pid, addr, head, (size_t)need))
		return c;
	uint64_t file_at, qual_at, table_at;
	int32_t first;
	memcpy(&file_at, head + o->code_filename, 8);
	memcpy(&qual_at, head + qual_off, 8);
	memcpy(&table_at, head + o->code_linetable, 8);
	memcpy(&first, head + o->code_firstlineno, 4);
	char qual[MAX_NAME * 4 + 1], file[MAX_NAME * 4 + 1], shortf[MAX_NAME * 4 + 1];
	if (!read_str(p, qual_at, qual, sizeof(qual)) || !read_str(p, file_at, file, sizeof(file)))
		return c;
	python_short_file(file, shortf, sizeof(shortf));
	char name[sizeof(qual) + sizeof(shortf) + 4];
	int len = snprintf(name, sizeof(name), "%s (%s)", qual, shortf);
	c.name = strpool_intern(&p->names, name, (size_t)len);
	c.qualname = strpool_intern(&p->names, qual, strlen(qual));
	c.file = strpool_intern(&p->names, file, strlen(file));
	c.firstlineno = first;
	int64_t units;
	/* ob_size (a code object is a var object), where it lies in what was read */
	if (o->bytes_size + 8 <= need)
		memcpy(&units, head + o->bytes_size, 8);
	else
		units = 0;
	if (o->frame_kind == PYTHON_FRAMES_INTERP && units > 0 && units < (1 << 24))
		c.units = (uint32_t)units;
	int64_t size;
	uint8_t bhead[64];
	if (o->bytes_data <= sizeof(bhead) && o->bytes_size + 8 <= o->bytes_data &&
	    python_read(p->pid, table_at, bhead, o->bytes_data)) {
		memcpy(&size, bhead + o->bytes_size, 8);
		if (size > 0 && size <= MAX_TABLE) {
			VEC_GROW(p->tables, p->nr_tables + (size_t)size, p->alloc_tables);
			if (python_read(p->pid, table_at + o->bytes_data, p->tables + p->nr_tables, (size_t)size)) {
				c.table = (uint32_t)p->nr_tables;
				c.table_len = (uint32_t)size;
				p->nr_tables += (size_t)size;
			}
		}
	}
	return c;
}

void python_note_frame(struct python_proc *p, uint64_t frame)
{
	uint64_t addr = PYTHON_FRAME_CODE(frame);
	uint32_t idx;
	if (!p->supported || hashmap_get(&p->code_by_addr, addr, &idx))
		return;
	struct python_code c = read_code(p, addr);
	VEC_GROW(p->codes, p->nr_codes + 1, p->alloc_codes);
	p->codes[p->nr_codes] = c;
	bool inserted;
	*hashmap_upsert(&p->code_by_addr, addr, (uint32_t)p->nr_codes, &inserted) = (uint32_t)p->nr_codes;
	p->nr_codes++;
}

const char *python_frame_name(const struct python_proc *p, uint64_t frame, int *line)
{
	uint32_t idx;
	if (line)
		*line = -1;
	if (!hashmap_get(&p->code_by_addr, PYTHON_FRAME_CODE(frame), &idx))
		return NULL;
	const struct python_code *c = &p->codes[idx];
	if (c->name == UINT32_MAX)
		return NULL;
	if (line && c->table_len && PYTHON_FRAME_INSTR(frame) != PYTHON_INSTR_UNKNOWN)
		*line = python_line(p->off.line_table, p->tables + c->table, c->table_len, c->firstlineno,
				    PYTHON_FRAME_INSTR(frame));
	return strpool_str(&p->names, c->name);
}

uint32_t python_code_units(const struct python_proc *p, uint64_t frame)
{
	uint32_t idx;
	if (!hashmap_get(&p->code_by_addr, PYTHON_FRAME_CODE(frame), &idx))
		return 0;
	return p->codes[idx].units;
}

void python_frame_source(const struct python_proc *p, uint64_t frame, const char **function, const char **file,
			 int *firstline)
{
	uint32_t idx;
	*function = *file = "";
	*firstline = -1;
	if (!hashmap_get(&p->code_by_addr, PYTHON_FRAME_CODE(frame), &idx) || p->codes[idx].name == UINT32_MAX)
		return;
	const struct python_code *c = &p->codes[idx];
	*function = strpool_str(&p->names, c->qualname);
	*file = strpool_str(&p->names, c->file);
	*firstline = c->firstlineno;
}

void python_proc_release(struct python_proc *p)
{
	hashmap_release(&p->code_by_addr);
	strpool_release(&p->names);
	free(p->codes);
	free(p->tables);
	free(p->words);
	memset(p, 0, sizeof(*p));
}
