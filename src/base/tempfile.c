#include "base/tempfile.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { TEMPFILE_SLOTS = 8, TEMPFILE_PATH_MAX = 4096 };

/* See tempfile.h for why this is global. A slot's path is complete before
 * `used` is set, and `used` is cleared before the path may change, so the
 * handler never reads a half-written name. `owner` keeps a forked child
 * (record's command, between fork and exec) from removing its parent's
 * files. */
static struct {
	volatile sig_atomic_t used;
	char path[TEMPFILE_PATH_MAX];
} slots[TEMPFILE_SLOTS];
static volatile pid_t owner;
static bool handlers_installed;

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ };

void tempfile_remove_all(void)
{
	if (getpid() == owner)
		for (int i = 0; i < TEMPFILE_SLOTS; i++)
			if (slots[i].used)
				unlink(slots[i].path);
}

static void remove_and_reraise(int sig)
{
	int saved_errno = errno;
	tempfile_remove_all();
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns (sig is blocked in it) */
	errno = saved_errno;
}

static void install_handlers(void)
{
	if (handlers_installed)
		return;
	owner = getpid();
	handlers_installed = true;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old;
		if (sigaction(fatal_signals[i], NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		struct sigaction sa = { 0 };
		sa.sa_handler = remove_and_reraise;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < sizeof(fatal_signals) / sizeof(fatal_signals[0]); j++)
			sigaddset(&sa.sa_mask, fatal_signals[j]);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

/* A slot for path, or -1 when it is too long or the table is full (the
 * file then simply is not removed on a signal). */
static int tempfile_register(const char *path)
{
	size_t n = strlen(path);
	if (n >= TEMPFILE_PATH_MAX)
		return -1;
	install_handlers();
	for (int i = 0; i < TEMPFILE_SLOTS; i++) {
		if (slots[i].used)
			continue;
		memcpy(slots[i].path, path, n + 1);
		atomic_signal_fence(memory_order_seq_cst); /* the name before the flag */
		slots[i].used = 1;
		return i;
	}
	return -1;
}

void tempfile_forget(int slot)
{
	if (slot >= 0 && slot < TEMPFILE_SLOTS) {
		slots[slot].used = 0;
		atomic_signal_fence(memory_order_seq_cst); /* the flag before reuse */
	}
}

int tempfile_mkstemp(char *template, int *slot)
{
	install_handlers();
	sigset_t fatal, old;
	sigemptyset(&fatal);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&fatal, fatal_signals[i]);
	pthread_sigmask(SIG_BLOCK, &fatal, &old);
	int fd = mkstemp(template);
	int saved_errno = errno;
	*slot = fd < 0 ? -1 : tempfile_register(template);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
	return fd;
}
