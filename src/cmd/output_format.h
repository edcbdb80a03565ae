/* What -o PATH asks a command to write, by the name's extension. One rule
 * for every command:
 *  - a graph extension (render/graph.h: .svg; .html, .htm) asks for that
 *    graph format;
 *  - .folded and .collapsed ask for folded stacks;
 *  - an extension of a format scorch does not write (.png, .pdf, .json,
 *    .pb, .gz, .data, ...: the table in output_format.c) is a usage error
 *    naming what the command writes;
 *  - any other name (no extension, .txt, .out, ...) and stdout get the
 *    command's own default (a graph for flamegraph, folded stacks for the
 *    others).
 * --format, where a command has it, wins over the extension. */
#ifndef SCORCH_CMD_OUTPUT_FORMAT_H
#define SCORCH_CMD_OUTPUT_FORMAT_H

#include "render/graph.h"

/* What a command can write. */
enum { WRITES_FOLDED = 1, WRITES_GRAPH = 2 };

/* The graph format -o path asks of cmd (GRAPH_FORMAT_NONE: folded stacks,
 * or the command's default for a neutral name), given what cmd writes. A
 * format cmd does not write is a usage error (cmd/usage.h: message, exit 2). */
enum graph_format output_format(const char *cmd, const char *path, unsigned writes);

#endif
