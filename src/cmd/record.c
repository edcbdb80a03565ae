/* scorch record: not implemented yet. */
#include "cmd/cmd.h"

#include <stdio.h>

const char record_usage[] = "usage: scorch record [OPTIONS]\n\n(not implemented yet)\n";

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: record: not implemented yet\n");
	return 1;
}
