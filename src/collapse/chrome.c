/* Chrome / V8 profiles in JSON, two kinds:
 *
 * .cpuprofile (DevTools "Save profile", node --cpu-prof, the
 * Profiler.stop result): {"nodes":[{"id":1,"callFrame":{"functionName":..,
 * "url":..,"lineNumber":..},"hitCount":N,"children":[ids]},...],
 * "samples":[ids],"timeDeltas":[..]}. Each sample counts one for its node's
 * stack (hitCount when there are no samples). A frame is "function url:line"
 * (line 1-based) or the function alone when there is no url; an empty
 * function name is "(anonymous)"; the "(root)" node is not a frame. Nodes
 * may give their parent with "parent" instead of "children".
 *
 * Trace Event Format (chrome://tracing, Perfetto, many tracers): an array of
 * events or {"traceEvents":[...]}. As stackcollapse-chrome-tracing.py does,
 * complete events (ph "X" with a dur) of each pid/tid nest by time and each
 * stack gets its self time (its duration minus its children's), in the
 * trace's unit (microseconds); counts are not rounded. B/E pairs are read
 * too, as complete events from B to the matching E (the script ignores
 * them). No pid/tid frame is added, as in the script. When the trace
 * holds V8 CPU profile samples ("ProfileChunk" events, as DevTools
 * Performance recordings do), those samples are collapsed instead, like a
 * .cpuprofile: sample counts and task durations do not mix. */
#include "collapse/common.h"

#include "base/alloc.h"
#include "collapse/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- .cpuprofile, and V8 profiles inside traces ---- */

struct cp_node {
	uint32_t prof;    /* which profile (one per .cpuprofile; per pid/id in a trace) */
	double id;
	json_id json;
	size_t parent;    /* index + 1, 0 = none */
	node_t pnode;     /* profile node, once known */
	bool done;
	double hits;
};

struct cp_sample {
	uint32_t prof;
	double id;
};

struct cp_set {
	struct cp_node *nodes;
	size_t n, alloc;
	struct cp_sample *samples;
	size_t ns, salloc;
};

static int cmp_id(const void *a, const void *b)
{
	const struct cp_node *x = a, *y = b;
	if (x->prof != y->prof)
		return (x->prof > y->prof) - (x->prof < y->prof);
	return (x->id > y->id) - (x->id < y->id);
}

static size_t find_node(const struct cp_set *set, uint32_t prof, double id)
{
	if (!set->n)
		return 0;
	struct cp_node key = { .prof = prof, .id = id };
	struct cp_node *hit = bsearch(&key, set->nodes, set->n, sizeof(*set->nodes), cmp_id);
	return hit ? (size_t)(hit - set->nodes) + 1 : 0;
}

static sym_t frame_name(struct profile *p, const struct json_doc *d, json_id node, struct cx_buf *b)
{
	json_id cf = json_get(d, node, "callFrame");
	json_id fn = json_get(d, cf, "functionName");
	json_id url = json_get(d, cf, "url");
	json_id line = json_get(d, cf, "lineNumber");
	b->n = 0;
	if (json_is(d, fn, JSON_STRING) && d->v[fn].len)
		cx_buf_add(b, d->v[fn].str, d->v[fn].len);
	else
		cx_buf_adds(b, "(anonymous)");
	if (json_is(d, url, JSON_STRING) && d->v[url].len) {
		cx_buf_addc(b, ' ');
		cx_buf_add(b, d->v[url].str, d->v[url].len);
		double ln;
		if (json_number(d, line, &ln) && ln >= 0 && ln < 1e15) {
			char tmp[32];
			snprintf(tmp, sizeof(tmp), ":%.0f", ln + 1);
			cx_buf_adds(b, tmp);
		}
	}
	return profile_sym(p, b->s, b->n);
}

static bool is_root_frame(const struct json_doc *d, json_id node)
{
	json_id fn = json_get(d, json_get(d, node, "callFrame"), "functionName");
	return json_is(d, fn, JSON_STRING) && !strcmp(d->v[fn].str, "(root)");
}

/* Profile node of nodes[i-1], walking up to the first known ancestor. */
static int resolve(struct profile *p, const struct json_doc *d, struct cp_set *set, size_t i,
		   struct cx_buf *b, size_t **path, size_t *palloc, struct cx_diag *diag)
{
	struct cp_node *nodes = set->nodes;
	size_t np = 0;
	for (size_t k = i; k && !nodes[k - 1].done; k = nodes[k - 1].parent) {
		if (np > set->n)
			return cx_fatal(diag, 1, "cpuprofile: the node tree has a cycle (node id %.0f)",
					nodes[i - 1].id);
		VEC_GROW(*path, np + 1, *palloc);
		(*path)[np++] = k;
	}
	while (np) {
		size_t k = (*path)[--np];
		struct cp_node *c = &nodes[k - 1];
		node_t parent = c->parent ? nodes[c->parent - 1].pnode : PROFILE_ROOT;
		if (!c->parent && is_root_frame(d, c->json))
			c->pnode = PROFILE_ROOT;
		else
			c->pnode = profile_push(p, parent, frame_name(p, d, c->json, b));
		c->done = true;
	}
	return 0;
}

