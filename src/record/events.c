/* record -e EVENT: names of perf software events and tracepoints. */
#include "record/events.h"

#include "base/error.h"
#include "record/tracefs.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sw_event {
	const char *name;
	uint64_t config;
	const char *countname;
	const char *palette;
};

/* perf list's software events and their aliases. */
static const struct sw_event sw_events[] = {
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults", "mem" },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults", "mem" },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor faults", "mem" },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major faults", "mem" },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches", "io" },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches", "io" },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "migrations", "hot" },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "migrations", "hot" },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment faults", "mem" },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, "emulation faults", "hot" },
};

const char record_event_choices[] = "cpu-clock, cycles, page-faults, minor-faults, major-faults, "
				   "context-switches, cpu-migrations, or a tracepoint SYS:NAME";

static const struct sw_event *sw_event_named(const char *name)
{
	for (size_t i = 0; i < sizeof(sw_events) / sizeof(sw_events[0]); i++)
		if (!strcmp(name, sw_events[i].name))
			return &sw_events[i];
	return NULL;
}

bool record_event_known(const char *name)
{
	return sw_event_named(name) || strchr(name, ':');
}

static bool tracepoint_name_ok(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

static int tracepoint_id(const char *name, uint64_t *id)
{
	const char *colon = strchr(name, ':');
	size_t sys_len = (size_t)(colon - name);
	if (!tracepoint_name_ok(name, sys_len) || !tracepoint_name_ok(colon + 1, strlen(colon + 1)))
		return error("-e %s: not a tracepoint name (SYS:NAME, as in perf list)", name);
	char rel[300], path[512];
	snprintf(rel, sizeof(rel), "events/%.*s/%s/id", (int)sys_len, name, colon + 1);
	FILE *f = tracefs_open(rel, path, sizeof(path));
	if (!f && errno == ENOENT)
		return error("-e %s: no such tracepoint in %s/events (see perf list tracepoint)", name,
			     TRACEFS_MOUNT_POINT);
	if (!f)
		return error("-e %s: cannot read %s: %s (tracefs needs root)", name, path, strerror(errno));
	unsigned long long v;
	int got = fscanf(f, "%llu", &v);
	fclose(f);
	if (got != 1)
		return error("%s: not a tracepoint id", path);
	*id = v;
	return 0;
}

int record_event_parse(const char *name, struct record_event_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	if (strlen(name) >= sizeof(spec->name))
		return error("-e: event name too long: '%.40s...'", name);
	strcpy(spec->name, name);
	const struct sw_event *sw = sw_event_named(name);
	if (sw) {
		spec->type = PERF_TYPE_SOFTWARE;
		spec->config = sw->config;
		spec->countname = sw->countname;
		spec->palette = sw->palette;
		return 0;
	}
	if (!strchr(name, ':'))
		return error("-e %s: unknown event (%s)", name, record_event_choices);
	spec->type = PERF_TYPE_TRACEPOINT;
	spec->countname = "events";
	spec->palette = "hot";
	return tracepoint_id(name, &spec->config);
}
