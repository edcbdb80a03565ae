/* The store options of record and store put (cmd/sink_args.h). */
#include "cmd/sink_args.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "store/when.h"

#include <stdlib.h>
#include <string.h>

void sink_args_add_to(struct sink_args *a, const char *url)
{
	VEC_GROW(a->to, a->nr_to + 1, a->to_alloc);
	a->to[a->nr_to++] = url;
}

void sink_args_add_label(struct sink_args *a, const char *cmd, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || strchr(arg, '\n') || strchr(arg, '\t'))
		usage_error(cmd, "--label: K=V without tabs or newlines, not '%s'", arg);
	if (a->nr_labels == 32)
		usage_error(cmd, "--label: at most 32 labels");
	VEC_GROW(a->labels, a->nr_labels + 1, a->labels_alloc);
	a->labels[a->nr_labels++] = arg;
}

bool sink_args_take(struct sink_args *a, const char *cmd, int code, const char *arg)
{
	switch (code) {
	case SINK_OPT_KEEP:
		if (when_duration(arg, &a->opts.keep_ns) || !a->opts.keep_ns)
			usage_error(cmd, "--keep: an age such as 7d or 12h, not '%s'", arg);
		return true;
	case SINK_OPT_MAX_SIZE:
		if (when_size(arg, &a->opts.max_bytes) || !a->opts.max_bytes)
			usage_error(cmd, "--max-size: a size such as 1G or 500M, not '%s'", arg);
		return true;
	case SINK_OPT_SPOOL: a->opts.spool_dir = arg; return true;
	case SINK_OPT_SPOOL_SIZE:
		if (when_size(arg, &a->opts.spool_bytes) || !a->opts.spool_bytes)
			usage_error(cmd, "--spool-size: a size such as 64M, not '%s'", arg);
		return true;
	}
	return false;
}

int sink_args_open(struct sink_args *a)
{
	a->sinks = xcalloc(a->nr_to, sizeof(*a->sinks));
	for (size_t i = 0; i < a->nr_to; i++) {
		a->sinks[i] = sink_open(a->to[i], &a->opts);
		if (!a->sinks[i]) {
			sink_args_close(a);
			return -1;
		}
	}
	return 0;
}

int sink_args_put(struct sink_args *a, const struct profile *p, const struct store_meta *m)
{
	int ret = 0;
	for (size_t i = 0; i < a->nr_to; i++)
		if (sink_put(a->sinks[i], p, m))
			ret = -1;
	return ret;
}

int sink_args_close(struct sink_args *a)
{
	int rc = 0;
	for (size_t i = 0; a->sinks && i < a->nr_to; i++) {
		if (!a->sinks[i])
			continue;
		struct sink_stats st = sink_close(a->sinks[i], false);
		if (st.spooled || st.dropped || st.failed)
			rc = 1;
		a->sinks[i] = NULL;
	}
	free(a->sinks);
	a->sinks = NULL;
	return rc;
}

int sink_args_put_all(struct sink_args *a, const struct profile *p, const struct store_meta *m)
{
	if (sink_args_open(a))
		return 1;
	int put = sink_args_put(a, p, m);
	int rc = sink_args_close(a);
	return put ? 1 : rc;
}

void sink_args_release(struct sink_args *a)
{
	free(a->to);
	free(a->labels);
	free(a->sinks);
}
