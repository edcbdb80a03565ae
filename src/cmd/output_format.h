/* What -o PATH asks a command to write, by the name's ending. One rule for
 * every command:
 *  - an output format's ending (render/graph.c: .svg; .html, .htm; .png; .pb.gz,
 *    .pprof; .speedscope.json) asks for that format;
 *  - .folded and .collapsed ask for folded stacks;
 *  - the extension of a format scorch does not write (.jpg, .pdf, .json,
 *    .pb, .gz, .data, ...: the table in output_format.c) is a usage error
 *    naming what the command writes, before any work;
 *  - any other name (no extension, .txt, .out, ...) and stdout get the
 *    command's own default (an SVG for flamegraph, folded stacks for the
 *    others).
 * A format the command does not write is a usage error too. --format,
 * where a command has it, wins over the name. */
#ifndef SCORCH_CMD_OUTPUT_FORMAT_H
#define SCORCH_CMD_OUTPUT_FORMAT_H

#include "render/graph.h"

/* What a command can write: folded stacks, pictures (svg, html), the
 * stacks in another tool's format (pprof, speedscope). */
enum { WRITES_FOLDED = 1, WRITES_PICTURE = 2, WRITES_DATA = 4 };

/* The format -o path asks of cmd (GRAPH_FORMAT_NONE: folded stacks, or the
 * command's default for a neutral name), given what cmd writes. A format
 * cmd does not write is a usage error (cmd/usage.h: message, exit 2). */
enum graph_format output_format(const char *cmd, const char *path, unsigned writes);

#endif
