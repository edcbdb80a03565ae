/* Symbolizer internals shared by the files of src/symbolize/. */
#ifndef SCORCH_SYMBOLIZE_INTERNAL_H
#define SCORCH_SYMBOLIZE_INTERNAL_H

#include "addrspace/procmaps.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "symbolize/perfmap.h"
#include "symbolize/symbolize.h"
#include "symbolize/symtab.h"

#include <pthread.h>

enum dso_kind { DSO_FILE, DSO_VDSO, DSO_JIT, DSO_NOSYMS, DSO_KERNEL, DSO_MODULE };

struct dso {
	const char *name; /* interned */
	enum dso_kind kind;
	uint8_t build_id[20];
	uint8_t build_id_len;
	bool loaded;
	struct symtab syms;
	char *runtime_path; /* ELF file with the code (unwinding), or NULL */
	char *symsrc_path;  /* ELF file the symbols came from, or NULL */
	uint64_t text_offset;
	/* inline chains (sym_inline_chain): dso address -> the index in
	 * chain_items of its first entry; each chain ends with a NULL name.
	 * The inlined functions' names are in chain_names. */
	struct hashmap inline_cache;
	struct sym_inline *chain_items;
	size_t nr_chain_items, chain_items_alloc;
	struct strpool chain_names;
	/* sym_options.symbols_budget: the bytes its tables hold, as last
	 * counted, and its place in the symbolizer's LRU list. */
	size_t bytes;
	struct dso *newer, *older;
	bool in_lru;
	void *image;        /* in-memory copy (vdso), owned */
	size_t image_len;
	uint32_t maj, min;  /* the file's identity (MMAP2), all 0 when unknown */
	uint64_t ino, ino_generation;
	bool kallsyms_read, kallsyms_ok; /* DSO_KERNEL: its symbols were read */
	int open_errno;       /* a file for its symbols is there but open(2) failed so */
	char *unopened_path;  /* that file (malloc'd) */
	uint64_t ktext;                  /* and _text's address in them */
	/* Held (while the symbolizer is `threaded`) around loading and around
	 * symtab lookups, which change the table (memo, lazy choices). */
	pthread_mutex_t lock;
	struct perfmap_state *jit; /* DSO_JIT: what was read of the map file */
};

/* A mapping's tag (procmaps.h) in the symbolizer: its DSO, and whether
 * the DSO's addresses are the process's own (JIT and anonymous maps). */
enum { MAP_IDENTITY = 1u << 31 };
static inline uint32_t map_dso(const struct mapping *m)
{
	return m->tag & ~MAP_IDENTITY;
}
static inline bool map_identity(const struct mapping *m)
{
	return m->tag & MAP_IDENTITY;
}

struct thread {
	int32_t pid, tid;
	const char *comm; /* interned; NULL: ":TID", not made yet */
	bool comm_set;
	uint32_t as; /* its space in symbolizer.maps */
};

/* Direct-mapped cache of recent lookups: the same few thousand addresses
 * recur in every sample. Keyed by address space and its generation, so a
 * changed map invalidates its entries. */
struct lookup_slot {
	uint64_t ip;
	uint32_t as, gen; /* as = UINT32_MAX: kernel */
	const char *name, *dso;
	uint64_t offset, dso_addr;
	struct dso *owner; /* the file the name is of (user addresses), or NULL */
	uint32_t epoch; /* symbolizer.epoch when filled */
	uint8_t valid, have_map, ret; /* (64 bytes in all: 64K slots are 4 MiB) */
};

enum { LOOKUP_SLOTS = 1 << 16 };

struct symbolizer {
	struct sym_options opts;
	char *debug_home;
	struct strpool strs;
	struct thread *threads;
	size_t nr_threads, threads_alloc;
	struct hashmap tid_map; /* (uint32)tid -> thread index */
	int32_t last_pid, last_tid; /* one-entry memo of findnew_thread */
	uint32_t last_thread;       /* UINT32_MAX: empty */
	struct procmaps maps; /* one space per process, shared by its threads */
	uint32_t *map_paths;  /* by strs id: 1 + the path's id in maps (0: none yet) */
	size_t map_paths_alloc;
	struct dso **dsos; /* each at a fixed address */
	size_t nr_dsos, dsos_alloc;
	/* report -j: other threads look symbols up in the DSOs (dso.lock);
	 * quiesce(quiesce_arg) waits until they have resolved every sample
	 * handed out so far (called before a change they could see). */
	bool threaded;
	void (*quiesce)(void *arg);
	void *quiesce_arg;
	struct hashmap dso_map;      /* interned name -> first dso of that name */
	struct hashmap dso_id_map;   /* hash of (name, dev, inode) -> dso index */
	struct hashmap build_id_map; /* interned path -> index into bids */
	struct { uint8_t id[20]; uint8_t len; } *bids;
	size_t nr_bids, bids_alloc;
	/* kernel */
	uint64_t kmap_start, kmap_end, kref;
	uint32_t kgen; /* bumped when the kernel map changes */
	struct lookup_slot *cache;
	bool have_kmap;
	uint32_t kernel_dso;
	int64_t kdelta; /* kallsyms address - runtime address */
	struct unwinder *unwinder; /* user_stack.c: DWARF unwinding, made on first use */
	bool unwinder_tried;
	struct inline_resolver *inline_dw; /* DWARF of inline chains, opened on demand */
	/* sym_options.symbols_budget: the files' tables by use (newest
	 * first), the bytes they hold, and the tables dropped so far; epoch
	 * is bumped at each drop (the lookup cache's names went with it). */
	struct dso *newest, *oldest;
	size_t symbols_bytes;
	uint64_t symbols_evicted;
	uint32_t epoch;
	struct debuginfo_client *debuginfod; /* NULL: none to ask */
	struct hashmap perfmap_owner; /* pid -> uid + 1 of the process (sym_perfmap_owner) */
};

/* What a lookup gives where no map or symbol is known. */
static inline void sym_frame_unknown(struct sym_frame *f, uint64_t ip)
{
	*f = (struct sym_frame){ .name = NULL, .dso = "[unknown]", .offset = 0, .dso_addr = ip, .have_map = false };
}

/* sym_space_version of space as at generation gen, kernel generation
 * kgen: mixed, so that no two (space, generation, kernel generation) meet. */
static inline uint64_t sym_version_of(uint32_t as, uint32_t gen, uint32_t kgen)
{
	return hash_u64(hash_u64((uint64_t)as << 32 | gen) ^ kgen);
}

struct dso *sym_dso_loaded(struct symbolizer *s, uint32_t idx);
/* The DSO of a file as its first MMAP record would make it (the first of
 * its path, with the header's build-id). */
struct dso *sym_file_dso(struct symbolizer *s, const char *path);
/* Load d and sort it for lookups, as the first lookup in it would. */
void sym_dso_prepare(struct symbolizer *s, struct dso *d);
/* The kernel's DSO as its MMAP record would make it, and reading its
 * symbols ahead (applying them to the kernel map waits for the lookup
 * that loads them). */
struct dso *sym_kernel_dso(struct symbolizer *s);
void sym_kernel_prepare(struct symbolizer *s, struct dso *d);
/* The symbol of dso address a in d (loaded first when load): name and
 * offset into f; 1 when none covers a. Takes d's lock when threaded. */
int sym_dso_symbol(struct symbolizer *s, struct dso *d, uint64_t a, bool load, struct sym_frame *f);
uint32_t sym_thread_space(struct symbolizer *s, int32_t pid, int32_t tid);

#endif