/* Add the nodes of one "nodes" array to profile `prof`. */
static int add_nodes(struct cp_set *set, const struct json_doc *d, json_id arr, uint32_t prof,
		     struct cx_diag *diag)
{
	size_t k = 0;
	for (json_id c = json_is(d, arr, JSON_ARRAY) ? d->v[arr].first : 0; c; c = d->v[c].next, k++) {
		double id;
		if (!json_is(d, c, JSON_OBJECT) || !json_number(d, json_get(d, c, "id"), &id))
			return cx_fatal(diag, 1, "cpuprofile: node %zu has no numeric \"id\"", k);
		double hits = 0;
		json_number(d, json_get(d, c, "hitCount"), &hits);
		VEC_GROW(set->nodes, set->n + 1, set->alloc);
		set->nodes[set->n++] = (struct cp_node){ .prof = prof, .id = id, .json = c, .hits = hits };
	}
	return 0;
}

static void add_samples(struct cp_set *set, const struct json_doc *d, json_id arr, uint32_t prof)
{
	for (json_id s = json_is(d, arr, JSON_ARRAY) ? d->v[arr].first : 0; s; s = d->v[s].next) {
		double id = -1;
		json_number(d, s, &id);
		VEC_GROW(set->samples, set->ns + 1, set->salloc);
		set->samples[set->ns++] = (struct cp_sample){ prof, id };
	}
}

/* Sort the nodes, link parents (from "children" or "parent"), then count
 * the samples, or the hitCounts when there are none. */
static int count_profiles(struct profile *p, const struct json_doc *d, struct cp_set *set,
			  struct cx_diag *diag)
{
	struct cp_node *nodes = set->nodes;
	size_t n = set->n;
	if (n)
		qsort(nodes, n, sizeof(*nodes), cmp_id);
	for (size_t i = 1; i < n; i++)
		if (nodes[i].prof == nodes[i - 1].prof && nodes[i].id == nodes[i - 1].id)
			return cx_fatal(diag, 1, "cpuprofile: node id %.0f appears twice", nodes[i].id);
	for (size_t i = 0; i < n; i++) {
		json_id kids = json_get(d, nodes[i].json, "children");
		for (json_id c = json_is(d, kids, JSON_ARRAY) ? d->v[kids].first : 0; c; c = d->v[c].next) {
			double cid;
			size_t ci = json_number(d, c, &cid) ? find_node(set, nodes[i].prof, cid) : 0;
			if (!ci)
				return cx_fatal(diag, 1, "cpuprofile: node %.0f lists an unknown child",
						nodes[i].id);
			nodes[ci - 1].parent = i + 1;
		}
		double pid;
		if (json_number(d, json_get(d, nodes[i].json, "parent"), &pid)) {
			size_t pi = find_node(set, nodes[i].prof, pid);
			if (!pi)
				return cx_fatal(diag, 1, "cpuprofile: node %.0f has an unknown parent",
						nodes[i].id);
			nodes[i].parent = pi;
		}
	}
	struct cx_buf b = { 0 };
	size_t *path = NULL, palloc = 0;
	int ret = 0;
	if (set->ns) {
		for (size_t s = 0; s < set->ns && !ret; s++) {
			size_t si = find_node(set, set->samples[s].prof, set->samples[s].id);
			if (!si) {
				ret = cx_bad(diag, 1, "cpuprofile: a sample names an unknown node");
				continue;
			}
			ret = resolve(p, d, set, si, &b, &path, &palloc, diag);
			if (!ret)
				profile_count(p, nodes[si - 1].pnode, 1);
		}
	} else {
		for (size_t i = 0; i < n && !ret; i++) {
			if (!(nodes[i].hits > 0))
				continue;
			ret = resolve(p, d, set, i + 1, &b, &path, &palloc, diag);
			if (!ret)
				profile_count(p, nodes[i].pnode, nodes[i].hits);
		}
	}
	cx_buf_release(&b);
	free(path);
	return ret;
}

static void cp_set_release(struct cp_set *set)
{
	free(set->nodes);
	free(set->samples);
	memset(set, 0, sizeof(*set));
}

