/* What is recorded (record-private): the command scorch runs, the -p
 * processes and -t threads it watches, and the checks that they exist. */
#ifndef SCORCH_RECORD_TARGET_H
#define SCORCH_RECORD_TARGET_H

#include "record/record.h"

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A -p process or -t thread watched for its exit. */
struct target_watch {
	pid_t id;
	int fd;     /* its pidfd (readable once it exited), or -1: /proc is read */
	bool thread;
	bool gone;
};

/* The common loop state shared by both backends. */
struct record_target {
	pid_t child;      /* the command, or 0 */
	int go_fd;        /* write a byte to let the command exec, -1 after */
	int exec_err_fd;  /* EOF on exec, or the child's errno */
	int child_fd;     /* the command's pidfd (wakes the loops at its exit), or -1 */
	double child_cpu; /* CPU seconds the command and its reaped children used */
	struct target_watch *watch; /* -p processes or -t threads */
	size_t nr_watch, nr_live;
};

/* Run a command that waits until the events are in place; its stdout
 * goes to our stderr with stdout_to_stderr. */
int target_spawn(struct record_target *t, char **argv, bool stdout_to_stderr);
/* Release the command; returns 0, or RECORD_NOT_FOUND /
 * RECORD_NOT_EXECUTABLE / RECORD_ERROR after a message. */
int target_start(struct record_target *t, const char *name);
/* Poll for the command's exit; returns true once it has exited. */
bool target_exited(struct record_target *t, int *status);
/* Sampling ended: the command, if it still runs, gets SIGTERM and is
 * handed over to c (pid, term_at; t no longer holds it); one never
 * started is let go (it exits without running). */
void target_terminate(struct record_target *t, struct record_command *c);
/* Wait for c's exit, polling, until its grace period (RECORD_GRACE_MS
 * from term_at) is over or a stop signal comes beyond c->signals: true
 * once it exited (reaped: c->pid is 0 then), false when it still runs. */
bool target_await(struct record_command *c);
/* Watch the -p processes (or -t threads) of o for their exit. */
void target_watch(struct record_target *t, const struct record_opts *o);
/* True once every watched process or thread has exited (false when
 * nothing is watched). */
bool target_gone(struct record_target *t);
/* The descriptors that become readable when a target exits (the command
 * and the watched processes still alive), for a loop's poll(): at most
 * nr_watch + 1 entries. Returns how many were written. */
size_t target_pollfds(const struct record_target *t, struct pollfd *pfd);
/* Close what target_watch and target_spawn opened. */
void target_release(struct record_target *t);

/* The checks both backends make before sampling (one message each):
 * does process (or thread) id exist now? 0, or -1 after "no such
 * process: ID" ("no such thread: ID"). */
int target_check_process(pid_t pid);
int target_check_thread(pid_t tid);
/* Append the threads of process pid (/proc/PID/task) to *tids; -1 when
 * it cannot be read (after "no such process: PID" when say). */
int target_threads_of(pid_t pid, pid_t **tids, size_t *nr, size_t *alloc, bool say);

#endif
