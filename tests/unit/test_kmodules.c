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

static char *write_kallsyms(void)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/kallsyms-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, kallsyms_text, sizeof(kallsyms_text) - 1) != (ssize_t)(sizeof(kallsyms_text) - 1)) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
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
