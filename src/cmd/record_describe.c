/* What scorch record says about a recording (cmd/record_describe.h). */
#include "cmd/record_describe.h"

#include "base/error.h"
#include "base/numfmt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Append printf output to buf (of cap bytes, holding *len), cut at cap. */
PRINTF_LIKE(4, 5) static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	if (*len + 1 >= cap)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* How often a sample is taken: "99 Hz", "every event", "every 10 events". */
static const char *describe_rate(const struct record_opts *o, char *buf, size_t cap)
{
	if (o->event != RECORD_EVENT_COUNTED)
		snprintf(buf, cap, "%u Hz", o->freq);
	else if (o->period > 1)
		snprintf(buf, cap, "every %" PRIu64 " events", o->period);
	else
		snprintf(buf, cap, "every event");
	return buf;
}

/* What was recorded: "cycles 99 Hz", "page-faults every event", "off-CPU
 * S+D >= 10 us", "cpu-clock 99 Hz + off-CPU S+D + runnable". */
static const char *describe_event(const struct record_opts *o, const struct record_stats *st, char *buf,
				  size_t cap)
{
	char rate[48];
	size_t len = 0;
	buf[0] = 0;
	if (!o->off_cpu || o->wall)
		append(buf, cap, &len, "%s %s%s", st->event ? st->event : "?", describe_rate(o, rate, sizeof(rate)),
		       o->wall ? " + " : "");
	if (o->off_cpu) {
		unsigned s = o->off_cpu_states;
		append(buf, cap, &len, "off-CPU %s", s == RECORD_OFFCPU_STATES_ALL ? "S+D"
						     : s & RECORD_OFFCPU_SLEEPING ? "S" : "D");
		if (o->min_block_us)
			append(buf, cap, &len, " \xe2\x89\xa5 %" PRIu64 " us", o->min_block_us);
		if (o->max_block_us)
			append(buf, cap, &len, " \xe2\x89\xa4 %" PRIu64 " us", o->max_block_us);
		if (o->wakers)
			append(buf, cap, &len, " with wakers");
		if (o->wall)
			append(buf, cap, &len, " + runnable");
	}
	return buf;
}

/* How much: "1,234 samples", "567 blocks", "1,234 samples + 567 blocks"
 * (--wall: "... + 89 waits for a CPU"). */
static const char *describe_count(const struct record_stats *st, char *buf, size_t cap)
{
	char samples[32], blocks[32], waits[32];
	uint64_t on = st->samples - st->offcpu_blocks - st->offcpu_waits;
	size_t len = 0;
	buf[0] = 0;
	numfmt_grouped(samples, sizeof(samples), on);
	numfmt_grouped(blocks, sizeof(blocks), st->offcpu_blocks);
	if (on || !st->offcpu_blocks)
		append(buf, cap, &len, "%s sample%s%s", samples, on == 1 ? "" : "s", st->offcpu_blocks ? " + " : "");
	if (st->offcpu_blocks)
		append(buf, cap, &len, "%s block%s", blocks, st->offcpu_blocks == 1 ? "" : "s");
	numfmt_grouped(waits, sizeof(waits), st->offcpu_waits);
	if (st->offcpu_waits)
		append(buf, cap, &len, "%s%s wait%s for a CPU", len ? " + " : "", waits, st->offcpu_waits == 1 ? "" : "s");
	return buf;
}

void explain_no_samples(const struct record_opts *o, const struct record_stats *st)
{
	if (o->off_cpu) {
		const char *filtered = o->min_block_us || o->max_block_us || o->nr_cpus ||
					       o->off_cpu_states != RECORD_OFFCPU_STATES_ALL
				       ? " in a way the filters keep (--state, --min-block, --max-block, -C)"
				       : "";
		if (o->all_cpus)
			error("no off-CPU time in %.1f s: no thread blocked%s", st->seconds, filtered);
		else
			error("no off-CPU time in %.1f s: the %s did not block%s (a thread asleep since before "
			      "sampling began counts only from its next switch-out)", st->seconds,
			      o->command ? "command" : o->nr_pids ? "process" : "thread", filtered);
		return;
	}
	switch (st->ended) {
	case RECORD_END_COMMAND:
		if (o->event == RECORD_EVENT_COUNTED)
			error("no samples: '%s' ran %.1f s and caused no %s event", o->command[0], st->seconds,
			      o->counted.name);
		else if (st->command_cpu < 0.0005)
			error("no samples: '%s' ran %.1f s and used no CPU", o->command[0], st->seconds);
		else
			error("no samples: '%s' ran %.1f s but used only %.0f ms of CPU (at %u Hz a "
			      "sample is taken every %.0f ms of CPU; raise -F for short commands)",
			      o->command[0], st->seconds, st->command_cpu * 1000, o->freq, 1000.0 / o->freq);
		break;
	case RECORD_END_TARGETS:
		error("no samples: the %s exited %.1f s after sampling started, without running on a CPU "
		      "meanwhile", o->nr_pids ? (o->nr_pids > 1 ? "processes" : "process")
					      : (o->nr_tids > 1 ? "threads" : "thread"),
		      st->seconds);
		break;
	default:
		if (o->all_cpus)
			error("no samples in %.1f s of sampling", st->seconds);
		else
			error("no samples in %.1f s: the %s did not run on a CPU (idle or blocked)", st->seconds,
			      o->command ? "command" : o->nr_pids ? "process" : "thread");
		break;
	}
}

