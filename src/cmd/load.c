/* Any input into a profile (cmd/load.h). */
#include "cmd/load.h"
#include "cmd/load_store.h"

#include "cmd/time_arg.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"
#include "base/out.h"
#include "collapse/collapse.h"
#include "collapse/perf_script.h"
#include "perfdata/fold.h"
#include "perfdata/sample_span.h"
#include "profile/folded.h"
#include "profile/folded_stream.h"
#include "profile/ops.h"
#include "profile/time_cells.h"
#include "profile/time_ranges.h"
#include "render/graph.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct collapse_format collapse_format_perf;

static int load_data(struct profile *p, const struct input *in, const char *sample_index, const char **unit,
		     struct time_ranges *ranges, const char *cmd)
{
	if (unit)
		*unit = "samples";
	if (in->len >= 8 && !memcmp(in->data, "PERFILE2", 8)) {
		/* sites: a pprof written from it (merge) keeps the Mappings */
		struct report_opts ro = { .quiet = true, .sites = true, .ranges = ranges, .time = ranges };
		if (ranges) {
			struct perf_data_span span;
			int found = perf_data_sample_span(in->name, in->data, in->len, &span);
			if (found < 0)
				return -1;
			if (!found)
				usage_error(cmd, "--time %s: %s has no sample times", ranges->text, in->name);
			if (span.epoch_known)
				time_ranges_set_epoch(ranges, span.epoch_offset);
			time_arg_resolve(cmd, ranges, span.first, span.last);
		}
		struct report_stats st = { 0 };
		int ret = report_fold(in->name, in->data, in->len, &ro, p, &st);
		if (unit && st.count_unit)
			*unit = st.count_unit;
		return ret;
	}
	if (in->len >= 8 && !memcmp(in->data, "SCCOUNT1", 8)) { /* a directory store's interval */
		if (ranges)
			usage_error(cmd, "--time %s: %s carries no sample times (a store keeps one aggregate per "
				    "interval)", ranges->text, in->name);
		return store_dir_interval(p, in->name, in->data, in->len);
	}
	const struct collapse_format *fmt = in->len ? collapse_detect(in->data, in->len) : NULL;
	struct collapse_opts co = { .sample_index = sample_index, .unit = unit, .time_ranges = ranges };
	if (ranges && fmt != &collapse_format_perf)
		usage_error(cmd, "--time %s: %s carries no sample times (perf.data and perf script text do)",
			    ranges->text, in->name);
	if (!fmt || !strcmp(fmt->name, "folded")) {
		struct folded_opts fo = { 0 };
		struct folded_stats st = { 0 };
		return folded_parse(p, in->name, in->data, in->len, &fo, &st);
	}
	if (fmt == &collapse_format_perf) {
		struct perf_input pi = { in->name, in->data, in->len, false };
		int ret = perf_collapse(p, &pi, 1, &co);
		if (ret)
			time_arg_check(cmd, ranges);
		else if (p->overflow) /* a period, or a stack's periods, past 2^64 - 1 */
			ret = error("%s: the counts of one stack pass 2^64 - 1", in->name);
		return ret;
	}
	struct collapse_source src = { in->name, in->data, in->len };
	return fmt->parse(p, &src, &co);
}

int load_profile(struct profile *p, const char *path, const char *sample_index, const char **unit)
{
	return load_profile_in(p, path, sample_index, unit, NULL, NULL);
}

int load_profile_in(struct profile *p, const char *path, const char *sample_index, const char **unit,
		    struct time_ranges *ranges, const char *cmd)
{
	if (load_is_store(path) && !ranges)
		return load_store(p, path, unit);
	struct input in;
	if (input_load(&in, path && strcmp(path, "-") ? path : NULL))
		return -1;
	int ret = load_data(p, &in, sample_index, unit, ranges, cmd);
	input_release(&in);
	return ret;
}

int save_profile(const struct profile *p, const char *output, enum graph_format format, const char *unit)
{
	enum graph_format f = format ? format : graph_format_for_path(output);
	struct out *o = out_open(output);
	if (!o)
		return -1;
	if (graph_format_is_data(f))
		graph_write_data(o, p, f, &(struct pprof_opts){ .count_unit = unit });
	else
		folded_write(p, o);
	return out_commit(o) ? -1 : 0;
}

/* ---- flamegraph's reader: folded text streamed --------------------------- */

enum { CHUNK = 1 << 20 }; /* a read buffer that stays in the caches; detection reads 64 KiB */

