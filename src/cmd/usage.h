/* Usage errors, reported the same way by every command: one line naming the
 * problem and where the options are explained, then exit 2 (cmd/cmd.h):
 *   scorch: record: -F: frequency must be 1..100000 Hz, not '0' (see 'scorch help record')
 * The whole help is printed only when asked for (--help, scorch help CMD). */
#ifndef SCORCH_CMD_USAGE_H
#define SCORCH_CMD_USAGE_H

#include "base/error.h"

/* Print "scorch: CMD: MSG (see 'scorch help CMD')" and exit(2). */
_Noreturn void usage_error(const char *cmd, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* After getopt_long(_only) returned '?' or ':' (set opterr = 0 and start
 * the option string with ':' after any '+'): the option it stopped at,
 * named, then as usage_error. */
_Noreturn void usage_bad_option(const char *cmd, int c, char *const *argv);

/* When path means stdin (NULL or "-") and stdin is a terminal: nobody is
 * piping input, and a read would wait for typing. A usage error saying so
 * (what: "stacks", "perf.data", ...). */
void usage_stdin_not_terminal(const char *cmd, const char *path, const char *what);

/* For a problem already printed (by a parser outside cmd/): print
 * "scorch: see 'scorch help CMD'" and return 2, the usage exit code. */
int usage_hint(const char *cmd);

#endif
