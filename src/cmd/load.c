/* Any input into a profile (cmd/load.h). */
#include "cmd/load.h"

#include "base/error.h"
#include "base/input.h"
#include "collapse/collapse.h"
#include "collapse/perf_script.h"
#include "perfdata/fold.h"
#include "profile/folded.h"

#include <string.h>

extern const struct collapse_format collapse_format_perf;

static int load_data(struct profile *p, const struct input *in, const char **unit)
{
	if (unit)
		*unit = "samples";
	if (in->len >= 8 && !memcmp(in->data, "PERFILE2", 8)) {
		struct report_opts ro = { .quiet = true };
		struct report_stats st = { 0 };
		int ret = report_fold(in->name, in->data, in->len, &ro, p, &st);
		if (unit && st.count_unit)
			*unit = st.count_unit;
		return ret;
	}
	const struct collapse_format *fmt = in->len ? collapse_detect(in->data, in->len) : NULL;
	struct collapse_opts co = { 0 };
	if (!fmt || !strcmp(fmt->name, "folded")) {
		struct folded_opts fo = { 0 };
		struct folded_stats st = { 0 };
		return folded_parse(p, in->name, in->data, in->len, &fo, &st);
	}
	if (fmt == &collapse_format_perf) {
		struct perf_input pi = { in->name, in->data, in->len, false };
		return perf_collapse(p, &pi, 1, &co);
	}
	struct collapse_source src = { in->name, in->data, in->len };
	return fmt->parse(p, &src, &co);
}

int load_profile(struct profile *p, const char *path, const char **unit)
{
	struct input in;
	if (input_load(&in, path && strcmp(path, "-") ? path : NULL))
		return -1;
	int ret = load_data(p, &in, unit);
	input_release(&in);
	return ret;
}
