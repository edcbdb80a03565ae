/* Unit tests for render/graph: the writer chosen by name or by the output
 * file's extension. */
#include "harness.h"

#include "render/graph.h"

TEST(graph_format_by_name)
{
	CHECK(graph_format_find("svg") == GRAPH_FORMAT_SVG);
	CHECK(graph_format_find("html") == GRAPH_FORMAT_HTML);
	CHECK(graph_format_find("HTML") == GRAPH_FORMAT_NONE); /* names are lower case */
	CHECK(graph_format_find("perf") == GRAPH_FORMAT_NONE); /* an input format */
	CHECK(graph_format_find("") == GRAPH_FORMAT_NONE);
}

TEST(graph_format_by_extension)
{
	CHECK(graph_format_for_path("a.svg") == GRAPH_FORMAT_SVG);
	CHECK(graph_format_for_path("dir/a.SVG") == GRAPH_FORMAT_SVG);
	CHECK(graph_format_for_path("a.html") == GRAPH_FORMAT_HTML);
	CHECK(graph_format_for_path("a.htm") == GRAPH_FORMAT_HTML);
	CHECK(graph_format_for_path("x.y/a.Html") == GRAPH_FORMAT_HTML);
	CHECK(graph_format_for_path("a.folded") == GRAPH_FORMAT_NONE);
	CHECK(graph_format_for_path("svg") == GRAPH_FORMAT_NONE);
	CHECK(graph_format_for_path("a.svg/out") == GRAPH_FORMAT_NONE); /* a directory's dot */
	CHECK(graph_format_for_path("a.svg.gz") == GRAPH_FORMAT_NONE);
	CHECK(graph_format_for_path("-") == GRAPH_FORMAT_NONE);
	CHECK(graph_format_for_path(NULL) == GRAPH_FORMAT_NONE);
}
