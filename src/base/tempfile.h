/* Temporary files that a fatal signal must not leave behind.
 *
 * out_open() writes beside its target and renames at the end; if SIGINT,
 * SIGTERM, SIGHUP, SIGPIPE or SIGXFSZ (a file size limit) kills the process
 * first, the half-written temporary would stay. A signal handler can reach no argument or context,
 * so the paths in flight live in a small fixed table here: the one piece of
 * global state in base/, written only through these two functions and read
 * only by the handler (unlink() is async-signal-safe; the table needs no
 * allocation). The handler removes the files, then re-raises the signal with
 * its default action, so the process still dies of it (exit 128+N).
 *
 * Handlers are installed on the first registration, for each of those
 * signals whose action is still the default: a command that catches one
 * itself (record stops sampling on SIGINT) keeps it, and an ignored signal
 * (nohup) stays ignored. */
#ifndef SCORCH_BASE_TEMPFILE_H
#define SCORCH_BASE_TEMPFILE_H

/* mkstemp(template), registered for removal on a fatal signal: the fatal
 * signals are held from before the file exists until it is registered, so
 * no moment leaves it behind. Returns the descriptor, or -1 with errno; the
 * slot for tempfile_forget() in *slot (-1 if the table was full). */
int tempfile_mkstemp(char *template, int *slot);

/* Forget a slot (the file was renamed into place or removed). -1 is a
 * no-op. */
void tempfile_forget(int slot);

/* Remove every registered file now: for a process about to die of
 * something other than a signal (out of memory). Async-signal-safe. */
void tempfile_remove_all(void);

#endif
