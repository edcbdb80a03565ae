/* runtime/hotspot_*: the vmStructs reader on a real JVM (the machine's
 * java, OpenJDK 17 on Debian 12), its layout held to the values checked
 * by hand (doc/runtimes.md) and its interpreter's code range to the one
 * the JVM's own perf map gives the `Interpreter` blob (asked for with
 * Compiler.perfmap through the attach protocol); and the Method* namer
 * on the fuzz target's seeds (tests/fuzz/make-seeds-jvm.py: a method
 * built with a known name, and copies each broken in one link). */
#include "harness.h"

#include "runtime/hotspot_attach.h"
#include "runtime/hotspot_jvm.h"
#include "runtime/hotspot_method.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char idle_java[] = "public class Idle {\n"
				"    public static void main(String[] a) throws Exception {\n"
				"        System.out.println(\"ready\");\n"
				"        Thread.sleep(120000);\n"
				"    }\n"
				"}\n";

/* java DIR/Idle.java (the source launcher: no javac step), up to its "ready". */
static pid_t start_idle(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/Idle.java", dir);
	if (unit_write_file(path, idle_java))
		return -1;
	int fds[2];
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execlp("java", "java", "-Xshare:auto", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char buf[16] = { 0 };
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	if (n <= 0 || strncmp(buf, "ready", 5)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* The Interpreter line of the JVM's perf map: its start and size. */
static bool perfmap_interpreter(pid_t pid, uint64_t *start, uint64_t *size)
{
	char out[256], why[256], path[64];
	if (hotspot_jcmd(pid, "Compiler.perfmap", 20000, out, sizeof(out), why, sizeof(why)) != 0)
		return false;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)hotspot_nspid(pid));
	FILE *f = fopen(path, "r");
	bool found = false;
	char line[4096];
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long a, n;
		int at = 0;
		if (sscanf(line, "%llx %llx %n", &a, &n, &at) == 2 && !strcmp(line + at, "Interpreter\n")) {
			*start = a;
			*size = n;
			found = true;
		}
	}
	if (f)
		fclose(f);
	unlink(path);
	return found;
}

TEST(hotspot_real_jvm_layout_and_interpreter)
{
	char dir[] = "/tmp/scorch-unit-jvm-XXXXXX";
	REQUIRE(mkdtemp(dir));
	pid_t pid = start_idle(dir);
	char path[4096];
	snprintf(path, sizeof(path), "%s/Idle.java", dir);
	if (pid < 0) {
		unlink(path);
		rmdir(dir);
		REQUIRE(!"java runs Idle.java (scripts/setup installs OpenJDK 17)");
	}
	struct hotspot_jvm j;
	const char *why = NULL;
	enum hotspot_found found = hotspot_jvm_find(&j, (uint32_t)pid, NULL, &why);
	CHECK(found == HOTSPOT_FOUND);
	if (found == HOTSPOT_FOUND) {
		const struct hotspot_layout *l = &j.layout;
		/* OpenJDK 17's values (every 17 build for x86-64 so far) */
		CHECK_EQ_U64(l->method_const_method, 8);
		CHECK_EQ_U64(l->const_method_constants, 8);
		CHECK_EQ_U64(l->const_method_name_index, 34);
		CHECK_EQ_U64(l->const_method_signature_index, 36);
		CHECK_EQ_U64(l->pool_holder, 24);
		CHECK_EQ_U64(l->pool_size, 72);
		CHECK_EQ_U64(l->klass_name, 24);
		CHECK_EQ_U64(l->symbol_length, 4);
		CHECK_EQ_U64(l->symbol_body, 6);
		CHECK_EQ_U64(l->queue_buffer, 8);
		CHECK_EQ_U64(l->queue_limit, 20);
		CHECK(hotspot_jvm_interpreter(&j));
		uint64_t start = 0, size = 0;
		CHECK(perfmap_interpreter(pid, &start, &size));
		CHECK_EQ_U64(j.interp_lo, start);
		CHECK_EQ_U64(j.interp_hi - j.interp_lo, size);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(path);
	rmdir(dir);
}

/* The fuzz target's memory: header (15 bytes) then bytes at BASE. */
#define SEED_BASE 0x10000000ull
struct seed {
	uint8_t *bytes;
	size_t len;
};

static bool read_seed(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct seed *s = arg;
	if (addr < SEED_BASE || addr - SEED_BASE > s->len || len > s->len - (addr - SEED_BASE))
		return false;
	memcpy(buf, s->bytes + (addr - SEED_BASE), len);
	return true;
}

/* Name the seed's method; NULL when refused ("" when the tables are). */
static const char *seed_name(const char *name, char *out)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/fuzz/corpus/jvm/%s", name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return "(no seed file)";
	static uint8_t data[1 << 16];
	size_t n = fread(data, 1, sizeof(data), f);
	fclose(f);
	if (n < 15)
		return "(short seed)";
	struct seed s = { data + 15, n - 15 };
	struct hotspot_exports ex = {
		SEED_BASE + (data[0] | data[1] << 8), data[4], data[5], data[6], data[7], data[8], data[9],
		SEED_BASE + (data[2] | data[3] << 8), data[10], data[11], data[12],
	};
	struct hotspot_layout l;
	const char *why;
	if (!hotspot_structs_read(read_seed, &s, &ex, &l, &why))
		return "";
	uint64_t method = SEED_BASE + (data[13] | data[14] << 8);
	return hotspot_method_name(read_seed, &s, &l, method, out, HOTSPOT_NAME_CAP) ? out : NULL;
}

TEST(hotspot_method_named_and_refused)
{
	char *out = malloc(HOTSPOT_NAME_CAP);
	REQUIRE(out);
	CHECK_STR(seed_name("jdk17", out), "void Phases$Alpha.run(java.lang.String, int[][], long)");
	CHECK(seed_name("bad-signature", out) == NULL);
	CHECK(seed_name("bad-tag", out) == NULL);
	CHECK(seed_name("not-listed", out) == NULL);
	CHECK_STR(seed_name("missing-field", out), ""); /* a table without a field scorch needs is refused */
	CHECK_STR(seed_name("truncated", out), "");     /* so is one cut short */
	free(out);
}
