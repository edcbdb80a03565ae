/* One function per subcommand. Each file in cmd/ is the only place that
 * knows about argv and exit codes for its command. Exit codes: 0 ok, 1 input
 * or runtime error, 2 usage error. */
#ifndef SCORCH_CMD_CMD_H
#define SCORCH_CMD_CMD_H

int cmd_flamegraph(int argc, char **argv);
int cmd_collapse(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_store(int argc, char **argv);

/* Usage text of a command (printed by `scorch help CMD` and `CMD --help`). */
extern const char flamegraph_usage[];
extern const char collapse_usage[];
extern const char diff_usage[];
extern const char report_usage[];
extern const char record_usage[];
extern const char merge_usage[];
extern const char query_usage[];
extern const char store_usage[];

/* Compiled-in optional features, e.g. "+zlib +lzma -libbpf". */
const char *scorch_features(void);

#endif
