/* runtime/python: a real interpreter (Debian's /usr/bin/python3.11, and
 * pyenv's builds where present) runs a script whose threads spin in known
 * functions; the test finds the interpreter, reads each thread's frames
 * from outside (process_vm_readv) and checks names, files, lines and the
 * entry marks between the evaluator's runs. 3.8-3.10 have no qualified
 * names (co_name: "meth", not "K.meth") and run every frame in an
 * evaluator activation of its own (every frame is an entry). */
#include "harness.h"

#include "runtime/python.h"
#include "runtime/python_decode.h"
#include "runtime/python_layouts.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* Lines matter: the test checks them (keyfn's loop is lines 4-5, leaf's
 * 9-10, down's calls 16 and 17). */
static const char script[] =
	"import sys, threading\n"                                 /* 1 */
	"sys.setrecursionlimit(5000)\n"                           /* 2 */
	"def keyfn(v):\n"                                         /* 3 */
	"    while True:\n"                                       /* 4 */
	"        v += 1\n"                                        /* 5 */
	"def outer():\n"                                          /* 6 */
	"    return sorted([3, 1, 2], key=keyfn)\n"               /* 7 */
	"def leaf():\n"                                           /* 8 */
	"    while True:\n"                                       /* 9 */
	"        pass\n"                                          /* 10 */
	"class K:\n"                                              /* 11 */
	"    def meth(self):\n"                                   /* 12 */
	"        leaf()\n"                                        /* 13 */
	"def down(n):\n"                                          /* 14 */
	"    if n == 0:\n"                                        /* 15 */
	"        K().meth()\n"                                    /* 16 */
	"    down(n - 1)\n"                                       /* 17 */
	"def deep():\n"                                           /* 18 */
	"    down(1000)\n"                                        /* 19 */
	"t = threading.Thread(target=deep, daemon=True)\n"        /* 20 */
	"t.start()\n"                                             /* 21 */
	"print(t.native_id, flush=True)\n"                        /* 22 */
	"outer()\n";                                              /* 23 */

struct child {
	pid_t pid;
	int out;             /* its stdout, open until it is stopped */
	uint32_t worker_tid;
};