static int parse_cpuprofile(struct profile *p, const struct json_doc *d, json_id root,
			    struct cx_diag *diag)
{
	struct cp_set set = { 0 };
	int ret = add_nodes(&set, d, json_get(d, root, "nodes"), 0, diag);
	if (!ret) {
		add_samples(&set, d, json_get(d, root, "samples"), 0);
		ret = count_profiles(p, d, &set, diag);
	}
	cp_set_release(&set);
	return ret;
}

/* V8's sampling profiler inside a trace (DevTools Performance recordings,
 * category disabled-by-default-v8.cpu_profiler): "ProfileChunk" events of
 * one profile (same pid and id) carry new nodes (with "parent") and
 * samples. Returns 1 when the trace has such samples and they were read. */
static int parse_trace_profiles(struct profile *p, const struct json_doc *d, json_id events,
				struct cx_diag *diag)
{
	struct cp_set set = { 0 };
	struct { double pid; json_id id; } *profs = NULL;
	size_t nprofs = 0, palloc = 0;
	int ret = 0;
	for (json_id e = d->v[events].first; e && !ret; e = d->v[e].next) {
		json_id name = json_get(d, e, "name");
		if (!json_is(d, name, JSON_STRING) || strcmp(d->v[name].str, "ProfileChunk"))
			continue;
		json_id cpu = json_get(d, json_get(d, json_get(d, e, "args"), "data"), "cpuProfile");
		if (!json_is(d, cpu, JSON_OBJECT))
			continue;
		double pid = 0;
		json_number(d, json_get(d, e, "pid"), &pid);
		json_id id = json_get(d, e, "id");
		const char *ids = json_is(d, id, JSON_STRING) || json_is(d, id, JSON_NUMBER) ? d->v[id].str : "";
		uint32_t prof = 0;
		while (prof < nprofs) {
			json_id pi = profs[prof].id;
			const char *ps = pi ? d->v[pi].str : "";
			if (profs[prof].pid == pid && !strcmp(ps, ids))
				break;
			prof++;
		}
		if (prof == nprofs) {
			VEC_GROW(profs, nprofs + 1, palloc);
			profs[nprofs].pid = pid;
			profs[nprofs].id = id;
			nprofs++;
		}
		ret = add_nodes(&set, d, json_get(d, cpu, "nodes"), prof, diag);
		add_samples(&set, d, json_get(d, cpu, "samples"), prof);
	}
	if (!ret && set.ns)
		ret = count_profiles(p, d, &set, diag) ? -1 : 1;
	cp_set_release(&set);
	free(profs);
	return ret;
}

/* ---- Trace Event Format ---- */

struct tev {
	double pid, tid, ts, dur;
	sym_t name;
	size_t seq; /* input order, for a stable sort */
};

