#include "cmd/usage.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "scorch: %s: %s (see 'scorch help %s')\n", cmd, msg, cmd);
	exit(2);
}

void usage_bad_option(const char *cmd, int c, char *const *argv)
{
	/* getopt leaves optind past the argument it stopped at, except inside
	 * a cluster of short options (-xq), where optopt names the letter. */
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	bool is_long = arg[0] == '-' && arg[1] == '-';
	/* getopt_long_only reports an unknown -word by its first letter. */
	bool word = !is_long && optopt == arg[1] && strlen(arg) > 2;
	if (!is_long && !word && optopt > 0 && optopt < 128) {
		if (c == ':')
			usage_error(cmd, "option '-%c' needs a value", optopt);
		usage_error(cmd, "unknown option '-%c'", optopt);
	}
	const char *eq = strchr(arg, '=');
	if (c == ':')
		usage_error(cmd, "option '%s' needs a value", arg);
	if (eq && optopt && !word)
		usage_error(cmd, "option '%.*s' doesn't allow an argument", (int)(eq - arg), arg);
	usage_error(cmd, "unknown or ambiguous option '%s'", arg);
}

void usage_stdin_not_terminal(const char *cmd, const char *path, const char *what)
{
	if ((!path || !strcmp(path, "-")) && isatty(STDIN_FILENO))
		usage_error(cmd, "reading %s from the terminal; pipe input or name a file", what);
}

int usage_hint(const char *cmd)
{
	fprintf(stderr, "scorch: see 'scorch help %s'\n", cmd);
	return 2;
}
