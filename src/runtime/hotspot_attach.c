/* HotSpot's attach protocol (hotspot_attach.h). */
#include "runtime/hotspot_attach.h"

#include "runtime/proc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The value of "Key:" in /proc/PID/status (its last field when last). */
static bool status_field(pid_t pid, const char *key, bool last, char *val, size_t cap)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	bool found = false;
	size_t kl = strlen(key);
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl))
			continue;
		char *v = line + kl;
		v[strcspn(v, "\n")] = 0;
		if (last) {
			char *sp = strrchr(v, '\t');
			char *sp2 = strrchr(v, ' ');
			v = sp2 > sp ? sp2 : sp ? sp : v;
		}
		v += strspn(v, " \t");
		snprintf(val, cap, "%s", v);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

pid_t hotspot_nspid(pid_t pid)
{
	char v[32];
	if (!status_field(pid, "NSpid:", true, v, sizeof(v)))
		return pid;
	long n = strtol(v, NULL, 10);
	return n > 0 ? (pid_t)n : pid;
}

/* Whether the process catches SIGQUIT (a JVM's handler starts the attach
 * listener; a process that does not catch it would die of it). */
static bool catches_sigquit(pid_t pid)
{
	char v[32];
	if (!status_field(pid, "SigCgt:", false, v, sizeof(v)))
		return false;
	unsigned long long mask = strtoull(v, NULL, 16);
	return mask >> (SIGQUIT - 1) & 1;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The socket at path, when it is one and its owner is uid or root. */
static bool socket_ready(const char *path, uid_t uid)
{
	struct stat st;
	return !lstat(path, &st) && S_ISSOCK(st.st_mode) && (st.st_uid == uid || st.st_uid == 0);
}

enum { TRIGGER_THEIRS = -2 };

/* Make the trigger file name in the JVM's working directory, else in tmp;
 * returns the directory's descriptor, TRIGGER_THEIRS when the file is
 * there already (another client, a second recorder or jcmd, is asking the
 * JVM at the same time: the JVM only looks for the file, so it serves us
 * too, and it is theirs to remove), or -1 when none could be made. The
 * file is removed through that descriptor: the path /proc/PID/cwd no
 * longer leads there once the JVM has exited, which it may do while it is
 * waited for. */
static int make_trigger(pid_t pid, const char *tmp, const char *name)
{
	char dir[96];
	snprintf(dir, sizeof(dir), "/proc/%d/cwd", (int)pid);
	for (int i = 0; i < 2; i++) {
		int dfd = open(i ? tmp : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			continue;
		int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		int err = errno;
		if (fd >= 0) {
			close(fd);
			return dfd;
		}
		close(dfd);
		if (err == EEXIST)
			return TRIGGER_THEIRS;
		errno = err;
	}
	return -1;
}

/* Wait for the JVM's socket, starting its listener when needed. */
static int wait_for_socket(pid_t pid, int pidfd, pid_t nspid, const char *tmp, const char *sock, uid_t uid,
			   int timeout_ms, char *why, size_t why_cap)
{
	if (socket_ready(sock, uid))
		return 0;
	if (!catches_sigquit(pid)) {
		snprintf(why, why_cap, "it does not handle SIGQUIT (-Xrs?), so it cannot be asked to attach");
		return HOTSPOT_NOT_YET;
	}
	char trigger[32];
	snprintf(trigger, sizeof(trigger), ".attach_pid%d", (int)nspid);
	int dfd = make_trigger(pid, tmp, trigger);
	if (dfd < 0 && dfd != TRIGGER_THEIRS) {
		snprintf(why, why_cap, "cannot create its attach trigger file: %s", strerror(errno));
		return -1;
	}
	long start = now_ms();
	bool resent = false, gone = false;
	int ret = -1;
	if (pidfd_send_signal(pidfd, SIGQUIT, NULL, 0) == 0) {
		for (int delay = 100; now_ms() - start < timeout_ms; delay += 100) {
			long left = timeout_ms - (now_ms() - start);
			struct timespec ts = { 0, (delay < left ? delay : left) * 1000000L };
			nanosleep(&ts, NULL);
			if (socket_ready(sock, uid)) {
				ret = 0;
				break;
			}
			if (!proc_alive((uint32_t)pid)) { /* exited (or a zombie): it will not answer */
				gone = true;
				break;
			}
			if (!resent && now_ms() - start > timeout_ms / 2) {
				resent = true;
				pidfd_send_signal(pidfd, SIGQUIT, NULL, 0);
			}
		}
	}
	if (dfd >= 0) {
		unlinkat(dfd, trigger, 0);
		close(dfd);
	}
	if (gone)
		snprintf(why, why_cap, "it exited %ld ms after it was asked to start its attach listener "
			 "(-XX:+DisableAttachMechanism?)", now_ms() - start);
	else if (ret)
		snprintf(why, why_cap, "its attach listener did not start within %d ms (-XX:+DisableAttachMechanism?)",
			 timeout_ms);
	return ret;
}

/* Send the request and read the reply (until the JVM closes). */
static int exchange(const char *sock, const char *command, long deadline, char *out, size_t out_cap,
		    char *why, size_t why_cap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(sock) >= sizeof(sa.sun_path)) {
		snprintf(why, why_cap, "its socket path is too long: %s", sock);
		return -1;
	}
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(why, why_cap, "cannot connect to %s: %s", sock, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* protocol "1", command "jcmd", three arguments: the command line, "", "" */
	char req[512];
	int n = snprintf(req, sizeof(req), "1%cjcmd%c%s%c%c%c", 0, 0, command, 0, 0, 0);
	if (n < 0 || (size_t)n >= sizeof(req) || send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		snprintf(why, why_cap, "cannot send the request: %s", strerror(errno));
		close(fd);
		return -1;
	}
	char buf[4096];
	size_t got = 0;
	for (;;) {
		long left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			snprintf(why, why_cap, "no reply in time");
			close(fd);
			return -1;
		}
		ssize_t r = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == sizeof(buf) - 1) /* the rest of a long output is not needed */
			break;
	}
	close(fd);
	buf[got] = 0;
	char *end;
	long status = strtol(buf, &end, 10);
	if (end == buf || *end != '\n') {
		snprintf(why, why_cap, "an unreadable reply (%zu bytes)", got);
		return -1;
	}
	if (out && out_cap)
		snprintf(out, out_cap, "%s", end + 1);
	return (int)status;
}

