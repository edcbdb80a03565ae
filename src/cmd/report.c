/* scorch report: not implemented yet. */
#include "cmd/cmd.h"

#include <stdio.h>

const char report_usage[] = "usage: scorch report [OPTIONS]\n\n(not implemented yet)\n";

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: report: not implemented yet\n");
	return 1;
}