/* Read until buf holds `want` bytes or EOF; returns bytes now held or -1. */
static ssize_t fill(int fd, const char *name, char *buf, size_t have, size_t want)
{
	while (have < want) {
		ssize_t r = read(fd, buf + have, want - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read '%s': %s", name, strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	return (ssize_t)have;
}

/* --time on an input without sample times: the ranges say why (a usage
 * error of the command, time_arg_check). */
static int no_times(const struct stacks_opts *o, const char *name)
{
	snprintf(o->time_ranges->why, sizeof(o->time_ranges->why),
		 "%s carries no sample times (perf script text does)", name);
	o->time_ranges->bad = true;
	return -1;
}

/* A non-folded (or compressed) input: the whole of it, then the detected
 * collapse format. */
static int read_whole(struct profile *p, int fd, const char *name, char *buf, size_t have,
		      const struct collapse_format *fmt, const struct stacks_opts *o)
{
	size_t alloc = CHUNK;
	if (input_read_rest(fd, name, &buf, &have, &alloc)) {
		free(buf);
		return -1;
	}
	char *data = buf;
	size_t len = have;
	if (input_compressed(buf, have)) {
		char *plain;
		size_t plain_len;
		if (input_decompress(name, buf, have, &plain, &plain_len) < 0) {
			free(buf);
			return -1;
		}
		free(buf);
		data = buf = plain;
		len = plain_len;
		if (!fmt)
			fmt = collapse_detect(data, len);
	}
	int ret;
	if (len >= 8 && !memcmp(data, "SCCOUNT1", 8) && !o->time_ranges && !o->reverse) {
		ret = store_dir_interval(p, name, data, len); /* a directory store's interval */
	} else if ((!fmt || !strcmp(fmt->name, "folded")) && o->time_ranges) {
		ret = no_times(o, name);
	} else if (!fmt || !strcmp(fmt->name, "folded")) {
		struct folded_opts fo = { .reverse = o->reverse };
		ret = folded_parse(p, name, data, len, &fo, NULL);
	} else {
		struct profile tmp;
		profile_init(&tmp);
		tmp.keep_events = p->keep_events;
		if (p->time)
			profile_keep_time(&tmp);
		struct collapse_opts co = { .sample_index = o->sample_index, .unit = o->unit,
					    .time_ranges = o->time_ranges };
		if (o->time_ranges && fmt != &collapse_format_perf) {
			profile_release(&tmp);
			free(buf);
			return no_times(o, name);
		}
		struct collapse_source src = { name, data, len };
		ret = fmt->parse(&tmp, &src, &co);
		if (!ret && o->reverse) {
			struct profile rev;
			profile_init(&rev);
			profile_reverse(&rev, &tmp);
			profile_release(&tmp);
			tmp = rev;
		}
		if (!ret && (tmp.overflow || !profile_merge(p, &tmp)))
			ret = error("%s: the counts of one stack pass 2^64 - 1", name);
		profile_release(&tmp);
	}
	free(buf);
	return ret;
}

int load_stacks(struct profile *p, const char *path, const struct stacks_opts *o)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	int ret = -1;
	/* A large regular file of folded stacks is parsed where the page
	 * cache has it (no copy); anything else goes through reads. */
	struct stat st;
	if (!is_stdin && o->threads <= 1 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_size > CHUNK && (uint64_t)st.st_size < SIZE_MAX) {
		size_t len = (size_t)st.st_size;
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			const struct collapse_format *fmt =
				o->format ? collapse_find(o->format) : collapse_detect(map, len);
			if (!input_compressed(map, len) && fmt && !strcmp(fmt->name, "folded") && !o->time_ranges) {
				struct folded_opts fo = { .reverse = o->reverse };
				ret = folded_read_mapped(p, name, map, len, &fo);
				munmap(map, len);
				goto out;
			}
			munmap(map, len);
		}
	}
	char *buf = xmalloc(CHUNK);
	ssize_t got = fill(fd, name, buf, 0, CHUNK);
	if (got < 0) {
		free(buf);
		goto out;
	}
	size_t have = (size_t)got;
	if (have >= 8 && !memcmp(buf, "PERFILE2", 8)) {
		free(buf);
		ret = error("%s: a perf.data file, not stacks: scorch report %s -o FILE.svg draws it", name,
			    is_stdin ? "-" : path);
		goto out;
	}
	const struct collapse_format *fmt = NULL;
	if (o->format) {
		fmt = collapse_find(o->format);
		if (!fmt) {
			free(buf);
			ret = error("unknown input format '%s'", o->format);
			goto out;
		}
	} else if (have && !input_compressed(buf, have)) {
		fmt = collapse_detect(buf, have);
	}
	if ((fmt && strcmp(fmt->name, "folded")) || input_compressed(buf, have)) {
		ret = read_whole(p, fd, name, buf, have, fmt, o);
		goto out;
	}
	if (o->time_ranges) {
		free(buf);
		ret = no_times(o, name);
		goto out;
	}
	struct folded_opts fo = { .reverse = o->reverse };
	ret = folded_read_fd(p, fd, name, buf, have, &fo, o->threads);
out:
	if (!is_stdin)
		close(fd);
	return ret;
}

