/* Address -> (function, dso) for every thread of one machine, the way
 * `perf script` resolves them.
 *
 * A symbolizer holds
 *   - threads (tid -> comm, pid, address space), created on first use with
 *     the comm ":TID" as perf does, fed by COMM/FORK/EXIT events;
 *   - address spaces (one per process, shared by its threads) made of maps
 *     [start, end) -> dso + pgoff, fed by MMAP/MMAP2 events; a new map
 *     replaces the parts of older maps it overlaps, as perf does (held in
 *     addrspace/procmaps.h, the model record feeds too; DWARF samples are
 *     unwound with record's unwinder, addrspace/unwind.h);
 *   - the kernel's map: /proc/kallsyms, or a kallsyms found by build-id in
 *     ~/.debug/[kernel.kallsyms]/ID/kallsyms;
 *   - DSOs, shared by every address space and loaded lazily on the first
 *     lookup that lands in them, keyed by path + build-id (or dev/inode):
 *     ELF .symtab/.dynsym through libelf, separate debug files by build-id
 *     (/usr/lib/debug/.build-id, ~/.debug) and .gnu_debuglink, [vdso], JIT
 *     maps /tmp/perf-PID.map; C++ and Rust names demangled as perf prints
 *     them.
 *
 * Every string the symbolizer returns is owned by it and stays valid, at the
 * same address, until symbolizer_free(): callers may cache on the pointer
 * (but see sym_options.symbols_budget).
 * Nothing here prints unless asked (sym_options.verbose), and nothing dies:
 * a file that cannot be read only makes its addresses unknown. */
#ifndef SCORCH_SYMBOLIZE_SYMBOLIZE_H
#define SCORCH_SYMBOLIZE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;

struct sym_options {
	const char *kallsyms;   /* NULL: by build-id, else /proc/kallsyms */
	const char *symfs;      /* prefix for every DSO path (perf --symfs), or NULL */
	const char *debug_home; /* NULL: $HOME/.debug */
	bool no_demangle;       /* keep mangled names */
	bool verbose;           /* warn (once per file) about unreadable DSOs */
	bool perfmap_force;     /* read perf maps whoever owns them (perf -f) */
	bool perfmap_warn;      /* warn (once per map) about a refused perf map */
	bool no_debuginfod;     /* never ask debuginfod servers (DEBUGINFOD_URLS) */
	bool debuginfod_notices;/* say when the servers fail (once) */
	size_t inline_max_open; /* files the inline expansion holds open at once (0: no limit) */
	/* Bytes the files' symbol tables (and their inline chains) may hold
	 * at once (0: no limit): past it the least recently used file's go
	 * (its mapping unmapped), to be read again at its next lookup. With a
	 * budget, a function name (sym_frame.name, sym_inline_chain's) stays
	 * valid only until the next lookup in another file: keep a copy.
	 * Not with `threaded`. */
	size_t symbols_budget;
};

/* What the files' symbol tables hold now (symbols_budget), and how many
 * were dropped for it so far. */
void sym_symbols_held(const struct symbolizer *s, size_t *bytes, uint64_t *evicted);

struct symbolizer *symbolizer_new(const struct sym_options *opts);
void symbolizer_free(struct symbolizer *s);

/* The DSOs whose symbols were wanted but a file for which (the DSO's own,
 * or a debug file of it) is there and could not be opened (out of
 * descriptors, EMFILE; no permission): fn (when not NULL) for each, in the
 * order they were met, with that file and open(2)'s errno. Returns how
 * many. Their frames may be named by file only ("[libc.so.6]") or lack
 * names, so a caller should say so. */
size_t sym_unopened(struct symbolizer *s, void (*fn)(void *arg, const char *dso, const char *path, int err),
		    void *arg);

/* A build-id recorded for a path (perf.data's HEADER_BUILD_ID feature:
 * kernel = the "[kernel.kallsyms]" or module entry). Used to find the
 * matching debug file and to reject a different file at the same path. */
