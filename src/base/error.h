/* Diagnostics. Core code reports with error()/error_at() and returns; only
 * main.c and cmd/ may die(). Messages are "scorch: what is wrong". */
#ifndef SCORCH_BASE_ERROR_H
#define SCORCH_BASE_ERROR_H

#include <stddef.h>

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* Print "scorch: MSG" and return -1. */
int error(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Print "scorch: PATH:LINE: MSG" and return -1. */
int error_at(const char *path, size_t line, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Print "scorch: warning: MSG". */
void warn(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Print "scorch: warning: PATH:LINE: MSG". */
void warn_at(const char *path, size_t line, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Print "scorch: MSG" and exit(1). */
_Noreturn void die(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* An impossible state: abort with file:line. Never for bad input. */
#define BUG(msg) bug_at(__FILE__, __LINE__, (msg))
_Noreturn void bug_at(const char *file, int line, const char *msg);

#endif