/* Append " ARG" as $'...' (bash's ANSI-C quoting): for a word with control
 * bytes, which a title of one line cannot show as they are and which
 * single quotes would keep raw (a newline drawn as U+FFFD). */
static void append_ansi_c_word(char *buf, size_t cap, size_t *len, const char *arg)
{
	append(buf, cap, len, " $'");
	for (const unsigned char *c = (const unsigned char *)arg; *c; c++) {
		if (*c == '\n')
			append(buf, cap, len, "\\n");
		else if (*c == '\t')
			append(buf, cap, len, "\\t");
		else if (*c == '\\' || *c == '\'')
			append(buf, cap, len, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			append(buf, cap, len, "\\x%02x", *c);
		else
			append(buf, cap, len, "%c", *c);
	}
	append(buf, cap, len, "'");
}

static bool has_control_byte(const char *arg)
{
	for (const unsigned char *c = (const unsigned char *)arg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return true;
	return false;
}

/* Append " ARG" as a shell would need it typed: as is when every byte is
 * one no shell treats specially, else in single quotes (a quote inside as
 * '\''), so "sh -c 'sleep 1; ls'" reads back as the command it ran. */
static void append_shell_word(char *buf, size_t cap, size_t *len, const char *arg)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+%@^-";
	if (*arg && strspn(arg, plain) == strlen(arg)) {
		append(buf, cap, len, " %s", arg);
		return;
	}
	if (has_control_byte(arg)) {
		append_ansi_c_word(buf, cap, len, arg);
		return;
	}
	append(buf, cap, len, " '");
	for (const char *q; (q = strchr(arg, '\'')); arg = q + 1)
		append(buf, cap, len, "%.*s'\\''", (int)(q - arg), arg);
	append(buf, cap, len, "%s'", arg);
}

/* Cut buf to at most at bytes plus "...", not inside a UTF-8 sequence. */
static void cut_with_ellipsis(char *buf, size_t cap, size_t at)
{
	if (strlen(buf) <= at || cap <= at + 4)
		return;
	while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at--;
	strcpy(buf + at, "...");
}

void describe_target(const struct record_opts *o, char *buf, size_t cap)
{
	size_t len = 0;
	append(buf, cap, &len, "scorch record:");
	if (o->command) {
		for (char **a = o->command; *a && len < 100; a++)
			append_shell_word(buf, cap, &len, *a);
		cut_with_ellipsis(buf, cap, 100);
	} else if (o->nr_pids || o->nr_tids) {
		bool pids = o->nr_pids;
		size_t n = pids ? o->nr_pids : o->nr_tids;
		append(buf, cap, &len, " %s%s", pids ? "PID" : "TID", n > 1 ? "s" : "");
		for (size_t i = 0; i < n && len < 100; i++) {
			pid_t id = pids ? o->pids[i] : o->tids[i];
			char path[64], comm[64];
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)id);
			record_read_line(path, comm, sizeof(comm));
			append(buf, cap, &len, "%s %d", i ? "," : "", (int)id);
			if (comm[0])
				append(buf, cap, &len, " (%s)", comm);
		}
	} else {
		append(buf, cap, &len, " all CPUs");
	}
	if (o->nr_cpus) {
		append(buf, cap, &len, " on CPU%s", o->nr_cpus > 1 ? "s" : "");
		for (size_t i = 0; i < o->nr_cpus; i++)
			append(buf, cap, &len, "%s%d", i ? "," : " ", o->cpus[i]);
	}
}