int hotspot_jcmd(pid_t pid, const char *command, int timeout_ms, char *out, size_t out_cap,
		 char *why, size_t why_cap)
{
	long deadline = now_ms() + timeout_ms;
	pid_t nspid = hotspot_nspid(pid);
	char tmp[64], sock[128], proc[32];
	if (nspid == pid)
		snprintf(tmp, sizeof(tmp), "/tmp");
	else
		snprintf(tmp, sizeof(tmp), "/proc/%d/root/tmp", (int)pid);
	snprintf(sock, sizeof(sock), "%s/.java_pid%d", tmp, (int)nspid);
	struct stat st;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (stat(proc, &st)) {
		snprintf(why, why_cap, "it is gone");
		return -1;
	}
	/* pid was a JVM when the caller looked; it may have exited since and
	 * its number gone to another process (pid_max can be 32768: a few
	 * seconds of process churn), which may catch SIGQUIT too (gcc's
	 * collect2 does). A pidfd names one process for good: the JVM check
	 * is made after it is taken, and the signals go through it, so a
	 * number reused after the check gets nothing (ESRCH). */
	int pidfd = (int)pidfd_open(pid, 0);
	if (pidfd < 0) {
		snprintf(why, why_cap, "it is gone");
		return -1;
	}
	if (proc_runtime_kind((uint32_t)pid) != PROC_RUNTIME_JVM) {
		close(pidfd);
		snprintf(why, why_cap, "it is no longer a JVM (it exited)");
		return -1;
	}
	int waited = wait_for_socket(pid, pidfd, nspid, tmp, sock, st.st_uid, timeout_ms, why, why_cap);
	close(pidfd);
	if (waited)
		return waited;
	return exchange(sock, command, deadline > now_ms() + 1000 ? deadline : now_ms() + 1000, out, out_cap,
			why, why_cap);
}