void sym_add_build_id(struct symbolizer *s, const char *path, const uint8_t *id,
		      size_t id_len);

/* The build-id of the DSO perf names dso (as sym_lookup returned it): the
 * one recorded for it, else the file's own (read from it, under symfs),
 * else with running_kernel the running kernel's for "[kernel.kallsyms]".
 * Returns its length (0: none). */
size_t sym_dso_build_id(struct symbolizer *s, const char *dso, bool running_kernel, uint8_t id[20]);

/* ---- address-space events ------------------------------------------- */

void sym_comm(struct symbolizer *s, int32_t pid, int32_t tid, const char *comm,
	      size_t comm_len, bool exec);
/* tid (of process pid) was created by ptid (of process ppid). */
void sym_fork(struct symbolizer *s, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid);
void sym_exit(struct symbolizer *s, int32_t pid, int32_t tid);

struct sym_mmap {
	int32_t pid, tid;      /* pid -1: the kernel's maps */
	bool kernel;           /* cpumode of the record was kernel */
	uint64_t start, len, pgoff;
	uint32_t maj, min;     /* MMAP2 only (0 otherwise) */
	uint64_t ino, ino_generation;
	const uint8_t *build_id; /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	size_t build_id_len;
	uint32_t prot, flags;  /* PROT_* / MAP_*; prot 0 = unknown (MMAP) */
	const char *filename;  /* NUL-terminated */
};

void sym_mmap(struct symbolizer *s, const struct sym_mmap *m);

/* Room for the maps of `mmaps` more MMAP records and the threads and
 * address spaces of `forks` more FORK records, made at once (a replay
 * knows these counts before it starts): no copies while the arrays would
 * grow. The counts are of records by type, before their sizes are checked:
 * a damaged file reserves for records it then skips (48 bytes for each
 * 8-byte FORK record, hardly touched: sys300k's 55 MB of data rewritten
 * as such, 330 MB reserved, peak RSS +4 MB). */
void sym_reserve(struct symbolizer *s, uint64_t mmaps, uint64_t forks);

/* The user (euid) of process pid, whose /tmp/perf-PID.map must be owned by
 * it or by root (perfmap.h); without a call, scorch's own euid, as perf. */
void sym_perfmap_owner(struct symbolizer *s, int32_t pid, uint32_t uid);
/* Process pid exited: its user is forgotten unless it left a perf map
 * (to be read later, against that user). */
void sym_perfmap_owner_gone(struct symbolizer *s, int32_t pid);
/* Process pid exited and nothing is left to name from its perf map: what
 * was read of it, and its user, go (a lookup in it reads it afresh). Its
 * names from earlier lookups are gone too. */
void sym_perfmap_release(struct symbolizer *s, int32_t pid);

/* More lines for the perf map of process pid ("START SIZE name", as in
 * the file), known otherwise than by its file: record keeps what every
 * dump of a JVM's map gave, since each dump replaces the last. */
void sym_perfmap_extra(struct symbolizer *s, int32_t pid, const char *text, size_t len);

/* ---- lookups ----------------------------------------------------------- */

/* The comm perf would print for this thread (":TID" if no COMM seen). */
const char *sym_thread_comm(struct symbolizer *s, int32_t pid, int32_t tid);

struct sym_frame {
	const char *name;  /* function (demangled), or NULL when unknown */
	const char *dso;   /* perf's dso name: path, "[kernel.kallsyms]", "[vdso]",
			      "/tmp/perf-PID.map", or "[unknown]" without a map */
	uint64_t offset;   /* ip - function start (0 when unknown) */
	uint64_t dso_addr; /* ip translated into the dso's address space */
	bool have_map;
};

/* Resolve one instruction pointer. is_kernel selects the kernel's maps (as
 * the callchain's context markers or the sample's cpumode say). Always
 * fills *f (unknown parts as described) and returns 0 when a symbol was
 * found, 1 when not. Return addresses of callers are looked up as given
 * (perf does not subtract 1 for frame-pointer chains). */
