/* scorch collapse: not implemented yet. */
#include "cmd/cmd.h"

#include <stdio.h>

const char collapse_usage[] = "usage: scorch collapse [OPTIONS]\n\n(not implemented yet)\n";

int cmd_collapse(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: collapse: not implemented yet\n");
	return 1;
}
