/* The address-space model record and report share: a new mapping cuts the
 * parts of older ones it overlaps (perf's maps__fixup_overlappings, the
 * kernel's mmap), refs stay on the mapping they were made from, fork
 * copies a space, exec empties it. Checked against a brute-force model:
 * the newest mapping that holds an address wins. */
#include "harness.h"

#include "addrspace/procmaps.h"

#include <stdlib.h>
#include <string.h>

struct naive {
	uint64_t start, end, pgoff;
	uint32_t tag;
};

/* The newest mapping holding addr (the kernel's answer), or NULL. */
static const struct naive *naive_find(const struct naive *v, int n, uint64_t addr)
{
	for (int i = n; i-- > 0;)
		if (addr >= v[i].start && addr < v[i].end)
			return &v[i];
	return NULL;
}

TEST(procmaps_overlaps_cut_older)
{
	struct procmaps pm;
	procmaps_init(&pm);
	uint32_t sp = procmaps_space_new(&pm);
	procmaps_space_add(&pm, sp, 7, 0x1000, 0x5000, 0x100, "/a", 2, 1);
	uint32_t gen = procmaps_space_gen(&pm, sp);
	procmaps_space_add(&pm, sp, 7, 0x2000, 0x3000, 0, "/b", 2, 2);
	CHECK(procmaps_space_gen(&pm, sp) != gen);
	const struct mapping *m = procmaps_space_find(&pm, sp, 0x1fff);
	REQUIRE(m);
	CHECK_EQ_U64(m->tag, 1);
	m = procmaps_space_find(&pm, sp, 0x2000);
	REQUIRE(m);
	CHECK_EQ_U64(m->tag, 2);
	/* the right part of /a still maps from /a's own start and offset */
	uint64_t ref = procmaps_space_ref(&pm, sp, 0x4000);
	m = procmaps_ref_mapping(&pm, ref);
	REQUIRE(m);
	CHECK_EQ_U64(m->tag, 1);
	CHECK_EQ_U64(m->start + procmaps_ref_offset(ref), 0x4000);
	CHECK_EQ_U64(0x4000 - m->start + m->pgoff, 0x3100);
	CHECK(!procmaps_space_find(&pm, sp, 0x5000));
	CHECK(!procmaps_space_find(&pm, sp, 0xfff));
	/* the same mapping again: nothing changes */
	uint32_t nr = pm.nr;
	gen = procmaps_space_gen(&pm, sp);
	procmaps_space_add(&pm, sp, 7, 0x2000, 0x3000, 0, "/b", 2, 2);
	CHECK_EQ_U64(pm.nr, nr);
	CHECK_EQ_U64(procmaps_space_gen(&pm, sp), gen);
	/* fork copies, exec (record's rule) empties */
	procmaps_add(&pm, 10, 0x1000, 0x1000, 0, "/c");
	procmaps_fork(&pm, 10, 11);
	m = procmaps_ref_mapping(&pm, procmaps_ref(&pm, 11, 0x1800));
	REQUIRE(m);
	CHECK_EQ_U64(m->pid, 10);
	procmaps_exec(&pm, 11);
	CHECK(!procmaps_ref(&pm, 11, 0x1800));
	CHECK(procmaps_ref(&pm, 10, 0x1800));
	procmaps_release(&pm);
}

