/* bench/record_replay [--early] PERF.DATA [OUT.folded]: feed a recording made with
 * `perf record -a --call-graph dwarf` to record's collector, in time order,
 * as the live perf backend would (samples with registers and stack copies,
 * MMAP2/COMM/FORK records; no /proc read), and print the CPU time the
 * collector took (DWARF unwinding included) per sample. The folded output
 * lets two builds' stacks be compared on the same input. --early: stacks
 * are built while the samples are fed, as a live recording does (and
 * folded, recorder_fold.c). Built with
 * `make bench/record_replay` (links the core objects). */
#include "base/alloc.h"
#include "base/input.h"
#include "base/out.h"
#include "perfdata/perfdata.h"
#include "profile/folded.h"
#include "profile/profile.h"
#include "record/record.h"
#include "record/recorder.h"
#include "record/session.h"
#include "record/symbols.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct ref {
	uint64_t time, seq;
	struct pd_record rec;
};

struct walk {
	struct ref *refs;
	size_t nr, alloc;
};

static int collect(const struct pd_record *r, void *arg)
{
	struct walk *w = arg;
	VEC_GROW(w->refs, w->nr + 1, w->alloc);
	w->refs[w->nr] = (struct ref){ r->time == UINT64_MAX ? 0 : r->time, w->nr, *r };
	w->nr++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void feed_sample(const struct perf_data *pd, const struct pd_record *rec, struct recorder *r,
			uint64_t **buf, size_t *alloc)
{
	struct pd_sample s;
	if (pd_parse_sample(pd, rec, &s) < 0)
		return;
	size_t need = s.nr_callchain * 2 + s.nr_regs;
	VEC_GROW(*buf, need + 1, *alloc);
	uint64_t *kernel = *buf, *user = *buf + s.nr_callchain, *regs = *buf + 2 * s.nr_callchain;
	uint32_t nk = 0, nu = 0;
	int ctx = 0;
	for (uint64_t i = 0; i < s.nr_callchain; i++) {
		uint64_t ip = pd_u64(s.callchain + 8 * i);
		if (ip >= PD_CONTEXT_MAX) {
			ctx = ip == PD_CONTEXT_KERNEL ? 1 : ip == PD_CONTEXT_USER ? 2 : 0;
			continue;
		}
		if (ctx == 1)
			kernel[nk++] = ip;
		else if (ctx == 2)
			user[nu++] = ip;
	}
	for (uint32_t i = 0; i < s.nr_regs; i++)
		regs[i] = pd_u64(s.regs + 8 * i);
	struct record_sample rs = { 0 };
	rs.pid = (uint32_t)s.pid;
	rs.tid = (uint32_t)s.tid;
	rs.cpu = s.cpu;
	rs.time = s.time;
	rs.weight = 1;
	rs.kernel = kernel;
	rs.nr_kernel = nk;
	rs.user = user;
	rs.nr_user = nu;
	if (s.regs_abi && s.stack_size) {
		rs.regs_abi = s.regs_abi;
		rs.regs_mask = s.attr->sample_regs_user;
		rs.regs = regs;
		rs.stack = s.stack;
		rs.stack_len = (size_t)s.stack_size;
	}
	recorder_sample(r, &rs);
}

static void feed(const struct perf_data *pd, const struct pd_record *rec, struct recorder *r, uint64_t **buf,
		 size_t *alloc, uint64_t *samples)
{
	const uint8_t *p = rec->data + 8, *end = rec->data + rec->size;
	bool user = (rec->misc & PD_CPUMODE_MASK) == PD_CPUMODE_USER;
	switch (rec->type) {
	case PD_RECORD_SAMPLE:
		(*samples)++;
		feed_sample(pd, rec, r, buf, alloc);
		break;
	case PD_RECORD_MMAP2: {
		/* pid tid addr len pgoff maj min ino ino_gen prot flags name */
		if (end - p < 64 + 1 || !user)
			break;
		uint32_t prot = pd_u32(p + 56);
		const char *name = (const char *)p + 64;
		if ((prot & PROT_EXEC) && memchr(name, 0, (size_t)(end - (const uint8_t *)name)))
			recorder_mmap(r, pd_u32(p), pd_u64(p + 8), pd_u64(p + 16), pd_u64(p + 24), name);
		break;
	}
	case PD_RECORD_COMM: {
		const char *name = (const char *)p + 8;
		if (end - p >= 9 && memchr(name, 0, (size_t)(end - (const uint8_t *)name)))
			recorder_comm(r, pd_u32(p), pd_u32(p + 4), name, (rec->misc & (1u << 13)) != 0);
		break;
	}
	case PD_RECORD_FORK:
		if (end - p >= 16)
			recorder_fork(r, pd_u32(p + 4), pd_u32(p + 12), pd_u32(p), pd_u32(p + 8));
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	bool early = argc > 1 && !strcmp(argv[1], "--early");
	argc -= early;
	argv += early;
	if (argc < 2) {
		fprintf(stderr, "usage: record_replay [--early] PERF.DATA [OUT.folded]\n");
		return 2;
	}
	struct input in;
	struct perf_data pd;
	struct walk w = { 0 };
	if (input_load(&in, argv[1]) || perf_data_open(&pd, argv[1], in.data, in.len) < 0)
		return 1;
	if (perf_data_walk(&pd, collect, &w) < 0)
		return 1;
	qsort(w.refs, w.nr, sizeof(w.refs[0]), by_time);
	struct record_opts opts = { .freq = 999, .all_cpus = true };
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	struct profile p;
	profile_init(&p);
	struct symbols *kernel_syms = early ? symbols_new() : NULL;
	if (early)
		recorder_build_early(r, &p, kernel_syms, NULL);
	uint64_t *buf = NULL, samples = 0;
	size_t alloc = 0;
	double c0 = record_cpu_now();
	for (size_t i = 0; i < w.nr; i++)
		feed(&pd, &w.refs[i].rec, r, &buf, &alloc, &samples);
	double c1 = record_cpu_now();
	recorder_build(r, &p);
	double c2 = record_cpu_now();
	fprintf(stderr, "%" PRIu64 " samples: collector %.3f s CPU (%.1f us/sample), build %.3f s CPU\n", samples,
		c1 - c0, samples ? (c1 - c0) * 1e6 / (double)samples : 0.0, c2 - c1);
	if (argc > 2) {
		struct out *o = out_open(argv[2]);
		if (!o)
			return 1;
		folded_write(&p, o);
		if (out_commit(o))
			return 1;
	}
	profile_release(&p);
	recorder_free(r);
	if (kernel_syms)
		symbols_free(kernel_syms);
	free(buf);
	free(w.refs);
	perf_data_close(&pd);
	input_release(&in);
	return 0;
}
