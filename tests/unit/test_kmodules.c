/* Kernel-module symbols from kallsyms: record names a module's frames
 * against the module ("[ext4]"), as perf script does, not against
 * [kernel.kallsyms]. The lines are /proc/kallsyms's shape with modules. */
#include "harness.h"
#include "profile/frame_rules.h"
#include "symbolize/kallsyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81002000 t do_one_initcall\n"
	"ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0a01000 t ext4_es_lookup_extent\t[ext4]\n"
	"ffffffffc0a01200 T ext4_map_blocks\t[ext4]\n"
	"ffffffffc0a01800 r ext4_ro_data\t[ext4]\n"
	"ffffffffc0a02000 t ext4_end\t[ext4]\n"
	"ffffffffc0b00000 t nvme_irq\t[nvme]\n"
	"ffffffffc0b00100 t nvme_queue_rq\t[nvme]\n"
	"ffffffffc0c00000 t bpf_prog_6deef7357e7b4530_sd_devices\t[bpf]\n";

static char *write_text(const char *text)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/kallsyms-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	size_t len = strlen(text);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static char *write_kallsyms(void)
{
	return write_text(kallsyms_text);
}

TEST(kmodules_name_module_frames_by_their_module)
{
	char *path = write_kallsyms();
	REQUIRE(path);
	struct kmodules m = { 0 };
	CHECK(kmodules_load(&m, path) == 2); /* ext4, nvme: not [bpf], [__builtin__ftrace] */
	const char *mod = NULL;
	CHECK_STR(kmodules_lookup(&m, 0xffffffffc0a01210, &mod), "ext4_map_blocks");
	CHECK_STR(mod, "[ext4]");
	CHECK_STR(kmodules_lookup(&m, 0xffffffffc0a01000, &mod), "ext4_es_lookup_extent");
	CHECK_STR(kmodules_lookup(&m, 0xffffffffc0b00180, &mod), "nvme_queue_rq");
	CHECK_STR(mod, "[nvme]");
	/* 'r' (read-only data) is not in perf's filter: ext4_map_blocks goes on */
	CHECK_STR(kmodules_lookup(&m, 0xffffffffc0a01900, &mod), "ext4_map_blocks");
	mod = NULL;
	CHECK(!kmodules_lookup(&m, 0xffffffffc0c00010, &mod)); /* a BPF program */
	CHECK(!kmodules_lookup(&m, 0xffffffffc0201010, &mod)); /* an ftrace trampoline */
	CHECK(!kmodules_lookup(&m, 0xffffffff81001010, &mod)); /* the kernel's own */
	CHECK(!mod);
	kmodules_release(&m);

	/* the kernel's table keeps its own symbols only */
	struct symtab t;
	symtab_init(&t);
	uint64_t text = 0;
	CHECK(kallsyms_load(&t, path, &text) == 3);
	CHECK_EQ_U64(text, 0xffffffff81000000);
	struct symbol *s = symtab_find(&t, 0xffffffff81001010);
	REQUIRE(s);
	CHECK_STR(symtab_name(&t, s), "start_kernel");
	symtab_release(&t);
	unlink(path);
	free(path);
}

/* The name record gives such a frame, with --kernel: what stackcollapse-perf
 * gives perf script's "ffffffffc0a01210 ext4_map_blocks+0x10 ([ext4])". */
TEST(kmodules_frames_annotated_as_kernel)
{
	char *line = NULL;
	size_t line_alloc = 0;
	struct frame_parts pp = { 0 };
	struct frame_opts o = { .kernel = true };
	struct frame_fields fr = { .symbol = "ext4_map_blocks", .offset = 0x10, .module = "[ext4]" };
	REQUIRE(frame_names_of(&fr, &o, &pp, &line, &line_alloc));
	REQUIRE(pp.nr == 1);
	struct frame_slice p = frame_part(&pp, 0);
	CHECK(p.n == strlen("ext4_map_blocks_[k]") && !memcmp(p.s, "ext4_map_blocks_[k]", p.n));
	frame_parts_release(&pp);
	free(line);
}

/* perf's reading of kallsyms lines: hex in either case, at most 16 digits,
 * no other character; types T/W/D/B in either case (not r, not '$'
 * names). Of symbols at one address the last survives (zero sizes: only
 * it reaches the next symbol), whatever the binding or the names. */
