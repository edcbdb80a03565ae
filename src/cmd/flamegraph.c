/* scorch flamegraph: placeholder until the renderer lands. */
#include "cmd/cmd.h"

#include <stdio.h>

const char flamegraph_usage[] = "usage: scorch flamegraph [OPTIONS] [FILE...]\n";

int cmd_flamegraph(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: flamegraph: not implemented yet\n");
	return 1;
}
