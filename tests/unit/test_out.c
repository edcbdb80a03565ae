/* Unit tests for base/out.c's temporary files and base/tempfile.c: a fatal
 * signal during a write removes the temporary, keeps the old file, and the
 * process still dies of the signal. */
#include "harness.h"

#include "base/out.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Entries of dir other than . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void signal_mid_write(struct unit_test *t_, int sig)
{
	char dir[] = "/tmp/scorch-unit-out-XXXXXX";
	REQUIRE(mkdtemp(dir));
	char target[64];
	snprintf(target, sizeof(target), "%s/graph.svg", dir);
	FILE *f = fopen(target, "w");
	REQUIRE(f);
	fputs("old\n", f);
	fclose(f);

	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		/* A test run in the background inherits SIGINT ignored (and an
		 * ignored signal is left ignored): start from the default. */
		signal(sig, SIG_DFL);
		struct out *o = out_open(target);
		if (!o)
			_exit(3);
		for (int i = 0; i < 1000; i++)
			out_puts(o, "a half-written graph\n");
		out_flush(o);
		if (count_entries(dir) != 2) /* the target and the temporary */
			_exit(4);
		kill(getpid(), sig);
		_exit(5); /* not reached: the signal kills us */
	}
	int status;
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status));
	if (WIFSIGNALED(status))
		CHECK_EQ_U64(WTERMSIG(status), sig);
	else
		unit_fail(t_, __FILE__, __LINE__, "child exited with %d", WEXITSTATUS(status));
	CHECK_EQ_U64(count_entries(dir), 1); /* the temporary is gone */
	char buf[16] = { 0 };
	f = fopen(target, "r");
	REQUIRE(f);
	CHECK(fread(buf, 1, sizeof(buf) - 1, f) == 4);
	fclose(f);
	CHECK_STR(buf, "old\n");
	unlink(target);
	rmdir(dir);
}

TEST(out_temp_removed_on_sigint) { signal_mid_write(t_, SIGINT); }
TEST(out_temp_removed_on_sigterm) { signal_mid_write(t_, SIGTERM); }
TEST(out_temp_removed_on_sighup) { signal_mid_write(t_, SIGHUP); }
TEST(out_temp_removed_on_sigpipe) { signal_mid_write(t_, SIGPIPE); }
TEST(out_temp_removed_on_sigxfsz) { signal_mid_write(t_, SIGXFSZ); }
