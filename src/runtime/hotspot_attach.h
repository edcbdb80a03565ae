/* HotSpot's dynamic attach on Linux, spoken by scorch itself (what jcmd
 * does, without a JDK on the recording side): find the JVM's attach socket
 * (<tmp>/.java_pid<nspid>, <tmp> = /tmp, or /proc/PID/root/tmp in another
 * pid namespace); when there is none, ask the JVM to open it (a trigger
 * file .attach_pid<nspid> in its working directory or <tmp>, then
 * SIGQUIT, polling for the socket); send one request
 * ("1\0jcmd\0<command line>\0\0\0") and read the status line and output.
 *
 * SIGQUIT is sent only to a process that catches it (SigCgt in
 * /proc/PID/status): a JVM started with -Xrs, or anything that is not a
 * JVM, would be killed by it; it goes through a pidfd taken before the
 * JVM check, never to a pid number that may have been reused. The socket must be a socket owned by the
 * process's user or root, and no link is followed when the trigger file is
 * made. Every wait is bounded by the caller's timeout. */
#ifndef SCORCH_RUNTIME_HOTSPOT_ATTACH_H
#define SCORCH_RUNTIME_HOTSPOT_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

/* The pid the process sees for itself (the last NSpid field), or pid. */
pid_t hotspot_nspid(pid_t pid);

enum { HOTSPOT_NOT_YET = -2 };

/* Run a jcmd command line (e.g. "Compiler.perfmap") in JVM pid. Returns
 * the JVM's status (0: done), or -1 with why (a sentence) set, or
 * HOTSPOT_NOT_YET when the process does not catch SIGQUIT (yet: a JVM
 * installs its handlers a moment after libjvm.so is mapped; with -Xrs
 * never). out, when
 * not NULL, gets the start of the output text (NUL-terminated). */
/* The caller checks that pid is alive (not a zombie) first: a zombie
 * still shows its signal dispositions. */
int hotspot_jcmd(pid_t pid, const char *command, int timeout_ms, char *out, size_t out_cap,
		 char *why, size_t why_cap);

#endif