static int tev_cmp(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;
	/* Threads in order of first appearance are not needed: output is
	 * sorted. Group by thread, then time, then input order. */
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A B or E event, matched per thread after sorting. */
struct be_event {
	double pid, tid, ts;
	size_t seq;
	sym_t name;
	bool begin;
};

static int be_cmp(const void *a, const void *b)
{
	const struct be_event *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct frame {
	double stop, self;
	node_t node;
};

static int parse_trace(struct profile *p, const struct json_doc *d, json_id events,
		       struct cx_diag *diag)
{
	int prof = parse_trace_profiles(p, d, events, diag);
	if (prof)
		return prof < 0 ? -1 : 0;

	struct tev *ev = NULL;
	size_t n = 0, alloc = 0, seq = 0, skipped = 0, unended = 0;
	struct be_event *be = NULL;
	size_t nbe = 0, bealloc = 0;
	for (json_id e = d->v[events].first; e; e = d->v[e].next, seq++) {
		json_id ph = json_get(d, e, "ph");
		if (!json_is(d, ph, JSON_STRING) || d->v[ph].len != 1)
			continue;
		char kind = d->v[ph].str[0];
		if (kind != 'X' && kind != 'B' && kind != 'E')
			continue;
		double pid, tid, ts, dur = 0;
		json_id name = json_get(d, e, "name");
		if (!json_number(d, json_get(d, e, "pid"), &pid) ||
		    !json_number(d, json_get(d, e, "tid"), &tid) ||
		    !json_number(d, json_get(d, e, "ts"), &ts) ||
		    (kind != 'E' && !json_is(d, name, JSON_STRING))) {
			skipped++;
			continue;
		}
		if (kind != 'X') {
			sym_t sym = kind == 'B' ? profile_sym(p, d->v[name].str, d->v[name].len) : 0;
			VEC_GROW(be, nbe + 1, bealloc);
			be[nbe++] = (struct be_event){ pid, tid, ts, seq, sym, kind == 'B' };
			continue;
		}
		if (!json_number(d, json_get(d, e, "dur"), &dur))
			continue; /* as the script: X without dur is skipped */
		VEC_GROW(ev, n + 1, alloc);
		ev[n++] = (struct tev){ pid, tid, ts, dur, profile_sym(p, d->v[name].str, d->v[name].len), seq };
	}
	/* B/E pairs: per thread in input order, an E ends the latest open B. */
	if (nbe)
		qsort(be, nbe, sizeof(*be), be_cmp);
	size_t *open = NULL, no = 0, oalloc = 0;
	for (size_t i = 0; i < nbe; i++) {
		if (i && (be[i].pid != be[i - 1].pid || be[i].tid != be[i - 1].tid)) {
			unended += no;
			no = 0;
		}
		if (be[i].begin) {
			VEC_GROW(open, no + 1, oalloc);
			open[no++] = i;
			continue;
		}
		if (!no) {
			skipped++;
			continue;
		}
		const struct be_event *b = &be[open[--no]];
		VEC_GROW(ev, n + 1, alloc);
		ev[n++] = (struct tev){ b->pid, b->tid, b->ts, be[i].ts - b->ts, b->name, b->seq };
	}
	unended += no;
	if (skipped || unended)
		warn("%s: skipped %zu trace events without pid/tid/ts/name or an unmatched E, "
		     "%zu B events never ended", diag->name, skipped, unended);
	if (n)
		qsort(ev, n, sizeof(*ev), tev_cmp);

	/* Per thread: a stack of open events; a new event first closes those
	 * that stopped at or before its start, then takes its duration off
	 * its parent's self time. */
	struct frame *st = NULL;
	size_t depth = 0, salloc = 0;
	for (size_t i = 0; i <= n; i++) {
		bool new_thread = i == n || i == 0 || ev[i].pid != ev[i - 1].pid || ev[i].tid != ev[i - 1].tid;
		while (depth && (new_thread || st[depth - 1].stop <= ev[i].ts)) {
			depth--;
			profile_count(p, st[depth].node, st[depth].self);
		}
		if (i == n)
			break;
		if (depth)
			st[depth - 1].self -= ev[i].dur;
		node_t parent = depth ? st[depth - 1].node : PROFILE_ROOT;
		VEC_GROW(st, depth + 1, salloc);
		st[depth++] = (struct frame){ ev[i].ts + ev[i].dur, ev[i].dur,
					      profile_push(p, parent, ev[i].name) };
	}
	free(st);
	free(ev);
	free(be);
	free(open);
	return 0;
}

static bool lit_at(const char *s, size_t m, size_t k, const char *lit)
{
	size_t l = strlen(lit);
	return k + l <= m && !memcmp(s + k, lit, l);
}

static int probe(const char *head, size_t n)
{
	size_t i = 0;
	if (n >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < n && cx_is_space(head[i]))
		i++;
	if (i >= n || (head[i] != '{' && head[i] != '['))
		return 0;
	const char *s = head + i;
	size_t m = n - i;
	bool trace = false, nodes = false, frame = false, ph = false;
	for (size_t k = 0; k < m; k++) {
		if (s[k] != '"')
			continue;
		if (lit_at(s, m, k, "\"traceEvents\""))
			trace = true;
		else if (lit_at(s, m, k, "\"nodes\""))
			nodes = true;
		else if (lit_at(s, m, k, "\"callFrame\""))
			frame = true;
		else if (lit_at(s, m, k, "\"ph\""))
			ph = true;
	}
	if (trace || (nodes && frame))
		return 90;
	return s[0] == '[' && ph ? 80 : 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct json_doc doc;
	int ret = json_parse(&doc, d.name, src->data, src->len);
	if (!ret) {
		json_id root = doc.root;
		json_id te = json_get(&doc, root, "traceEvents");
		if (json_is(&doc, root, JSON_ARRAY))
			ret = parse_trace(p, &doc, root, &d);
		else if (json_is(&doc, te, JSON_ARRAY))
			ret = parse_trace(p, &doc, te, &d);
		else if (json_is(&doc, json_get(&doc, root, "nodes"), JSON_ARRAY))
			ret = parse_cpuprofile(p, &doc, root, &d);
		else
			ret = cx_fatal(&d, 1, "neither a .cpuprofile (\"nodes\") nor trace events "
					      "(\"traceEvents\" or a top-level array)");
	}
	json_release(&doc);
	return ret;
}

const struct collapse_format collapse_format_chrome = {
	.name = "chrome",
	.description = "Chrome/V8 .cpuprofile and Trace Event Format JSON",
	.probe = probe,
	.parse = parse,
};
