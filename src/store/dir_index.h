/* The directory store's layout, shared by its sink and its source:
 *
 *   DIR/HOST/YYYY-MM-DD/START-END.pb.gz    one interval (gzipped pprof)
 *   DIR/HOST/YYYY-MM-DD/index.tsv          one line per interval
 *
 * HOST is the host name with every byte outside [A-Za-z0-9._-] (and a
 * leading '.') written %XX; the day is the UTC day of the start. An index
 * line is: start_ns, end_ns, file name, host, event, rate, unit, then one
 * field per label "k=v", separated by tabs, each field escaped (\t, \n,
 * \\, \r). Lines are appended with one write(2), after the file they name
 * is in place, so a reader sees whole intervals only; a last line without
 * its newline is ignored. */
#ifndef SCORCH_STORE_DIR_INDEX_H
#define SCORCH_STORE_DIR_INDEX_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

#define DIR_INDEX_NAME "index.tsv"

/* host -> its directory name (malloc'd). */
char *dir_host_name(const char *host);

/* One index line read back: fields point into the line (unescaped in place). */
struct dir_entry {
	uint64_t start_ns, end_ns;
	char *file, *host, *event, *unit;
	uint32_t rate_hz;
	char *labels[32];
	size_t nr_labels;
};

/* The index line of m for file (malloc'd, ends in '\n'; *len its length). */
char *dir_index_line(const struct store_meta *m, const char *file, size_t *len);
/* Split line (without its '\n', NUL-terminated, modified) into e. 0, or -1
 * when it is not an index line. */
int dir_index_parse(char *line, struct dir_entry *e);

#endif