TEST(procmaps_random_against_newest_wins)
{
	srand(12345);
	for (int round = 0; round < 200; round++) {
		struct procmaps pm;
		struct naive v[40];
		procmaps_init(&pm);
		uint32_t sp = procmaps_space_new(&pm), fork_at = (uint32_t)(rand() % 40), child = UINT32_MAX;
		int n = 0;
		for (int k = 0; k < 40; k++) {
			uint64_t a = (uint64_t)(rand() % 64) * 0x1000, len = (uint64_t)(rand() % 16 + 1) * 0x1000;
			v[n] = (struct naive){ a, a + len, (uint64_t)(rand() % 8) * 0x1000, (uint32_t)k };
			procmaps_space_add(&pm, sp, 1, a, a + len, v[n].pgoff, "/f", 2, (uint32_t)k);
			n++;
			if ((uint32_t)k == fork_at) {
				child = procmaps_space_new(&pm);
				procmaps_space_copy(&pm, child, sp);
			}
		}
		bool same = true;
		for (uint64_t addr = 0; addr < 0x52000; addr += 0x800) {
			const struct naive *want = naive_find(v, n, addr);
			const struct mapping *got = procmaps_space_find(&pm, sp, addr);
			if (!want != !got || (want && (got->tag != want->tag || got->start != want->start ||
						      addr - got->start + got->pgoff != addr - want->start + want->pgoff)))
				same = false;
			want = naive_find(v, (int)fork_at + 1, addr);
			got = procmaps_space_find(&pm, child, addr);
			if (!want != !got || (want && got->tag != want->tag))
				same = false;
		}
		CHECK(same);
		procmaps_release(&pm);
	}
}

/* fork shares the parent's pieces (a frozen base both lie over) instead of
 * copying them: parents, children and grandchildren that keep adding
 * mappings after their forks each answer as a copy would (the brute-force
 * model copies), and procmaps_space_pieces lists one space's pieces,
 * own and base, as the sorted, disjoint list of what it maps. */
enum { MODEL_SPACES = 6, MODEL_MAPS = 120 };

struct model_space {
	uint32_t id;
	struct naive v[MODEL_MAPS];
	int n;
};

static bool space_matches(const struct procmaps *pm, const struct model_space *m)
{
	for (uint64_t addr = 0; addr < 0x52000; addr += 0x800) {
		const struct naive *want = naive_find(m->v, m->n, addr);
		const struct mapping *got = procmaps_space_find(pm, m->id, addr);
		if (!want != !got || (want && (got->tag != want->tag || got->start != want->start)))
			return false;
	}
	struct map_piece *all = malloc((procmaps_space_pieces_max(pm, m->id) + 1) * sizeof(*all));
	uint32_t n = procmaps_space_pieces(pm, m->id, all);
	bool ok = true;
	uint64_t covered = 0, want_covered = 0;
	for (uint32_t i = 0; i < n && ok; i++) {
		ok = all[i].start < all[i].end && (!i || all[i - 1].end <= all[i].start);
		const struct naive *first = naive_find(m->v, m->n, all[i].start);
		const struct naive *last = naive_find(m->v, m->n, all[i].end - 1);
		ok = ok && first && last && first->tag == pm->maps[all[i].id].tag && last->tag == first->tag;
		covered += all[i].end - all[i].start;
	}
	for (uint64_t addr = 0; addr < 0x60000; addr += 0x1000)
		want_covered += naive_find(m->v, m->n, addr) ? 0x1000 : 0;
	free(all);
	return ok && covered == want_covered;
}

TEST(procmaps_forks_share_then_diverge)
{
	srand(4242);
	for (int round = 0; round < 300; round++) {
		struct procmaps pm;
		procmaps_init(&pm);
		struct model_space *s = calloc(MODEL_SPACES, sizeof(*s));
		int spaces = 1;
		s[0].id = procmaps_space_new(&pm);
		for (uint32_t k = 0; k < 60; k++) {
			int at = rand() % spaces;
			if (rand() % 4 == 0 && spaces < MODEL_SPACES) {
				s[spaces] = s[at]; /* the model copies */
				s[spaces].id = procmaps_space_new(&pm);
				procmaps_space_copy(&pm, s[spaces].id, s[at].id);
				spaces++;
				continue;
			}
			uint64_t a = (uint64_t)(rand() % 64) * 0x1000, len = (uint64_t)(rand() % 16 + 1) * 0x1000;
			struct model_space *m = &s[at];
			if (m->n == MODEL_MAPS)
				continue;
			m->v[m->n++] = (struct naive){ a, a + len, 0, k };
			procmaps_space_add(&pm, m->id, 1, a, a + len, 0, "/f", 2, k);
		}
		bool same = true;
		for (int i = 0; i < spaces; i++)
			same = same && space_matches(&pm, &s[i]);
		CHECK(same);
		/* a mapping a child sees through its base, added again: no change */
		if (spaces > 1) {
			const struct mapping *m = procmaps_space_find(&pm, s[1].id, 0x8000);
			bool whole = m && m->start == 0x8000; /* no newer mapping cut it */
			for (uint64_t a = 0x8000; whole && a < m->end; a += 0x1000)
				whole = procmaps_space_find(&pm, s[1].id, a) == m;
			if (whole) {
				uint32_t nr = pm.nr, gen = procmaps_space_gen(&pm, s[1].id);
				procmaps_space_add(&pm, s[1].id, 1, m->start, m->end, m->pgoff, "/f", 2, m->tag);
				CHECK_EQ_U64(pm.nr, nr);
				CHECK_EQ_U64(procmaps_space_gen(&pm, s[1].id), gen);
			}
		}
		free(s);
		procmaps_release(&pm);
	}
}

