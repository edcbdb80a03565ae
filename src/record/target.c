/* Running the profiled command: fork a child that blocks on a pipe until
 * the sampling events are attached to it, then execs. An exec failure comes
 * back as an errno on a close-on-exec pipe, so "command not found" is known
 * before any sample is taken (perf record's scheme).
 *
 * Also the exits that end sampling: the command's (waitpid), and those of
 * -p processes and -t threads, through pidfds that the backends' loops
 * poll, so that sampling ends within a poll of the last exit without
 * spinning (and /proc where the kernel has no pidfd_open). */
#include "record/target.h"

#include "base/alloc.h"
#include "base/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd for one thread */
#endif

static int pidfd_open_flags(pid_t pid, unsigned flags)
{
	long fd = syscall(SYS_pidfd_open, pid, flags);
	if (fd < 0)
		return -1;
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return (int)fd;
}

int target_spawn(struct record_target *t, char **argv, bool stdout_to_stderr)
{
	int go[2], err[2];

	t->child = 0;
	t->go_fd = t->exec_err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return error("cannot create a pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]), close(go[1]), close(err[0]), close(err[1]);
		return error("cannot fork: %s", strerror(e));
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		close(err[0]);
		/* Wait for the parent: EOF (parent died) means do not run. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		int e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	t->child = pid;
	t->child_fd = pidfd_open_flags(pid, 0);
	t->go_fd = go[1];
	t->exec_err_fd = err[0];
	return 0;
}

int target_start(struct record_target *t, const char *name)
{
	int e = 0;
	ssize_t n;

	if (t->go_fd < 0)
		return 0;
	if (write(t->go_fd, "x", 1) != 1) {
		close(t->go_fd);
		t->go_fd = -1;
		return error("cannot start '%s': %s", name, strerror(errno));
	}
	close(t->go_fd);
	t->go_fd = -1;
	do
		n = read(t->exec_err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->exec_err_fd);
	t->exec_err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		int status;
		while (waitpid(t->child, &status, 0) < 0 && errno == EINTR)
			;
		t->child = 0;
		if (e == ENOENT) {
			error("%s: command not found", name);
			return RECORD_NOT_FOUND;
		}
		error("cannot execute '%s': %s", name, strerror(e));
		return e == EACCES || e == ENOEXEC ? RECORD_NOT_EXECUTABLE : RECORD_ERROR;
	}
	return 0;
}

bool target_exited(struct record_target *t, int *status)
{
	if (t->child <= 0)
		return false;
	struct rusage ru;
	pid_t r = wait4(t->child, status, WNOHANG, &ru);
	if (r == t->child) {
		t->child = 0;
		t->child_cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
			       ru.ru_stime.tv_usec / 1e6;
		return true;
	}
	return false;
}

void target_watch(struct record_target *t, const struct record_opts *o)
{
	bool threads = !o->nr_pids;
	size_t n = threads ? o->nr_tids : o->nr_pids;
	t->watch = n ? xcalloc(n, sizeof(*t->watch)) : NULL;
	t->nr_watch = t->nr_live = n;
	for (size_t i = 0; i < n; i++) {
		struct target_watch *w = &t->watch[i];
		w->id = threads ? o->tids[i] : o->pids[i];
		w->thread = threads;
		w->fd = pidfd_open_flags(w->id, threads ? PIDFD_THREAD : 0);
		if (w->fd < 0 && errno == ESRCH) {
			w->gone = true;
			t->nr_live--;
		}
	}
}

/* Without a pidfd: has the process or thread exited (gone, or a zombie)? */
static bool proc_gone(pid_t id)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
	FILE *f = fopen(path, "re");
	if (!f)
		return true;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *state = strrchr(buf, ')'); /* after the comm, which may hold anything */
	return !state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X';
}

bool target_gone(struct record_target *t)
{
	if (!t->nr_watch)
		return false;
	for (size_t i = 0; i < t->nr_watch && t->nr_live; i++) {
		struct target_watch *w = &t->watch[i];
		if (w->gone)
			continue;
		if (w->fd >= 0) {
			struct pollfd p = { .fd = w->fd, .events = POLLIN };
			if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			close(w->fd);
			w->fd = -1;
		} else if (!proc_gone(w->id)) {
			continue;
		}
		w->gone = true;
		t->nr_live--;
	}
	return !t->nr_live;
}

size_t target_pollfds(const struct record_target *t, struct pollfd *pfd)
{
	size_t n = 0;
	if (t->child > 0 && t->child_fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = t->child_fd, .events = POLLIN };
	for (size_t i = 0; i < t->nr_watch; i++)
		if (!t->watch[i].gone && t->watch[i].fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = t->watch[i].fd, .events = POLLIN };
	return n;
}

void target_release(struct record_target *t)
{
	for (size_t i = 0; i < t->nr_watch; i++)
		if (t->watch[i].fd >= 0)
			close(t->watch[i].fd);
	free(t->watch);
	t->watch = NULL;
	t->nr_watch = t->nr_live = 0;
	if (t->child_fd >= 0)
		close(t->child_fd);
	t->child_fd = -1;
}

void target_terminate(struct record_target *t, struct record_command *c)
{
	if (t->go_fd >= 0) { /* never started: EOF makes it exit */
		close(t->go_fd);
		t->go_fd = -1;
	}
	if (t->exec_err_fd >= 0) {
		close(t->exec_err_fd);
		t->exec_err_fd = -1;
	}
	c->pid = t->child;
	t->child = 0; /* c's now */
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		c->term_at = ts.tv_sec + ts.tv_nsec / 1e9;
	}
}

/* Has a stop signal come beyond those c->signals accounts for? */
static bool signalled_again(const struct record_command *c)
{
	return c->stop && *c->stop > c->signals;
}

bool target_await(struct record_command *c)
{
	int status;
	for (;;) {
		if (c->pid <= 0)
			return true;
		pid_t r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid || (r < 0 && errno != EINTR)) {
			c->pid = 0;
			return true;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double waited = now.tv_sec + now.tv_nsec / 1e9 - c->term_at;
		if (waited * 1000 >= RECORD_GRACE_MS || signalled_again(c))
			return false;
		struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
		nanosleep(&ten_ms, NULL); /* (a signal ends it early) */
	}
}

void record_command_end(struct record_command *c)
{
	int status;
	if (target_await(c))
		return;
	if (signalled_again(c)) /* (c->signals: 1 when a signal ended sampling) */
		warn("the command had not exited on SIGTERM when a %ssignal came: sent SIGKILL",
		     c->signals ? "second " : "");
	else
		warn("the command did not exit within %d s of SIGTERM: sent SIGKILL", RECORD_GRACE_MS / 1000);
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
}

/* Checked against /proc, so that a typo is an error before sampling. */
int target_check_process(pid_t pid)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return access(path, F_OK) ? error("no such process: %d", (int)pid) : 0;
}

int target_check_thread(pid_t tid)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	return access(path, F_OK) ? error("no such thread: %d", (int)tid) : 0;
}

int target_threads_of(pid_t pid, pid_t **tids, size_t *nr, size_t *alloc, bool say)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return say ? error("no such process: %d", (int)pid) : -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		VEC_GROW(*tids, *nr + 1, *alloc);
		(*tids)[(*nr)++] = (pid_t)tid;
	}
	closedir(d);
	return 0;
}
