/* See perf_python.h. */
#include "record/perf_python.h"

#include <linux/perf_event.h>
#include <string.h>

struct payload_head {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint32_t len, pad;
};

size_t perf_python_record(struct recorder *r, uint64_t sample_type, const void *rec, size_t len, void *buf)
{
	size_t at = sizeof(struct perf_event_header) + (sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0) +
		    (sample_type & PERF_SAMPLE_IP ? 8 : 0);
	uint32_t u[2];
	if (!(sample_type & PERF_SAMPLE_TID) || len < at + sizeof(u))
		return 0;
	memcpy(u, (const char *)rec + at, sizeof(u));
	recorder_runtime_recheck(r, u[0]);
	if (!recorder_runtime_owns(r, u[0]))
		return 0;
	struct payload_head *ph = buf;
	size_t n = recorder_runtime_payload_now(r, u[0], u[1], ph + 1, PERF_PYTHON_RECORD_MAX - sizeof(*ph));
	*ph = (struct payload_head){ { PERF_PYTHON_FRAMES, 0, 0 }, u[0], u[1], (uint32_t)n, 0 };
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
