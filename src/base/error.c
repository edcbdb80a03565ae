#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char buf[4096];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "scorch: %s%s\n", prefix, buf);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -1;
}

/* "KIND PATH:LINE: message" */
static void vreport_at(const char *kind, const char *path, size_t line, const char *fmt, va_list ap)
{
	char prefix[1024];
	snprintf(prefix, sizeof(prefix), "%s%s:%zu: ", kind, path ? path : "<stdin>", line);
	vreport(prefix, fmt, ap);
}

int error_at(const char *path, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport_at("", path, line, fmt, ap);
	va_end(ap);
	return -1;
}

void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void warn_at(const char *path, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport_at("warning: ", path, line, fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(1);
}

void bug_at(const char *file, int line, const char *msg)
{
	fprintf(stderr, "scorch: BUG: %s:%d: %s\n", file, line, msg);
	abort();
}
