#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>

static struct unit_test *tests_head;

void unit_register(struct unit_test *t)
{
	/* Keep registration order stable: append. */
	struct unit_test **p = &tests_head;
	while (*p)
		p = &(*p)->next;
	*p = t;
}

void unit_fail(struct unit_test *t, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	printf("#   %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	t->failures++;
}

int unit_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	int failed = 0;
	for (struct unit_test *t = tests_head; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		t->fn(t);
		fflush(stdout);
		if (t->skip)
			printf("ok - unit/%s # SKIP %s\n", t->name, t->skip);
		else if (t->failures)
			printf("not ok - unit/%s\n", t->name), failed++;
		else
			printf("ok - unit/%s\n", t->name);
	}
	return failed ? 1 : 0;
}