/* record's recycling (procmaps.h: recycle): processes fork, exec, map and
 * exit (procmaps_forget) at random, each live pid checked against a model
 * that copies on fork, empties on exec and drops on exit; once all have
 * exited nothing is held, and the ids of mappings stay within what was
 * alive at once (they are reused, not grown with every process). */
enum { RECYCLE_PIDS = 8 };

TEST(procmaps_recycle_follows_live_processes)
{
	srand(777);
	struct procmaps pm;
	procmaps_init(&pm);
	pm.recycle = true;
	static struct model_space live[RECYCLE_PIDS + 1]; /* by pid; id 1: alive */
	memset(live, 0, sizeof(live));
	uint32_t most_live = 0;
	bool same = true;
	for (int step = 0; step < 20000; step++) {
		uint32_t pid = 1 + (uint32_t)(rand() % RECYCLE_PIDS);
		struct model_space *m = &live[pid];
		int what = rand() % 10;
		if (!m->id && what < 5) { /* a new process: forked from a live one, or alone */
			uint32_t parent = 1 + (uint32_t)(rand() % RECYCLE_PIDS);
			if (parent != pid && live[parent].id) {
				procmaps_fork(&pm, parent, pid);
				*m = live[parent];
			} else {
				m->n = 0;
			}
			m->id = 1;
		} else if (m->id && what < 6 && m->n < MODEL_MAPS) {
			uint64_t a = (uint64_t)(rand() % 64) * 0x1000, len = (uint64_t)(rand() % 16 + 1) * 0x1000;
			uint64_t pgoff = (uint64_t)(rand() % 8) * 0x1000;
			procmaps_add(&pm, pid, a, len, pgoff, rand() % 2 ? "/a" : "/b");
			m->v[m->n++] = (struct naive){ a, a + len, pgoff, 0 };
		} else if (m->id && what < 7) {
			procmaps_exec(&pm, pid);
			m->n = 0;
		} else if (m->id && what < 9) {
			procmaps_forget(&pm, pid);
			m->id = 0;
		}
		if (procmaps_live(&pm) > most_live)
			most_live = procmaps_live(&pm);
		if (step % 50)
			continue;
		for (uint32_t p = 1; p <= RECYCLE_PIDS; p++) {
			if (!live[p].id)
				continue;
			uint32_t space = procmaps_space_of(&pm, p);
			for (uint64_t addr = 0; addr < 0x52000; addr += 0x800) {
				const struct naive *want = naive_find(live[p].v, live[p].n, addr);
				const struct mapping *got = space == UINT32_MAX ? NULL : procmaps_space_find(&pm, space, addr);
				if (!want != !got || (want && (got->start != want->start || got->pgoff != want->pgoff)))
					same = false;
			}
		}
	}
	CHECK(same);
	for (uint32_t p = 1; p <= RECYCLE_PIDS; p++)
		if (live[p].id)
			procmaps_forget(&pm, p);
	CHECK_EQ_U64(procmaps_live(&pm), 0);
	CHECK_EQ_U64(pm.by_pid.nr, 0);
	CHECK(pm.nr <= most_live + 1);
	CHECK(pm.nr_spaces <= RECYCLE_PIDS + 1);
	procmaps_release(&pm);
}
