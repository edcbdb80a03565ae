/* Unit tests for profile/ops: stack filters, reversal, chain preprocessing. */
#include "harness.h"

#include "profile/folded.h"
#include "profile/ops.h"

#include <stdlib.h>
#include <string.h>

static void load(struct profile *p, const char *text)
{
	profile_init(p);
	struct folded_opts fo = { .max_warnings = -1 };
	folded_parse(p, "t", text, strlen(text), &fo, NULL);
}

static char *dump(const struct profile *p)
{
	struct out *o = out_open_mem();
	folded_write(p, o);
	return out_mem_detach(o, NULL);
}

TEST(filter_include_exclude)
{
	struct profile p, q;
	load(&p, "main;idle;cpu_idle 50\nmain;work;a 3\nmain;work;b 2\nother 1\n");
	regex_t inc, exc;
	REQUIRE(stack_filter_compile(&inc, "^main;", "--include") == 0);
	REQUIRE(stack_filter_compile(&exc, "cpu_idle", "--exclude") == 0);
	struct stack_filter f = { &inc, &exc };
	profile_init(&q);
	profile_filter(&q, &p, &f);
	char *s = dump(&q);
	CHECK_STR(s, "main;work;a 3\nmain;work;b 2\n");
	free(s);
	profile_release(&q);
	/* exclude only */
	f.include = NULL;
	profile_init(&q);
	profile_filter(&q, &p, &f);
	s = dump(&q);
	CHECK_STR(s, "main;work;a 3\nmain;work;b 2\nother 1\n");
	free(s);
	profile_release(&q);
	regfree(&inc);
	regfree(&exc);
	profile_release(&p);
	regex_t bad;
	CHECK(stack_filter_compile(&bad, "(", "--include") == -1);
}

TEST(filter_keeps_events_and_differential)
{
	struct profile p, q;
	profile_init(&p);
	p.keep_events = true;
	const char *text = "a;x 1 2\nb;y 3 4\na;x 5 6\n";
	struct folded_opts fo = { .max_warnings = -1 };
	folded_parse(&p, "t", text, strlen(text), &fo, NULL);
	regex_t inc;
	REQUIRE(stack_filter_compile(&inc, "^a", "--include") == 0);
	struct stack_filter f = { &inc, NULL };
	profile_init(&q);
	profile_filter(&q, &p, &f);
	CHECK(q.differential);
	REQUIRE(q.events_nr == 2);
	CHECK(profile_event_count(&q, &q.events[0], 0) == 1 && profile_event_count(&q, &q.events[1], 1) == 6);
	CHECK(q.events[0].leaf == q.events[1].leaf);
	regfree(&inc);
	profile_release(&q);
	profile_release(&p);
}

TEST(reverse_stacks)
{
	struct profile p, q;
	load(&p, "a;b;c 2\na;b 1\n");
	profile_init(&q);
	profile_reverse(&q, &p);
	char *s = dump(&q);
	CHECK_STR(s, "b;a 1\nc;b;a 2\n");
	free(s);
	profile_release(&q);
	profile_release(&p);
}

TEST(chain_annotates_wakers)
{
	/* flamegraph.pl --colors=chain: frames after the first ";--;" get
	 * _[w]; a stack without one gets a "--" leaf. */
	struct profile p, q;
	load(&p, "sleep;schedule;--;waker;wake_up 4\nplain;work 1\n");
	profile_init(&q);
	profile_chain(&q, &p);
	char *s = dump(&q);
	CHECK_STR(s, "plain;work;-- 1\nsleep;schedule;--;waker_[w];wake_up_[w] 4\n");
	free(s);
	profile_release(&q);
	profile_release(&p);
}