static bool start_python(const char *python, const char *script_path, struct child *c)
{
	int fds[2];
	if (pipe(fds))
		return false;
	c->pid = fork();
	if (c->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(python, python, script_path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	c->out = fds[0];
	char buf[64] = { 0 };
	size_t have = 0;
	while (have < sizeof(buf) - 1 && !memchr(buf, '\n', have)) {
		ssize_t n = read(c->out, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	c->worker_tid = memchr(buf, '\n', have) ? (uint32_t)strtoul(buf, NULL, 10) : 0;
	usleep(200 * 1000); /* the main thread reaches keyfn */
	return c->pid > 0 && c->worker_tid;
}

static void stop_python(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	close(c->out);
}

static const char *name_of(struct python_proc *p, uint64_t f, int *line)
{
	python_note_frame(p, f);
	const char *s = python_frame_name(p, f, line);
	return s ? s : "(unreadable)";
}

static void check_interpreter(struct unit_test *t_, const char *python, uint32_t want_minor)
{
	char path[] = "/tmp/scorch-unit-py-XXXXXX.py";
	int fd = mkstemps(path, 3);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, script, sizeof(script) - 1) == (ssize_t)(sizeof(script) - 1));
	close(fd);
	const char *base = strrchr(path, '/') + 1;
	struct child c = { 0, -1, 0 };
	bool started = start_python(python, path, &c);
	if (!started) {
		if (c.pid > 0)
			stop_python(&c);
		unlink(path);
		REQUIRE(started);
	}
	struct python_proc p;
	enum python_found found = python_detect(&p, (uint32_t)c.pid, NULL);
	CHECK(found == PYTHON_SUPPORTED);
	CHECK_EQ_U64((p.version >> 16) & 0xff, want_minor);
	struct python_offsets table;
	if (want_minor == 13) /* read from its _Py_DebugOffsets: the same as the headers' */
		CHECK(python_layout_of(0x030d0000, &table) && (table.version = p.off.version, 1) &&
		      !memcmp(&table, &p.off, sizeof(table)));
	uint64_t *fr = calloc(PYTHON_MAX_FRAMES, sizeof(*fr));
	char want[512];
	int line;
	bool old = want_minor < 11; /* frame objects: no qualname, one run per frame */
	/* The main thread: keyfn (called by sorted, a C function: its own
	 * run), then outer and the module (one run). */
	int n = python_thread_frames(&p, (uint32_t)c.pid, fr, NULL, PYTHON_MAX_FRAMES);
	CHECK_EQ_U64(n, 3);
	if (n == 3) {
		snprintf(want, sizeof(want), "keyfn (%s)", base);
		CHECK_STR(name_of(&p, fr[0], &line), want);
		CHECK(line == 4 || line == 5); /* the loop jumps back on the while's line */
		CHECK_EQ_U64(PYTHON_FRAME_ENTRY(fr[0]), 1);
		snprintf(want, sizeof(want), "outer (%s)", base);
		CHECK_STR(name_of(&p, fr[1], &line), want);
		CHECK_EQ_U64(line, 7);
		CHECK_EQ_U64(PYTHON_FRAME_ENTRY(fr[1]), old);
		snprintf(want, sizeof(want), "<module> (%s)", base);
		CHECK_STR(name_of(&p, fr[2], &line), want);
		CHECK_EQ_U64(line, 23);
		CHECK_EQ_U64(PYTHON_FRAME_ENTRY(fr[2]), 1);
	}
	/* The worker: leaf, K.meth, 1001 down frames, deep, then threading's
	 * own frames (Thread.run ... _bootstrap). */
	n = python_thread_frames(&p, c.worker_tid, fr, NULL, PYTHON_MAX_FRAMES);
	CHECK(n >= 1004 + 3);
	if (n >= 1004) {
		snprintf(want, sizeof(want), "leaf (%s)", base);
		CHECK_STR(name_of(&p, fr[0], &line), want);
		CHECK(line == 9 || line == 10);
		snprintf(want, sizeof(want), "%s (%s)", old ? "meth" : "K.meth", base);
		CHECK_STR(name_of(&p, fr[1], &line), want);
		CHECK_EQ_U64(line, 13);
		snprintf(want, sizeof(want), "down (%s)", base);
		CHECK_STR(name_of(&p, fr[2], &line), want);
		CHECK_EQ_U64(line, 16);
		int downs = 0;
		for (int i = 2; i < n; i++)
			downs += !strcmp(name_of(&p, fr[i], NULL), want);
		CHECK_EQ_U64(downs, 1001);
		CHECK_EQ_U64(name_of(&p, fr[3], &line) == name_of(&p, fr[2], NULL), 1);
		CHECK_EQ_U64(line, 17);
		snprintf(want, sizeof(want), "deep (%s)", base);
		CHECK_STR(name_of(&p, fr[1003], &line), want);
		CHECK_EQ_U64(line, 19);
		if (want_minor == 11) /* Thread.run's call with *args goes through C there */
			CHECK_EQ_U64(PYTHON_FRAME_ENTRY(fr[1003]), 1);
		CHECK_STR(name_of(&p, fr[1004], NULL), old ? "run (threading.py)" : "Thread.run (threading.py)");
		CHECK_STR(name_of(&p, fr[n - 1], NULL),
			  old ? "_bootstrap (threading.py)" : "Thread._bootstrap (threading.py)");
		if (old)
			for (int i = 0; i < n; i++)
				CHECK_EQ_U64(PYTHON_FRAME_ENTRY(fr[i]), 1);
		CHECK_EQ_U64(PYTHON_FRAME_ENTRY(fr[n - 1]), 1);
	}
	/* Which frames a sample shows running (python_at_sample.c), from
	 * words as a sample's registers and stack would hold them: the
	 * frame's address (and, 3.11+, a pointer into its bytecode; before,
	 * its callers' frame objects too). */
	uint64_t *at = calloc(PYTHON_MAX_FRAMES, sizeof(*at));
	n = python_thread_frames(&p, c.worker_tid, fr, at, PYTHON_MAX_FRAMES);
	CHECK(n >= 1004);
	if (n >= 1004) {
		uint64_t regs[16] = { 0 };
		uint8_t stack[16 * 8];
		size_t nw = 0;
		const uint8_t none[8] = { 0 };
		for (int k = 0; k < 2; k++) {
			nw = 0;
			if (old) {
				for (int j = k; j < k + 9; j++)
					regs[nw++] = at[j];
			} else {
				regs[nw++] = at[k];
				regs[nw++] = PYTHON_FRAME_CODE(fr[k]) + p.off.code_adaptive + 2; /* next_instr */
			}
			memset(stack, 0, sizeof(stack));
			memcpy(stack, regs, nw * 8); /* the same words found in the stack copy */
			CHECK_EQ_U64(python_first_at_sample(&p, fr, at, n, regs, nw, none, 0), k);
			CHECK_EQ_U64(python_first_at_sample(&p, fr, at, n, NULL, 0, stack, nw * 8), k);
		}
		CHECK_EQ_U64(python_first_at_sample(&p, fr, at, n, NULL, 0, none, 0), n);
		regs[0] = at[0]; /* the leaf's address alone: its bytecode or callers are missing */
		CHECK_EQ_U64(python_first_at_sample(&p, fr, at, n, regs, 1, none, 0), n);
	}
	free(at);
	/* A thread that is not the interpreter's: no frames. */
	CHECK_EQ_U64(python_thread_frames(&p, 1, fr, NULL, PYTHON_MAX_FRAMES), 0);
	free(fr);
	python_proc_release(&p);
	stop_python(&c);
	unlink(path);
}

TEST(python_debian_311_frames)
{
	/* Debian's python3 (scripts/setup installs it): missing is a failure. */
	REQUIRE(access("/usr/bin/python3.11", X_OK) == 0);
	check_interpreter(t_, "/usr/bin/python3.11", 11);
}

static void check_pyenv(struct unit_test *t_, const char *version, uint32_t minor)
{
	const char *root = getenv("PYENV_ROOT");
	char path[512];
	snprintf(path, sizeof(path), "%s/versions/%s/bin/python3.%u", root ? root : "/root/.pyenv", version, minor);
	if (access(path, X_OK))
		SKIP("no pyenv build of this version here");
	check_interpreter(t_, path, minor);
}

TEST(python_pyenv_38_frames) { check_pyenv(t_, "3.8.18", 8); }
TEST(python_pyenv_39_frames) { check_pyenv(t_, "3.9.18", 9); }
TEST(python_pyenv_310_frames) { check_pyenv(t_, "3.10.13", 10); }
TEST(python_pyenv_311_frames) { check_pyenv(t_, "3.11.7", 11); }
TEST(python_pyenv_312_frames) { check_pyenv(t_, "3.12.1", 12); }
TEST(python_pyenv_313_frames) { check_pyenv(t_, "3.13.0", 13); }

/* 2.7, 3.6 and 3.7 (no layout in the table; 2.7 and 3.6 have no
 * _PyRuntime): found, not read, and the version says which. */
static void check_unread(struct unit_test *t_, const char *version, const char *exe, uint32_t want)
{
	const char *root = getenv("PYENV_ROOT");
	char py[512], path[] = "/tmp/scorch-unit-py-XXXXXX.py";
	snprintf(py, sizeof(py), "%s/versions/%s/bin/%s", root ? root : "/root/.pyenv", version, exe);
	if (access(py, X_OK))
		SKIP("no pyenv build of this version here");
	static const char spin[] = "import sys\nsys.stdout.write('1\\n')\nsys.stdout.flush()\nwhile True: pass\n";
	int fd = mkstemps(path, 3);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, spin, sizeof(spin) - 1) == (ssize_t)(sizeof(spin) - 1));
	close(fd);
	struct child c = { 0, -1, 0 };
	bool started = start_python(py, path, &c);
	if (started) {
		struct python_proc p;
		CHECK(python_detect(&p, (uint32_t)c.pid, NULL) == PYTHON_UNSUPPORTED);
		CHECK_EQ_U64(p.version & 0xffff0000u, want);
		CHECK(p.why != NULL);
		uint64_t fr[4];
		CHECK_EQ_U64(python_thread_frames(&p, (uint32_t)c.pid, fr, NULL, 4), (uint64_t)-1);
		python_proc_release(&p);
	}
	if (c.pid > 0)
		stop_python(&c);
	unlink(path);
	CHECK(started);
}

