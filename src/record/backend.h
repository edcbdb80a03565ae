/* The sampling backends (record-private): each a struct record_backend
 * that run.c picks from. A backend opens its events on the targets,
 * releases the command (target_start), samples until record_should_stop,
 * and hands every sample and process event to the recorder; it fills the
 * backend's part of stats (backend, event, lost, seconds...). */
#ifndef SCORCH_RECORD_BACKEND_H
#define SCORCH_RECORD_BACKEND_H

#include "base/error.h" /* PRINTF_LIKE */
#include "record/record.h"
#include "record/recorder.h"
#include "record/target.h"

/* What a backend's run returns: RECORD_OK (0), RECORD_ERROR (-1, after a
 * message), RECORD_NOT_FOUND / RECORD_NOT_EXECUTABLE from target_start,
 * or this: */
enum {
	RECORD_UNAVAILABLE = -2, /* cannot run here (BPF: not built, not loadable);
				    the driver may fall back to another */
};

struct record_backend {
	const char *name; /* "bpf", "perf": record_stats.backend */
	int (*run)(const struct record_opts *opts, struct recorder *r, struct record_target *t,
		   struct record_stats *stats);
};

extern const struct record_backend record_backend_perf; /* perf_backend.c */
extern const struct record_backend record_backend_bpf;  /* bpf_backend.c, or backend.c without libbpf */

/* The backend cannot be used: an error when it was asked for (--backend
 * bpf), else a one-line notice that perf is used instead. Returns
 * RECORD_UNAVAILABLE. */
int record_bpf_unavailable(const struct record_opts *opts, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
