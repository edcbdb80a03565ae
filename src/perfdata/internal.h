/* Shared between the perfdata/ files only. */
#ifndef SCORCH_PERFDATA_INTERNAL_H
#define SCORCH_PERFDATA_INTERNAL_H

#include "perfdata/perfdata.h"

/* The size of perf_event_attr's first version (PERF_ATTR_SIZE_VER0). */
enum { PD_ATTR_MIN_SIZE = 64 };

/* header.c: */

/* Print "PATH: byte OFF: WHAT" and return -1. */
int pd_damage(const struct perf_data *pd, uint64_t off, const char *what);
int pd_add_attr(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off);
void pd_attr_add_id(struct perf_data *pd, size_t idx, uint64_t id);
void pd_finish_attrs(struct perf_data *pd);
int pd_feature(struct perf_data *pd, uint64_t feat, const uint8_t *p, size_t n, uint64_t off);
int pd_add_build_id(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off);
void pd_decode_attr(struct pd_attr *a, const uint8_t *p, size_t n);
int pd_parse_event_desc(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off);

/* records.c: */

void pd_zstd_free(struct perf_data *pd);
/* Append the decompressed payload to pd->dbuf. Returns 0 or -1 (printed). */
int pd_decompress(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off);

#endif
