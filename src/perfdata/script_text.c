/* perf script's default text (see script_text.h). */
#include "perfdata/script_text.h"

#include "base/alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v right-aligned (or left-aligned) in width columns. */
static size_t fmt_int(char *out, int64_t v, int width, bool left)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);
	size_t k = 0;
	if (!left)
		for (int i = n; i < width; i++)
			out[k++] = ' ';
	memcpy(out + k, tmp, (size_t)n);
	k += (size_t)n;
	if (left)
		for (int i = n; i < width; i++)
			out[k++] = ' ';
	return k;
}

size_t script_header(struct script_text *t, const char *comm, const struct pd_sample *s)
{
	size_t cl = strlen(comm);
	const char *ev = s->attr->name;
	VEC_GROW(t->buf, cl + strlen(ev) + (size_t)t->name_width + 192, t->alloc);
	char *b = t->buf;
	memcpy(b, comm, cl);
	size_t k = cl;
	b[k++] = ' ';
	if (t->with_pid) {
		k += fmt_int(b + k, s->pid, 5, false);
		b[k++] = '/';
		k += fmt_int(b + k, s->tid, 5, true);
	} else {
		k += fmt_int(b + k, s->tid, 5, false);
	}
	b[k++] = ' ';
	if (s->attr->sample_type & PD_SAMPLE_CPU)
		k += (size_t)sprintf(b + k, "[%03" PRIu32 "] ", s->cpu);
	if (s->attr->sample_type & PD_SAMPLE_TIME)
		k += (size_t)sprintf(b + k, "%5" PRIu64 ".%06" PRIu64 ": ", s->time / 1000000000,
				     s->time % 1000000000 / 1000);
	if (s->attr->sample_type & PD_SAMPLE_PERIOD)
		k += (size_t)sprintf(b + k, "%10" PRIu64 " ", s->period);
	k += (size_t)sprintf(b + k, "%*s: ", t->name_width, ev);
	return k;
}

void script_write_sample(struct script_text *t, struct out *o, const char *comm, const struct pd_sample *s,
			 const struct resolved_frame *fr, size_t nr)
{
	size_t k = script_header(t, comm, s);
	out_write(o, t->buf, k);
	out_putc(o, '\n');
	for (size_t i = 0; i < nr; i++) {
		if (fr[i].name)
			out_printf(o, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", fr[i].addr, fr[i].name,
				   fr[i].offset, fr[i].dso);
		else
			out_printf(o, "\t%16" PRIx64 " [unknown] (%s)\n", fr[i].addr, fr[i].dso);
	}
	out_putc(o, '\n');
}

void script_text_release(struct script_text *t)
{
	free(t->buf);
	t->buf = NULL;
	t->alloc = 0;
}