TEST(python_pyenv_27_unread) { check_unread(t_, "2.7.18", "python2.7", 0x02070000); }
TEST(python_pyenv_36_unread) { check_unread(t_, "3.6.15", "python3.6", 0x03060000); }
TEST(python_pyenv_37_unread) { check_unread(t_, "3.7.16", "python3.7", 0x03070000); }

TEST(python_unknown_version_is_unsupported)
{
	struct python_offsets o;
	CHECK(!python_layout_of(0x03070000, &o)); /* 3.7: not read */
	CHECK(python_layout_of(0x030a0d00, &o) && o.tstate_native_thread_id == PYTHON_NO_OFFSET &&
	      o.frame_kind == PYTHON_FRAMES_OBJECTS);
	CHECK(!python_layout_of(0x030e0000, &o)); /* 3.14: its debug offsets are laid out differently */
	CHECK(python_layout_of(0x030b02f0, &o) && o.version == 0x030b02f0 && o.frame_is_entry == 68);
	uint8_t block[PYTHON_DEBUG_OFFSETS_SIZE] = "xdebugpy";
	uint64_t v = 0x030e00f0;
	memcpy(block + 8, &v, 8);
	CHECK(!python_layout_from_debug(block, sizeof(block), &o));
}

/* A property over every version number: a layout exactly for the
 * versions the table was made for (3.8 to 3.13, any patch release), none
 * for the others, whose processes then get the notice and native frames;
 * and a _Py_DebugOffsets block is read only when it says 3.13 and not
 * free-threaded. */
