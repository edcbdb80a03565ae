/* The Pyroscope sink: each interval's pprof pushed to the server's
 * /ingest endpoint (format=pprof, the profile as the multipart field
 * "profile", name carrying the labels in braces, from/until in Unix
 * seconds), as Pyroscope's server API reference describes it. Checked
 * against that description only: no Pyroscope server runs here. An
 * interval the server does not take is counted failed (no spool). */
#include "store/http.h"
#include "store/store.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "render/pprof.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pyroscope's default limits (doc/fleet.md). */
enum { PYRO_MAX_SAMPLES = 16000, PYRO_MAX_BYTES = 4 << 20 };

struct pyro {
	char *base; /* http://HOST:PORT */
	struct http *http;
};

static int pyro_open(struct sink *s, const char *url, const struct sink_opts *o)
{
	(void)o;
	const char *p = url + strlen("pyroscope://");
	size_t n = strcspn(p, "/?#");
	if (!n)
		return error("%s: no server named (pyroscope://HOST:PORT)", url);
	if (memchr(p, '@', n))
		return error("%s: no credentials in the URL", url);
	struct pyro *k = xcalloc(1, sizeof(*k));
	k->base = xmalloc(n + 16);
	sprintf(k->base, "http://%.*s", (int)n, p);
	if (!(k->http = http_new())) {
		free(k->base);
		free(k);
		return error("%s: libcurl could not start", url);
	}
	s->state = k;
	return 0;
}

/* A label value as Pyroscope's name syntax allows: no , = { } or spaces. */
static void add_clean(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		out_putc(o, strchr(",={} \t\n\r\"", c) || (unsigned char)c < 0x20 ? '_' : c);
	}
}

/* name=scorch.EVENT{host=H,k=v,...} */
static char *app_name(const struct store_meta *m)
{
	struct out *o = out_open_mem();
	out_puts(o, "scorch.");
	add_clean(o, m->event && *m->event ? m->event : "cpu", strlen(m->event && *m->event ? m->event : "cpu"));
	out_puts(o, "{host=");
	add_clean(o, m->host, strlen(m->host));
	for (size_t i = 0; i < m->nr_labels; i++) {
		const char *eq = strchr(m->labels[i], '=');
		out_putc(o, ',');
		add_clean(o, m->labels[i], (size_t)(eq - m->labels[i]));
		out_putc(o, '=');
		add_clean(o, eq + 1, strlen(eq + 1));
	}
	out_putc(o, '}');
	size_t len;
	char *s = out_mem_detach(o, &len);
	return s;
}

static int pyro_put(struct sink *s, const struct profile *p, const struct store_meta *m)
{
	struct pyro *k = s->state;
	size_t stacks = 0;
	for (node_t i = 1; i < p->nr; i++)
		stacks += profile_self(p, i, 0) != 0;
	if (stacks > PYRO_MAX_SAMPLES)
		warn("%s: an interval of %zu stacks: a default server takes %d", s->url, stacks, PYRO_MAX_SAMPLES);
	struct out *o = out_open_mem();
	pprof_write(o, p,
		    &(struct pprof_opts){ .count_unit = m->unit,
					  .period_ns = m->rate_hz ? 1e9 / m->rate_hz : 0,
					  .time_ns = (int64_t)m->start_ns,
					  .duration_ns = (int64_t)(m->end_ns - m->start_ns) });
	size_t len;
	char *body = out_mem_detach(o, &len);
	char *name = app_name(m), *qname = http_escape(name, strlen(name));
	char *url = xmalloc(strlen(k->base) + strlen(qname) + 160);
	sprintf(url, "%s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64 "&format=pprof&sampleRate=%" PRIu32
		     "&spyName=scorch",
		k->base, qname, m->start_ns / 1000000000u, (m->end_ns + 999999999u) / 1000000000u,
		m->rate_hz ? m->rate_hz : 100);
	struct http_reply r;
	int ret = http_post_form(k->http, url, "profile", "profile.pb.gz", body, len, &r);
	if (ret) {
		ret = error("%s: server not reachable: %s", s->url, r.error);
	} else if (r.status < 200 || r.status > 299) {
		char msg[400];
		http_printable(r.body, r.len, msg, 300);
		ret = error("%s: the server refused (HTTP %ld): %s", s->url, r.status, msg);
	} else {
		s->stats.sent++;
	}
	http_reply_release(&r);
	free(url);
	free(qname);
	free(name);
	free(body);
	return ret;
}

static void pyro_close(struct sink *s)
{
	struct pyro *k = s->state;
	http_free(k->http);
	free(k->base);
	free(k);
}

const struct sink_ops pyroscope_sink_ops = { "pyroscope", pyro_open, pyro_put, pyro_close };