void describe_run(const struct record_opts *o, const struct record_stats *st, time_t started, char *buf,
		  size_t cap)
{
	char host[256] = "?", date[64] = "?", lost[32], what[128], count[96];
	struct tm tm;
	if (gethostname(host, sizeof(host) - 1))
		strcpy(host, "?");
	host[sizeof(host) - 1] = 0;
	if (gmtime_r(&started, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	size_t len = 0;
	append(buf, cap, &len, "host %s \xc2\xb7 %s \xc2\xb7 %s \xc2\xb7 %.1f s \xc2\xb7 %s", host, date,
	       describe_event(o, st, what, sizeof(what)), st->seconds, describe_count(st, count, sizeof(count)));
	if (st->lost) {
		numfmt_grouped(lost, sizeof(lost), st->lost);
		append(buf, cap, &len, " (%s lost)", lost);
	}
}

void print_summary(const struct record_opts *o, const struct record_stats *st, double finish_seconds,
		   double finish_cpu)
{
	if (o->quiet || !st->samples)
		return;
	char what[128], count[96], unique[32];
	numfmt_grouped(unique, sizeof(unique), st->named);
	fprintf(stderr, "scorch: %s backend, %s: %s in %.1f s, %s distinct stack%s", st->backend,
		describe_event(o, st, what, sizeof(what)), describe_count(st, count, sizeof(count)),
		st->seconds, unique, st->named == 1 ? "" : "s");
	if (o->off_cpu) {
		fprintf(stderr, ", %.2f s off-CPU", st->offcpu_seconds);
		if (st->offcpu_waits)
			fprintf(stderr, ", %.2f s waiting for a CPU", st->offcpu_wait_seconds);
		if (st->offcpu_filtered)
			fprintf(stderr, ", %" PRIu64 " blocks filtered out", st->offcpu_filtered);
		if (st->offcpu_open)
			fprintf(stderr, ", %" PRIu64 " thread%s still blocked at the end (counted up to it)",
				st->offcpu_open, st->offcpu_open == 1 ? "" : "s");
		if (st->offcpu_lost_end)
			fprintf(stderr, ", %" PRIu64 " blocks dropped (their wake-up record was lost)",
				st->offcpu_lost_end);
		if (st->offcpu_unseen_in)
			fprintf(stderr, ", %" PRIu64 " block%s whose switch-in was not seen (ended by its CPU time since)",
				st->offcpu_unseen_in, st->offcpu_unseen_in == 1 ? "" : "s");
	}
	if (st->lost)
		fprintf(stderr, ", %" PRIu64 " lost", st->lost);
	if (st->unread)
		fprintf(stderr, " (%" PRIu64 " of them left unread when %s)", st->unread,
			st->unread_signalled ? "a second signal came" : "reading the rest took over 1 s");
	if (st->in_kernel + st->spilled + st->copied) /* bpf's on-CPU samples */
		fprintf(stderr, ", %.1f%% counted in the kernel (%" PRIu64 " sent whole, %" PRIu64
			" as user-stack copies)",
			100.0 * (double)st->in_kernel / (double)(st->in_kernel + st->spilled + st->copied),
			st->spilled, st->copied);
	if (st->collisions)
		fprintf(stderr, ", %" PRIu64 " with a stack lost to stack-map collisions (see --stack-map-size)",
			st->collisions);
	if (st->map_full)
		fprintf(stderr, ", %" PRIu64 " with a stack lost to a full stack map", st->map_full);
	if (st->user_samples) {
		double reached = 100.0 * (double)st->reached / (double)st->user_samples;
		/* Asked for frame pointers and they lost most callers: say what
		 * would find them. */
		bool hint = !st->unwound && o->unwind == RECORD_UNWIND_FP && reached < 50.0;
		fprintf(stderr, "; %.1f%% of user stacks reached a thread's start (%s%s)", reached,
			st->unwound ? "DWARF" : "frame pointers",
			hint ? "; --call-graph dwarf unwinds code built without them" : "");
	}
	if (st->unwound && st->bytes)
		fprintf(stderr, ", %.1f KiB copied per sample", (double)st->bytes / 1024.0 / (double)st->unwound);
	if (st->copy_full)
		fprintf(stderr, ", %" PRIu64 " stack copies refused by a full ring buffer (frame pointers used)",
			st->copy_full);
	fprintf(stderr, "; output written %.2f s (%.2f s CPU) after sampling ended\n", finish_seconds, finish_cpu);
	for (const char *line = st->runtimes; *line;) {
		const char *nl = strchrnul(line, '\n');
		fprintf(stderr, "scorch: %.*s\n", (int)(nl - line), line);
		line = *nl ? nl + 1 : nl;
	}
}

void print_command_status(const struct record_opts *o, const struct record_stats *st)
{
	if (!o->command || st->command_status <= 0 || o->quiet)
		return;
	if (WIFEXITED(st->command_status))
		fprintf(stderr, "scorch: %s exited with status %d\n", o->command[0], WEXITSTATUS(st->command_status));
	else if (WIFSIGNALED(st->command_status))
		fprintf(stderr, "scorch: %s was killed by signal %d\n", o->command[0], WTERMSIG(st->command_status));
}
