/* Running the profiled command: fork a child that blocks on a pipe until
 * the sampling events are attached to it, then execs. An exec failure comes
 * back as an errno on a close-on-exec pipe, so "command not found" is known
 * before any sample is taken (perf record's scheme). */
#include "record/record.h"

#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int target_spawn(struct record_target *t, char **argv)
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
		execvp(argv[0], argv);
		int e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	t->child = pid;
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
		return e == EACCES || e == ENOEXEC ? -126 : RECORD_ERROR;
	}
	return 0;
}

bool target_exited(struct record_target *t, int *status)
{
	if (t->child <= 0)
		return false;
	pid_t r = waitpid(t->child, status, WNOHANG);
	if (r == t->child) {
		t->child = 0;
		return true;
	}
	return false;
}

void target_kill(struct record_target *t)
{
	int status;

	if (t->go_fd >= 0) { /* never started: EOF makes it exit */
		close(t->go_fd);
		t->go_fd = -1;
	}
	if (t->exec_err_fd >= 0) {
		close(t->exec_err_fd);
		t->exec_err_fd = -1;
	}
	if (t->child > 0) {
		kill(t->child, SIGTERM);
		while (waitpid(t->child, &status, 0) < 0 && errno == EINTR)
			;
		t->child = 0;
	}
}
