/* perf map files (/tmp/perf-PID.map), read as perf reads them.
 *
 * A JIT (HotSpot's Compiler.perfmap or DumpPerfMapAtExit, V8's
 * --perf-basic-prof, LuaJIT, .NET, ...) writes one line per code blob:
 * "START SIZE name", START and SIZE in hex. perf's parser reads each number
 * with strtoull(.., 16), so "0x"-prefixed numbers (HotSpot writes
 * "0x%016lx 0x%016lx name") and leading blanks are accepted, and it drops
 * the last byte of every line (the newline; of an unterminated last line,
 * its last character). Symbols go into the table as perf inserts them:
 * no fix-ups (a zero-sized entry covers its start only).
 *
 * /tmp is world-writable, so a map is opened as perf opens it, and more
 * strictly: never through a symbolic link (O_NOFOLLOW), a regular file
 * (fstat of the opened descriptor, so no race with a rename), owned by the
 * process's user or by root, unless forced (perf's -f).
 *
 * A map may grow while it is read (V8 appends), be rewritten whole
 * (HotSpot's Compiler.perfmap truncates it first), or appear only when
 * its process exits (DumpPerfMapAtExit): perfmap_refresh reads it again
 * when it changed, adding what is new, so names given out stay valid. */
#ifndef SCORCH_SYMBOLIZE_PERFMAP_H
#define SCORCH_SYMBOLIZE_PERFMAP_H

#include "symbolize/symtab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Add the entries of a map's text to t (not finished: perf's inserts).
 * Returns the number added. */
size_t perfmap_parse(struct symtab *t, const char *buf, size_t len);

enum perfmap_refusal {
	PERFMAP_OPENED = 0,
	PERFMAP_ABSENT,    /* no such file (yet) */
	PERFMAP_LINK,      /* a symbolic link */
	PERFMAP_NOT_REG,   /* not a regular file */
	PERFMAP_OWNER,     /* owned by someone else */
	PERFMAP_UNREADABLE /* another open error */
};

/* Open path for reading as described above: owner (the process's uid) or
 * root must own it, unless force. Returns the descriptor, or -1 with
 * *why set. st gets the file's status when opened. */
int perfmap_open(const char *path, uid_t owner, bool force, enum perfmap_refusal *why,
		 struct stat *st);

/* A warning's text for a refusal ("owned by uid 1000, not by uid 0 or
 * root"), NULL for PERFMAP_OPENED and PERFMAP_ABSENT (not worth a word). */
const char *perfmap_refusal_text(enum perfmap_refusal why, char *buf, size_t cap, uid_t owner,
				 const struct stat *st);

/* What was read of one map file, for perfmap_refresh. */
struct perfmap_state {
	uid_t owner;
	bool force;
	bool read;          /* read at least once */
	bool warned;        /* its refusal was reported */
	dev_t dev;
	ino_t ino;
	off_t size;         /* bytes read */
	int64_t mtime_ns;
	int64_t checked_ns; /* CLOCK_MONOTONIC of the last look */
	enum perfmap_refusal refusal; /* of the last attempt */
};

/* Read path into t when it is new, grew or was rewritten since st was
 * filled (appended bytes only when it grew, the whole file when it was
 * replaced or shrank), at most once per min_interval_ns (0: always look).
 * Returns the number of symbols added (0 when nothing changed), -1 when
 * it cannot be read (st->refusal says why). */
int perfmap_refresh(struct symtab *t, const char *path, struct perfmap_state *st,
		    int64_t min_interval_ns);

#endif
