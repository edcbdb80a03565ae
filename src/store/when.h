/* Times, durations and sizes as users type them (--from -1h, --keep 7d,
 * --max-size 1G). Absolute times are ns since the Unix epoch, UTC. */
#ifndef SCORCH_STORE_WHEN_H
#define SCORCH_STORE_WHEN_H

#include <stdint.h>

/* "10s", "15m", "1h", "7d", "500ms", or a plain number of seconds -> ns.
 * 0, or -1 when s is not one (no message). */
int when_duration(const char *s, uint64_t *ns);
/* "1G", "512M", "64K", or bytes. 0 or -1. */
int when_size(const char *s, uint64_t *bytes);
/* An absolute time: "now", "-1h" (now minus a duration), an ISO-8601 UTC
 * time "2026-12-02T14:00:00Z" (or with a space, seconds optional, Z
 * optional), "@SECONDS" or a number of ns since the epoch (>= 1e15).
 * 0 or -1. */
int when_time(const char *s, uint64_t now_ns, uint64_t *ns);
/* The time now, ns since the epoch (CLOCK_REALTIME). */
uint64_t when_now(void);
/* "YYYY-MM-DD" of an absolute time (buf of 11 bytes), and
 * "YYYY-MM-DDTHH:MM:SSZ" (buf of 21). */
void when_day(uint64_t ns, char *buf);
void when_iso(uint64_t ns, char *buf);

#endif