int sym_lookup(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t ip,
	       bool is_kernel, struct sym_frame *f);

/* The thread (pid, tid) as the lookups of one sample find it (made, with
 * the comm ":TID", when new): returns its comm, and sets *space to the id
 * of its address space, for sym_lookup_in. */
const char *sym_sample_thread(struct symbolizer *s, int32_t pid, int32_t tid, uint32_t *space);

/* sym_lookup for a thread whose address space is `space` (see
 * sym_sample_thread), without sym_lookup's cache of recent answers: for
 * callers that keep their own, under sym_lookup_stamp. */
int sym_lookup_in(struct symbolizer *s, uint32_t space, uint64_t ip, bool is_kernel, struct sym_frame *f);

/* sym_lookup_in of a user address in two halves, for callers that cache
 * what they derive from a file's address: the map that holds ip, which
 * fills f's dso, dso_addr and have_map (name NULL) and returns its file,
 * or NULL (f as for an address in no map); then the symbol at f->dso_addr
 * in that file (returns as sym_lookup_in). The second half's answer
 * depends on the file and f->dso_addr only (user files' tables do not
 * change once read). */
struct dso;
struct dso *sym_map_in(struct symbolizer *s, uint32_t space, uint64_t ip, struct sym_frame *f);
int sym_symbol_in(struct symbolizer *s, struct dso *d, struct sym_frame *f);

/* A value that stays while sym_lookup_in(s, space, ip, is_kernel, ...)
 * answers the same for every ip, and never comes back once changed: the
 * space and the generation of its maps (user addresses), or the
 * generation of the kernel map (kernel addresses, whatever the space).
 * Only a kernel lookup changes it without a record (loading the kernel's
 * symbols moves its map). */
uint64_t sym_lookup_stamp(const struct symbolizer *s, uint32_t space, bool is_kernel);

/* A value that changes whenever lookups for this thread could give other
 * answers (its address space changed, the kernel map moved): callers may
 * cache results derived from lookups under it. */
uint64_t sym_space_version(struct symbolizer *s, int32_t pid, int32_t tid);

/* perf script's inline expansion of a DWARF-unwound user frame (perf runs
 * it for those frames only): addr2line's records for the address, from
 * the libdw engine of symbolize/inline.h, innermost first, each either the
 * frame's own symbol (inlined = false, printed with its dso) or an inlined
 * function (printed "(inlined)").
 * Returns the count (0: no debug info, print the plain frame) and points
 * *out at entries owned by the symbolizer. */
struct sym_inline {
	const char *name;
	bool inlined;
};

int sym_inline_chain(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t ip,
		     const struct sym_inline **out);

/* ---- DWARF unwinding of a user stack copy (perf --call-graph dwarf) ----- */

struct sym_user_regs {
	uint64_t abi;          /* PERF_SAMPLE_REGS_ABI_*; 0 = none */
	uint64_t mask;         /* attr.sample_regs_user */
	const uint64_t *regs;  /* popcount(mask) values, in perf_regs order */
};

/* Unwind the user stack of a sample: regs + the stack bytes copied at the
 * sample (stack[0] is at the sampled sp). Writes up to max return addresses
 * into ips (ips[0] = the sampled ip), already adjusted the way perf's
 * unwinder reports them. Returns the count (>= 0), or -1 when unwinding is
 * unavailable (no elfutils, unsupported arch/abi). *complete (if not NULL)
 * tells whether the walk ended where the unwind tables say the stack ends
 * (a thread's or the program's first frame), not at an error. */
int sym_unwind_user(struct symbolizer *s, int32_t pid, int32_t tid,
		    const struct sym_user_regs *regs, const uint8_t *stack,
		    size_t stack_len, uint64_t *ips, int max, bool *complete);

#endif
