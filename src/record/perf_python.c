/* See perf_python.h. */
#include "record/perf_python.h"

#include <linux/perf_event.h>
#include <string.h>

struct payload_head {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint32_t len, pad;
};

size_t perf_python_record(struct recorder *r, const struct record_sample *s, void *buf)
{
	recorder_runtime_recheck(r, s->pid);
	if (!recorder_runtime_owns(r, s->pid))
		return 0;
	struct payload_head *ph = buf;
	size_t n = recorder_runtime_payload_now(r, s, ph + 1, PERF_PYTHON_RECORD_MAX - sizeof(*ph));
	*ph = (struct payload_head){ { PERF_PYTHON_FRAMES, 0, 0 }, s->pid, s->tid, (uint32_t)n, 0 };
	size_t size = (sizeof(*ph) + n + 7) & ~(size_t)7;
	ph->h.size = (uint16_t)size;
	return size;
}

void perf_python_keep(struct perf_python_stash *st, const void *rec, size_t len)
{
	struct payload_head ph;
	st->full = false;
	if (len < sizeof(ph))
		return;
	memcpy(&ph, rec, sizeof(ph));
	if (ph.len > sizeof(st->payload) || len < sizeof(ph) + ph.len)
		return;
	memcpy(st->payload, (const char *)rec + sizeof(ph), ph.len);
	st->tid = ph.tid;
	st->len = ph.len;
	st->full = true;
}

void perf_python_take(struct perf_python_stash *st, struct record_sample *s)
{
	if (!st->full || st->tid != s->tid)
		return;
	s->payload = st->payload;
	s->payload_len = st->len;
	st->full = false;
}
