/* Runtime detection from /proc (proc_text.h). */
#include "runtime/proc_text.h"

#include "base/alloc.h"
#include "base/input.h"
#include "symbolize/perfmap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A /proc file read whole (at most max bytes), NUL-terminated; NULL when
 * it cannot be read. The buffer grows with what is read (from a page's
 * worth), not to max at once: a process's maps are a few KiB, and a
 * buffer of the bound for every process met costs a system-wide
 * recording a fresh 16 MiB mapping per process. */
static char *read_proc(uint32_t pid, const char *what, size_t max, size_t *len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/%s", (unsigned)pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = max < 4096 ? max : 4096;
	char *buf = xmalloc(cap + 1);
	size_t got = 0;
	ssize_t r;
	for (;;) {
		if (got == cap && cap < max) {
			cap = cap > max / 2 ? max : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		if (got >= cap || (r = read(fd, buf + got, cap - got)) <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	*len = got;
	return buf;
}

bool proc_alive(uint32_t pid)
{
	size_t len;
	char *stat = read_proc(pid, "stat", 512, &len);
	if (!stat)
		return false;
	/* "pid (comm) S ...": the state after the last ')' (a comm may hold one) */
	const char *paren = strrchr(stat, ')');
	bool alive = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X' && paren[2] != 'x';
	free(stat);
	return alive;
}

static bool is_node_exe(const char *exe)
{
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	return !strcmp(base, "node") || !strcmp(base, "nodejs");
}

enum proc_runtime proc_runtime_kind(uint32_t pid)
{
	char path[32], exe[4096];
	snprintf(path, sizeof(path), "/proc/%u/exe", (unsigned)pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return proc_alive(pid) ? PROC_RUNTIME_NONE : PROC_RUNTIME_GONE;
	exe[n] = 0;
	if (is_node_exe(exe))
		return PROC_RUNTIME_NODE;
	size_t len;
	char *maps = read_proc(pid, "maps", 16 << 20, &len);
	if (!maps)
		return proc_alive(pid) ? PROC_RUNTIME_NONE : PROC_RUNTIME_GONE;
	enum proc_runtime kind = PROC_RUNTIME_NONE;
	for (char *line = maps; *line && kind == PROC_RUNTIME_NONE;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		const char *slash = strrchr(line, '/');
		if (slash && !strcmp(slash, "/libjvm.so"))
			kind = PROC_RUNTIME_JVM;
		else if (slash && !strncmp(slash, "/libnode.so", 11))
			kind = PROC_RUNTIME_NODE;
		line = nl ? nl + 1 : line + strlen(line);
	}
	free(maps);
	return kind;
}

/* Whether a word of text (split at blanks) starts with option. */
static bool words_have(const char *text, const char *option)
{
	size_t ol = strlen(option);
	for (const char *p = text; *p;) {
		p += strspn(p, " \t\n");
		size_t n = strcspn(p, " \t\n");
		if (n >= ol && !strncmp(p, option, ol))
			return true;
		p += n;
	}
	return false;
}

bool proc_has_option(uint32_t pid, const char *option, const char *const *env)
{
	size_t len, ol = strlen(option);
	char *cmd = read_proc(pid, "cmdline", 1 << 20, &len);
	bool found = false;
	for (size_t i = 0; cmd && i < len && !found; i += strlen(cmd + i) + 1)
		found = !strncmp(cmd + i, option, ol);
	free(cmd);
	char *envs = found || !env ? NULL : read_proc(pid, "environ", 1 << 20, &len);
	for (size_t i = 0; envs && i < len && !found; i += strlen(envs + i) + 1) {
		for (size_t k = 0; env[k] && !found; k++) {
			size_t kl = strlen(env[k]);
			if (!strncmp(envs + i, env[k], kl) && envs[i + kl] == '=')
				found = words_have(envs + i + kl + 1, option);
		}
	}
	free(envs);
	return found;
}

char *proc_read_perfmap(const char *path, uint32_t pid, bool force, size_t *len)
{
	char proc[32];
	struct stat st;
	snprintf(proc, sizeof(proc), "/proc/%u", (unsigned)pid);
	if (stat(proc, &st))
		return NULL;
	enum perfmap_refusal why;
	struct stat fst;
	int fd = perfmap_open(path, st.st_uid, force, &why, &fst);
	if (fd < 0)
		return NULL;
	char *buf = input_read_fd(fd, path, 0, len);
	close(fd);
	return buf;
}
