/* scorch diff: not implemented yet. */
#include "cmd/cmd.h"

#include <stdio.h>

const char diff_usage[] = "usage: scorch diff [OPTIONS]\n\n(not implemented yet)\n";

int cmd_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: diff: not implemented yet\n");
	return 1;
}