TEST(python_layouts_only_for_known_versions)
{
	for (uint32_t major = 0; major < 6; major++) {
		for (uint32_t minor = 0; minor < 40; minor++) {
			for (uint32_t micro = 0; micro < 24; micro += 7) {
				uint32_t v = major << 24 | minor << 16 | micro << 8 | 0xf0;
				struct python_offsets o;
				bool known = major == 3 && minor >= 8 && minor <= 13;
				bool got = python_layout_of(v, &o);
				CHECK_EQ_U64(got, known);
				if (got)
					CHECK(o.version == v && (o.frame_kind == PYTHON_FRAMES_OBJECTS) == (minor < 11) &&
					      (o.tstate_native_thread_id == PYTHON_NO_OFFSET) == (minor < 11));
				uint8_t block[PYTHON_DEBUG_OFFSETS_SIZE];
				struct python_offsets d;
				if (!python_layout_of(0x030d00f0, &d))
					continue;
				for (int ft = 0; ft < 2; ft++) {
					memset(block, 0, sizeof(block));
					memcpy(block, "xdebugpy", 8);
					uint64_t word = v, free_threaded = (uint64_t)ft;
					memcpy(block + 8, &word, 8);
					memcpy(block + 16, &free_threaded, 8);
					CHECK_EQ_U64(python_layout_from_debug(block, sizeof(block), &d),
						     major == 3 && minor == 13 && !ft);
				}
			}
		}
	}
}

/* Location table entries built by hand from Objects/locations.md. */
TEST(python_line_table)
{
	/* code 13 (line delta svarint) len 2: +3; code 10 (delta 0, 2 bytes)
	 * len 1; code 15 (no location) len 1; code 14 (long) len 3: -1. */
	const uint8_t t[] = { 0x80 | 13 << 3 | 1, 6, 0x80 | 10 << 3, 1, 2, 0x80 | 15 << 3,
			      0x80 | 14 << 3 | 2, 3, 0, 1, 1 };
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 0), 13);
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 1), 13);
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 2), 13);
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 3), (uint64_t)-1);
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 4), 12);
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 6), 12);
	CHECK_EQ_U64(python_line_of(t, sizeof(t), 10, 7), (uint64_t)-1); /* past the table */
	CHECK_EQ_U64(python_line_of(t, 3, 10, 2), (uint64_t)-1);           /* cut inside an entry */
	const uint8_t bad[] = { 0x05 };
	CHECK_EQ_U64(python_line_of(bad, 1, 10, 0), (uint64_t)-1);
}

/* 3.8-3.9's co_lnotab and 3.10's co_linetable, built by hand from
 * Objects/lnotab_notes.txt: bytecode bytes, then a signed line delta. */
