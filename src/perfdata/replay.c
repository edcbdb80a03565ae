/* Collecting and delivering the records of the replay (see replay.h). */
#include "perfdata/replay.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static int collect(const struct pd_record *rec, void *arg)
{
	struct replay *r = arg;
	r->records++;
	switch (rec->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		r->mmaps++;
		break;
	case PD_RECORD_FORK:
		r->forks++;
		break;
	case PD_RECORD_COMM:
	case PD_RECORD_EXIT:
	case PD_RECORD_SAMPLE:
		break;
	default:
		return 0; /* everything else (and unknown types) is skipped */
	}
	VEC_GROW(r->ents, r->nr + 1, r->alloc);
	r->ents[r->nr] = (struct replay_entry){ .time = rec->time, .where = rec->pos << 1 | (rec->in_dbuf & 1) };
	r->nr++;
	return 0;
}

/* Records are 108-128 bytes on average in system-wide frame-pointer
 * captures (samples with their chains, MMAP2, COMM, FORK): room for one
 * per 64 bytes of data is made at once, its pages touched only as the
 * entries are written (on huge pages, alloc.h), instead of a dozen
 * growths copying up to 8 MB. A capture of smaller records grows past
 * it as before. */
enum { MIN_RECORD_GUESS = 64 };

int replay_collect(struct replay *r)
{
	uint64_t guess = r->pd->data_size / MIN_RECORD_GUESS;
	if (guess <= SIZE_MAX / 2 / sizeof(*r->ents))
		VEC_RESERVE(r->ents, r->nr + (size_t)guess, r->alloc);
	return perf_data_walk(r->pd, collect, r);
}

/* Whether a record's cpumode is the (host or guest) kernel's. */
static bool kernel_mode(const struct pd_record *r)
{
	uint32_t cpumode = r->misc & PD_CPUMODE_MASK;
	return cpumode == PD_CPUMODE_KERNEL || cpumode == PD_CPUMODE_GUEST_KERNEL;
}

/* Whether an MMAP record changes the kernel's map only (sym_mmap). */
static bool kernel_mmap(const struct pd_record *r, const uint8_t *p, size_t n)
{
	return kernel_mode(r) || (n >= 4 && (int32_t)pd_u32(p) == -1);
}

static void replay_mmap(struct symbolizer *sym, const struct pd_record *r, const uint8_t *p, size_t n)
{
	size_t fixed = r->type == PD_RECORD_MMAP ? 32 : 32 + 24 + 8;
	if (n <= fixed)
		return;
	struct sym_mmap m = { 0 };
	m.pid = (int32_t)pd_u32(p);
	m.tid = (int32_t)pd_u32(p + 4);
	m.start = pd_u64(p + 8);
	m.len = pd_u64(p + 16);
	m.pgoff = pd_u64(p + 24);
	m.kernel = kernel_mode(r);
	if (r->type == PD_RECORD_MMAP2) {
		if (r->misc & (1u << 14)) { /* MMAP_BUILD_ID */
			m.build_id_len = p[32] <= 20 ? p[32] : 20;
			m.build_id = p + 36;
		} else {
			m.maj = pd_u32(p + 32);
			m.min = pd_u32(p + 36);
			m.ino = pd_u64(p + 40);
			m.ino_generation = pd_u64(p + 48);
		}
		m.prot = pd_u32(p + 56);
		m.flags = pd_u32(p + 60);
	} else {
		m.prot = (r->misc & (1u << 13)) ? 1 /* PROT_READ: data */ : 4 /* PROT_EXEC */;
	}
	/* The name in place when it ends inside the record (perf pads it
	 * with NULs), not a copy for each record. */
	const char *fn = (const char *)p + fixed;
	size_t len = strnlen(fn, n - fixed);
	char *copy = len < n - fixed ? NULL : xmemdup0(fn, len);
	m.filename = copy ? copy : fn;
	sym_mmap(sym, &m);
	free(copy);
}

static struct pd_record entry_record(const struct replay *rp, const struct replay_entry *e)
{
	uint64_t pos = e->where >> 1;
	bool in_dbuf = e->where & 1;
	const uint8_t *d = pd_record_bytes(rp->pd, in_dbuf, pos);
	return (struct pd_record){ .type = pd_u32(d), .misc = pd_u16(d + 4), .size = pd_u16(d + 6),
				   .data = d, .offset = pos, .in_dbuf = in_dbuf, .pos = pos, .time = e->time };
}

int replay_sample_at(const struct replay *r, size_t i, struct pd_sample *s)
{
	struct pd_record rec = entry_record(r, &r->ents[i]);
	return pd_parse_sample(r->pd, &rec, s);
}

static void replay_one(struct replay *rp, struct symbolizer *sym, const struct replay_entry *e,
		       void (*on_sample)(void *arg, const struct pd_sample *s), void *arg)
{
	struct pd_record r = entry_record(rp, e);
	const uint8_t *d = r.data;
	const uint8_t *p = d + 8;
	size_t n = r.size - 8u;
	switch (r.type) {
	case PD_RECORD_COMM:
		if (n >= 8) {
			const char *c = (const char *)p + 8;
			sym_comm(sym, (int32_t)pd_u32(p), (int32_t)pd_u32(p + 4), c, strnlen(c, n - 8),
				 r.misc & (1u << 13));
		}
		break;
	case PD_RECORD_FORK:
		if (n >= 16)
			sym_fork(sym, (int32_t)pd_u32(p), (int32_t)pd_u32(p + 4), (int32_t)pd_u32(p + 8),
				 (int32_t)pd_u32(p + 12));
		break;
	case PD_RECORD_EXIT:
		if (n >= 16)
			sym_exit(sym, (int32_t)pd_u32(p), (int32_t)pd_u32(p + 8));
		break;
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		if (rp->defer_kernel_map && kernel_mmap(&r, p, n) && rp->defer_kernel_map(rp->hook_arg)) {
			VEC_GROW(rp->deferred, rp->nr_deferred + 1, rp->deferred_alloc);
			rp->deferred[rp->nr_deferred++] = (size_t)(e - rp->ents);
			break;
		}
		replay_mmap(sym, &r, p, n);
		break;
	case PD_RECORD_SAMPLE: {
		struct pd_sample s;
		rp->samples++;
		if (pd_parse_sample(rp->pd, &r, &s) < 0) {
			rp->damaged = true;
			break;
		}
		on_sample(arg, &s);
		break;
	}
	default:
		break;
	}
}

void replay_run(struct replay *r, struct symbolizer *sym,
		void (*on_sample)(void *arg, const struct pd_sample *s), void *arg)
{
	sym_reserve(sym, r->mmaps, r->forks);
	for (r->at = 0; r->at < r->nr; r->at++)
		replay_one(r, sym, &r->ents[r->at], on_sample, arg);
}

void replay_apply_deferred(struct replay *r, struct symbolizer *sym)
{
	for (size_t i = 0; i < r->nr_deferred; i++) {
		struct pd_record rec = entry_record(r, &r->ents[r->deferred[i]]);
		replay_mmap(sym, &rec, rec.data + 8, rec.size - 8u);
	}
	r->nr_deferred = 0;
}

void replay_release(struct replay *r)
{
	free(r->deferred);
	r->deferred = NULL;
	r->nr_deferred = r->deferred_alloc = 0;
	free(r->ents);
	r->ents = NULL;
	r->nr = r->alloc = 0;
}
