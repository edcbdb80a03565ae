/* Unit tests for profile/frame_sites: modules by (file, build-id), one site
 * per frame name (the first note wins), and sites carried by name through
 * merges, filters and reversal. */
#include "harness.h"

#include "profile/frame_sites.h"
#include "profile/ops.h"
#include "profile/profile.h"

#include <string.h>

static sym_t sym(struct profile *p, const char *s)
{
	return profile_sym(p, s, strlen(s));
}

/* root;NAMES... with count 1 */
static void stack(struct profile *p, const char *a, const char *b)
{
	node_t n = profile_push(p, PROFILE_ROOT, sym(p, a));
	profile_count(p, profile_push(p, n, sym(p, b)), 1);
}

TEST(frame_sites_modules_and_first_note)
{
	struct profile p;
	profile_init(&p);
	CHECK(p.sites == NULL);
	const uint8_t id1[] = { 0xab, 0xcd }, id2[] = { 0x01 };
	uint32_t m1 = frame_sites_module(&p, "/lib/libc.so.6", 14, id1, 2, false);
	uint32_t m2 = frame_sites_module(&p, "/lib/libc.so.6", 14, id2, 1, false);
	CHECK(m1 >= 1 && m2 >= 1 && m1 != m2); /* same file, another build-id */
	CHECK_EQ_U64(frame_sites_module(&p, "/lib/libc.so.6", 14, id1, 2, false), m1);
	CHECK_EQ_U64(frame_sites_find_file(&p, "/lib/libc.so.6", 14), m1); /* the first made */
	CHECK_EQ_U64(frame_sites_find_file(&p, "/bin/x", 6), 0);
	frame_sites_note(&p, sym(&p, "memcpy"), m1, 0x2000);
	frame_sites_note(&p, sym(&p, "memcpy"), m2, 0x9000); /* ignored: memcpy has one */
	frame_sites_note(&p, sym(&p, "strlen"), m1, 0x1000);
	const struct frame_site *s = frame_sites_get(&p, sym(&p, "memcpy"));
	CHECK(s && s->module == m1 && s->address == 0x2000);
	CHECK(frame_sites_get(&p, sym(&p, "main")) == NULL);
	const struct frame_module *m = frame_sites_module_of(&p, m1);
	CHECK(m->lo == 0x1000 && m->hi == 0x2001 && m->build_id_len == 2 && m->build_id[1] == 0xcd);
	CHECK(m->file_len == 14 && !memcmp(m->file, "/lib/libc.so.6", 14));
	profile_release(&p);
}

TEST(frame_sites_note_dso_rules)
{
	CHECK(frame_sites_runtime_module("[kernel.kallsyms]"));
	CHECK(frame_sites_runtime_module("[ext4]"));
	CHECK(frame_sites_runtime_module("/tmp/perf-42.map"));
	CHECK(!frame_sites_runtime_module("[vdso]"));
	CHECK(!frame_sites_runtime_module("/usr/bin/bash"));
	struct profile p;
	profile_init(&p);
	sym_t names[2] = { sym(&p, "a"), sym(&p, "b") };
	frame_sites_note_dso(&p, "[unknown]", 5, names, 2, NULL, NULL);
	frame_sites_note_dso(&p, "inlined", 5, names, 2, NULL, NULL);
	CHECK(!frame_sites_has(&p, names[0]) && !frame_sites_has(&p, names[1]));
	frame_sites_note_dso(&p, "[kernel.kallsyms]", 0xffffffff81000000ull, names, 2, NULL, NULL);
	const struct frame_site *s = frame_sites_get(&p, names[1]);
	CHECK(s && s->address == 0xffffffff81000000ull && frame_sites_module_of(&p, s->module)->runtime);
	profile_release(&p);
}

TEST(frame_sites_carried_by_name)
{
	struct profile src, merged, filtered;
	profile_init(&src);
	stack(&src, "proc", "f");
	stack(&src, "proc", "g");
	uint32_t m = frame_sites_module(&src, "/bin/app", 8, NULL, 0, false);
	frame_sites_note(&src, sym(&src, "f"), m, 0x1234);
	frame_sites_note(&src, sym(&src, "g"), m, 0x5678);

	profile_init(&merged);
	stack(&merged, "other", "h");
	profile_merge_under(&merged, &src, profile_push(&merged, PROFILE_ROOT, sym(&merged, "host")));
	const struct frame_site *s = frame_sites_get(&merged, sym(&merged, "g"));
	CHECK(s && s->address == 0x5678);
	CHECK(s && !strcmp(frame_sites_module_of(&merged, s->module)->file, "/bin/app"));
	CHECK(!frame_sites_has(&merged, sym(&merged, "h")));

	regex_t re;
	CHECK(stack_filter_compile(&re, "f", "--include") == 0);
	struct stack_filter flt = { &re, NULL };
	profile_init(&filtered);
	profile_filter(&filtered, &src, &flt);
	regfree(&re);
	s = frame_sites_get(&filtered, sym(&filtered, "f"));
	CHECK(s && s->address == 0x1234);
	/* g was filtered out: its name is not in the new profile, nor its site */
	CHECK(strpool_find(&filtered.names, "g", 1) == UINT32_MAX);
	profile_release(&src);
	profile_release(&merged);
	profile_release(&filtered);
}
