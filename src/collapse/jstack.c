/* Repeated jstack(1) thread dumps (stackcollapse-jstack.pl):
 *
 *   "worker-1" #13 prio=5 os_prio=0 cpu=1.2s tid=0x00007f... nid=0x5880 runnable
 *      java.lang.Thread.State: RUNNABLE
 *           at Busy.leaf(Busy.java:3)
 *           at Busy.middle(Busy.java:4)
 *
 * Each RUNNABLE thread of each dump counts once, as
 * "thread-name;outermost;...;innermost" (a trailing "-NUMBER" is dropped
 * from the name, as the script's default does). Threads that are runnable
 * but not running are left out as the script leaves them out: JIT compiler,
 * signal dispatcher, service and attach-listener threads, epollWait, and
 * blocking socket accept/read. A thread's stack ends at a blank line.
 * Lines that are neither thread headers, states nor frames (the dump's
 * banner, SMR info, lock notes) carry no stack and are skipped without
 * a message; the Perl script warns about the ones it does not know. */
#include "collapse/common.h"

#include "base/lines.h"

enum state { ST_UNKNOWN, ST_RUNNABLE, ST_OTHER };

static bool contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return true;
	return false;
}

/* The script's /C. CompilerThread/: any character before " CompilerThread"
 * preceded by 'C'. */
static bool compiler_thread(const char *s, size_t n)
{
	for (size_t i = 0; i + 17 <= n; i++)
		if (s[i] == 'C' && !memcmp(s + i + 2, " CompilerThread", 15))
			return true;
	return false;
}

/* /Socket.*accept0$/ */
static bool socket_accept0(const char *s, size_t n)
{
	if (!cx_ends(s, n, "accept0"))
		return false;
	for (size_t i = 0; i + 6 + 7 <= n; i++)
		if (!memcmp(s + i, "Socket", 6))
			return true;
	return false;
}

/* "java.lang.Thread.State: WORD" anywhere in the line (the script's '.'
 * matches any character). */
static bool thread_state(const char *s, size_t n, const char **w, size_t *wl)
{
	static const char key[] = "java.lang.Thread.State: ";
	size_t k = sizeof(key) - 1;
	for (size_t i = 0; i + k < n; i++) {
		bool m = true;
		for (size_t j = 0; j < k && m; j++)
			m = key[j] == '.' || s[i + j] == key[j];
		if (!m)
			continue;
		size_t a = i + k, b = a;
		while (b < n && !cx_is_space(s[b]))
			b++;
		if (b == a)
			continue;
		*w = s + a;
		*wl = b - a;
		return true;
	}
	return false;
}

struct jstack_state {
	struct profile *p;
	struct cx_stack rev; /* innermost first, as printed */
	sym_t pname;
	bool have_pname;
	enum state state;
};

static void end_thread(struct jstack_state *st)
{
	if (st->state == ST_RUNNABLE && (st->rev.n || st->have_pname)) {
		node_t node = PROFILE_ROOT;
		if (st->have_pname)
			node = profile_push(st->p, node, st->pname);
		for (size_t i = st->rev.n; i-- > 0;)
			node = profile_push(st->p, node, st->rev.syms[i]);
		profile_count(st->p, node, 1);
	}
	st->rev.n = 0;
	st->have_pname = false;
	st->state = ST_UNKNOWN;
}

static int probe(const char *head, size_t n)
{
	struct lines it;
	const char *line, *w;
	size_t len, wl;
	bool header = false, state = false;
	lines_init(&it, head, n);
	while (lines_next(&it, &line, &len)) {
		if (len && line[0] == '"' && contains(line, len, " tid=0x"))
			header = true;
		else if (thread_state(line, len, &w, &wl))
			state = true;
		if (header && state)
			return 90;
	}
	return 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	(void)opts;
	struct jstack_state st = { .p = p, .state = ST_UNKNOWN };
	struct lines it;
	const char *line, *w;
	size_t len, wl;
	lines_init(&it, src->data, src->len);
	while (lines_next(&it, &line, &len)) {
		if (len && line[0] == '#')
			continue;
		if (!len) {
			end_thread(&st);
			continue;
		}
		if (line[0] == '"') {
			const char *q = memchr(line + 1, '"', len - 1);
			const char *name = line + 1;
			size_t nl = q ? (size_t)(q - name) : len - 1;
			size_t pl = nl;
			/* s/-\d+$// */
			size_t d = pl;
			while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
				d--;
			if (d < pl && d > 0 && name[d - 1] == '-')
				pl = d - 1;
			st.pname = profile_sym(p, name, pl);
			st.have_pname = true;
			if (compiler_thread(name, nl) || contains(name, nl, "Signal Dispatcher") ||
			    contains(name, nl, "Service Thread") || contains(name, nl, "Attach Listener"))
				st.state = ST_OTHER;
			continue;
		}
		if (thread_state(line, len, &w, &wl)) {
			if (st.state == ST_UNKNOWN)
				st.state = wl == 8 && !memcmp(w, "RUNNABLE", 8) ? ST_RUNNABLE : ST_OTHER;
			continue;
		}
		const char *s = line;
		size_t n = len;
		cx_trim_start(&s, &n);
		if (n >= 3 && !memcmp(s, "at ", 3)) {
			const char *f = s + 3;
			const char *paren = memchr(f, '(', n - 3);
			size_t fl = paren ? (size_t)(paren - f) : n - 3;
			cx_stack_push(&st.rev, profile_sym(p, f, fl));
			if (contains(f, fl, "epollWait") || cx_ends(f, fl, "socketAccept") ||
			    socket_accept0(f, fl) || cx_ends(f, fl, "socketRead0"))
				st.state = ST_OTHER;
		}
		/* anything else: dump banner, SMR info, "- locked <...>", ... */
	}
	/* As the script, a thread not followed by a blank line is not counted. */
	cx_stack_release(&st.rev);
	return 0;
}

const struct collapse_format collapse_format_jstack = {
	.name = "jstack",
	.description = "repeated jstack thread dumps (RUNNABLE threads, stackcollapse-jstack.pl)",
	.probe = probe,
	.parse = parse,
};
