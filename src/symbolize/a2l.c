/* addr2line subprocess (see a2l.h). */
#include "symbolize/a2l.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct a2l {
	pid_t pid;
	int in;   /* we write addresses here */
	FILE *out; /* and read its answers here */
	bool dead;
	char *line;
	size_t line_alloc;
};

struct a2l *a2l_open(const char *path, bool demangle)
{
	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC))
		return NULL;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return NULL;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	char *argv[] = { "addr2line", "-e", (char *)path, "-i", "-f", NULL, NULL, NULL };
	if (demangle) {
		argv[5] = "-s";
		argv[6] = "-C";
	}
	pid_t pid;
	int rc = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(to[0]);
	close(from[1]);
	if (rc) {
		close(to[1]);
		close(from[0]);
		return NULL;
	}
	struct a2l *a = xcalloc(1, sizeof(*a));
	a->pid = pid;
	a->in = to[1];
	a->out = fdopen(from[0], "r");
	if (!a->out) {
		close(from[0]);
		a->dead = true;
	}
	return a;
}

void a2l_close(struct a2l *a)
{
	if (!a)
		return;
	if (a->in >= 0)
		close(a->in);
	if (a->out)
		fclose(a->out);
	if (a->pid > 0) {
		kill(a->pid, SIGTERM);
		waitpid(a->pid, NULL, 0);
	}
	free(a->line);
	free(a);
}

/* Read one trimmed line into a->line; false at EOF/error. */
static bool read_line(struct a2l *a)
{
	ssize_t n = getline(&a->line, &a->line_alloc, a->out);
	if (n <= 0)
		return false;
	while (n && (a->line[n - 1] == '\n' || a->line[n - 1] == '\r' || a->line[n - 1] == ' ' ||
		     a->line[n - 1] == '\t'))
		a->line[--n] = 0;
	size_t lead = 0;
	while (a->line[lead] == ' ' || a->line[lead] == '\t')
		lead++;
	if (lead)
		memmove(a->line, a->line + lead, (size_t)n - lead + 1);
	return true;
}

/* 1: a genuine record (function name left in *func, malloc'd), 0: the
 * sentinel "??" / "??:0", -1: error. */
static int read_record(struct a2l *a, char **func)
{
	*func = NULL;
	if (!read_line(a))
		return -1;
	char *f = xstrdup(a->line);
	if (!read_line(a)) {
		free(f);
		return -1;
	}
	if (!strcmp(f, "??") && !strncmp(a->line, "??:", 3)) {
		free(f);
		return 0;
	}
	*func = f;
	return 1;
}

int a2l_query(struct a2l *a, uint64_t addr, void (*fn)(const char *name, void *arg), void *arg)
{
	if (!a || a->dead)
		return -1;
	char buf[64];
	int len = snprintf(buf, sizeof(buf), "%016" PRIx64 "\n,\n", addr);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGPIPE, &ign, &old);
	ssize_t w = write(a->in, buf, (size_t)len);
	sigaction(SIGPIPE, &old, NULL);
	if (w != len) {
		a->dead = true;
		return -1;
	}
	char *func;
	int r = read_record(a, &func);
	if (r < 0) {
		a->dead = true;
		return -1;
	}
	if (r == 0) { /* nothing known: clear the sentinel of the "," */
		if (read_record(a, &func) != 0) {
			free(func);
			a->dead = true;
			return -1;
		}
		return 0;
	}
	int count = 0;
	do {
		fn(func, arg);
		free(func);
		count++;
	} while ((r = read_record(a, &func)) == 1);
	if (r < 0) {
		a->dead = true;
		return -1;
	}
	return count;
}