TEST(python_old_line_tables)
{
	/* lnotab: bytes 0-5 line 10, 6-9 line 12, 10- line 11 (a -1 delta) */
	const uint8_t lnotab[] = { 6, 2, 4, 0xff };
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, sizeof(lnotab), 10, 0), 10);
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, sizeof(lnotab), 10, 2), 10);
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, sizeof(lnotab), 10, 3), 12);
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, sizeof(lnotab), 10, 4), 12);
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, sizeof(lnotab), 10, 5), 11);
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, sizeof(lnotab), 10, 500), 11);
	CHECK_EQ_U64(python_line_of_lnotab(lnotab, 1, 10, 5), 10); /* a cut pair is not read */
	/* 3.10: [0,4) line 10+1, [4,8) no line, [8,10) 11+2, then the end */
	const uint8_t t310[] = { 4, 1, 4, 0x80, 2, 2 };
	CHECK_EQ_U64(python_line_of_310(t310, sizeof(t310), 10, 0), 11);
	CHECK_EQ_U64(python_line_of_310(t310, sizeof(t310), 10, 1), 11);
	CHECK_EQ_U64(python_line_of_310(t310, sizeof(t310), 10, 2), (uint64_t)-1);
	CHECK_EQ_U64(python_line_of_310(t310, sizeof(t310), 10, 4), 13);
	CHECK_EQ_U64(python_line_of_310(t310, sizeof(t310), 10, 5), (uint64_t)-1); /* past the table */
	CHECK_EQ_U64(python_line(PYTHON_LINES_310, t310, sizeof(t310), 10, 4), 13);
	CHECK_EQ_U64(python_line(PYTHON_LINES_LNOTAB, lnotab, sizeof(lnotab), 10, 3), 12);
	CHECK_EQ_U64(python_line(99, lnotab, sizeof(lnotab), 10, 3), (uint64_t)-1);
}

TEST(python_short_file_names)
{
	char out[64];
	python_short_file("/usr/lib/python3.11/threading.py", out, sizeof(out));
	CHECK_STR(out, "threading.py");
	python_short_file("/usr/lib/python3.11/json/__init__.py", out, sizeof(out));
	CHECK_STR(out, "json/__init__.py");
	python_short_file("<string>", out, sizeof(out));
	CHECK_STR(out, "<string>");
	CHECK(python_is_eval_frame("_PyEval_EvalFrameDefault"));
	CHECK(python_is_eval_frame("_PyEval_EvalFrameDefault.cold"));
	CHECK(!python_is_eval_frame("_PyEval_EvalFrame"));
	CHECK(!python_is_eval_frame("PyEval_EvalFrameEx"));
}

/* The process's maps hold libpython but not yet libc. */
static bool between_libpython_and_libc(pid_t pid)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	bool py = false, libc = false;
	while (f && fgets(line, sizeof(line), f)) {
		py |= strstr(line, "libpython3.8") != NULL;
		libc |= strstr(line, "/libc.so") != NULL;
	}
	if (f)
		fclose(f);
	return py && !libc;
}

/* A process met as it starts, while the loader has mapped libpython but
 * not yet libc (stopped there by ptrace, at a system call's exit): 3.8-3.10
 * need libc for the threads' ids, so the answer is "no verdict yet", not
 * "cannot be read" (record counted such a process as unread for the whole
 * run, with a wrong notice); once running, the same process is read. */
TEST(python_pyenv_38_while_loading_no_verdict)
{
	const char *root = getenv("PYENV_ROOT");
	char py[512];
	snprintf(py, sizeof(py), "%s/versions/3.8.18/bin/python3.8", root ? root : "/root/.pyenv");
	if (access(py, X_OK))
		SKIP("no pyenv build of 3.8.18 here");
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(py, py, "-c", "while True: pass", (char *)NULL);
		_exit(127);
	}
	int status = 0;
	REQUIRE(waitpid(pid, &status, 0) == pid); /* at the exec */
	bool window = false;
	for (int i = 0; i < 4000 && !window; i++) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			break;
		window = between_libpython_and_libc(pid);
	}
	CHECK(window);
	struct python_proc p;
	if (window) {
		CHECK(python_detect(&p, (uint32_t)pid, NULL) == PYTHON_NONE);
		python_proc_release(&p);
	}
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	enum python_found f = PYTHON_NONE;
	for (int i = 0; i < 200 && f == PYTHON_NONE; i++) { /* until the loader is done */
		usleep(10000);
		f = python_detect(&p, (uint32_t)pid, NULL);
		if (f == PYTHON_NONE)
			python_proc_release(&p);
	}
	CHECK(f == PYTHON_SUPPORTED);
	if (f != PYTHON_NONE)
		python_proc_release(&p);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