TEST(kallsyms_lines_as_perf_reads_them)
{
	char *path = write_text("FFFFFFFF81000000 T _text\n"
				"ffffffff81001000 W weak_alias_with_a_longer_name\n"
				"ffffffff81001000 t local_name\n"
				"ffffffff81002000 W upper_weak_longer\n"
				"ffffffff81002000 w lower_weak\n"
				"FfFfFfFf81003000 T Upper_Hex_Next\n"
				"1ffffffff81004000 T seventeen_digits\n"
				"ffffffff81005000 r rodata_sym\n"
				"ffffffff81006000 d data_sym\n"
				"ffffffff81007000 t $x\n"
				"ffffffff8100800g T bad_low_digit\n"
				"fffGffff81008000 T bad_high_digit\n"
				"ffffffff81:08000 T bad_punctuation\n"
				"ffffffff81009000 B end\n");
	REQUIRE(path);
	struct symtab t;
	symtab_init(&t);
	uint64_t text = 0;
	CHECK(kallsyms_load(&t, path, &text) == 8);
	CHECK_EQ_U64(text, 0xffffffff81000000);
	static const struct {
		uint64_t addr;
		const char *name;
	} want[] = {
		{ 0xffffffff81000010, "_text" },	  { 0xffffffff81001010, "local_name" },
		{ 0xffffffff81002010, "lower_weak" },	  { 0xffffffff81004010, "Upper_Hex_Next" },
		{ 0xffffffff81005010, "Upper_Hex_Next" }, { 0xffffffff81006010, "data_sym" },
		{ 0xffffffff81007010, "data_sym" },	  { 0xffffffff81009000, "end" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct symbol *s = symtab_find(&t, want[i].addr);
		REQUIRE(s);
		CHECK_STR(symtab_name(&t, s), want[i].name);
	}
	symtab_release(&t);
	unlink(path);
	free(path);
}

/* Every byte value in the first and in the second half of an address:
 * only the 22 hex digits make a line perf reads. */
TEST(kallsyms_addresses_take_hex_digits_only)
{
	static char text[2 * 256 * 40];
	size_t len = 0;
	int hex = 0;
	for (int half = 0; half < 2; half++)
		for (int b = 1; b < 256; b++) {
			if (b == '\n')
				continue;
			char addr[17] = "ffffffff81000000";
			addr[half ? 12 : 3] = (char)b;
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s T sym_%d_%d\n", addr, half, b);
			hex += (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
		}
	char *path = write_text(text);
	REQUIRE(path);
	struct symtab t;
	symtab_init(&t);
	uint64_t text_addr;
	CHECK_EQ_U64((uint64_t)kallsyms_load(&t, path, &text_addr), (uint64_t)hex);
	CHECK_EQ_U64((uint64_t)hex, 44);
	symtab_release(&t);
	unlink(path);
	free(path);
}

/* report reads perf record's copy of kallsyms (the build-id cache's) in
 * place of /proc/kallsyms when it begins as the live one up to the first
 * text symbol: the same kernel at the same KASLR offset. */
TEST(kallsyms_same_layout_compares_up_to_the_first_text_symbol)
{
	static const char live[] = "0000000000000000 A fixed_percpu_data\n"
				   "0000000000001000 A cpu_number\n"
				   "ffffffffa1000000 T _text\n"
				   "ffffffffa1001000 T start_kernel\n"
				   "ffffffffc0a01000 t ext4_es_lookup_extent\t[ext4]\n";
	/* the same up to _text; a module unloaded since, a symbol renamed */
	static const char later[] = "0000000000000000 A fixed_percpu_data\n"
				    "0000000000001000 A cpu_number\n"
				    "ffffffffa1000000 T _text\n"
				    "ffffffffa1001000 T start_kernel_renamed\n";
	/* another boot: another offset */
	static const char shifted[] = "0000000000000000 A fixed_percpu_data\n"
				      "0000000000001000 A cpu_number\n"
				      "ffffffff9e000000 T _text\n"
				      "ffffffff9e001000 T start_kernel\n";
	/* kptr_restrict: no addresses (never "the same": nothing to read) */
	static const char hidden[] = "0000000000000000 A fixed_percpu_data\n"
				     "0000000000000000 T _text\n"
				     "0000000000000000 T start_kernel\n";
	static const char no_text[] = "0000000000000000 A fixed_percpu_data\n";
	char *p_live = write_text(live), *p_later = write_text(later), *p_shifted = write_text(shifted);
	char *p_hidden = write_text(hidden), *p_no_text = write_text(no_text);
	REQUIRE(p_live && p_later && p_shifted && p_hidden && p_no_text);
	CHECK(kallsyms_same_layout(p_live, p_live));
	CHECK(kallsyms_same_layout(p_later, p_live));
	CHECK(!kallsyms_same_layout(p_shifted, p_live));
	CHECK(!kallsyms_same_layout(p_live, p_shifted));
	CHECK(!kallsyms_same_layout(p_hidden, p_hidden));
	CHECK(!kallsyms_same_layout(p_no_text, p_no_text));
	CHECK(!kallsyms_same_layout(p_no_text, p_live));
	CHECK(!kallsyms_same_layout("/nonexistent/kallsyms", p_live));
	CHECK(!kallsyms_same_layout(p_live, "/nonexistent/kallsyms"));
	char *paths[] = { p_live, p_later, p_shifted, p_hidden, p_no_text };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}
