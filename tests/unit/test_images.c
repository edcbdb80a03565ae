/* record's images (record/images.h): an anonymous (JIT) image goes once
 * no live mapping holds it (a fork's child keeps its exited parent's),
 * and its id comes back for the next anonymous one; file images stay. */
#include "harness.h"

#include "addrspace/procmaps.h"
#include "record/images.h"

#include <string.h>

struct drops {
	uint32_t ids[8];
	uint32_t pids[8];
	int n;
};

static void note_drop(void *arg, const struct mapping *m, uint32_t id)
{
	struct drops *d = arg;
	if (d->n < 8) {
		d->ids[d->n] = id;
		d->pids[d->n] = m->pid;
	}
	d->n++;
}

TEST(images_anonymous_go_with_their_last_holder)
{
	struct procmaps pm;
	procmaps_init(&pm);
	pm.recycle = true;
	pm.proc_root = "/nonexistent-proc"; /* nothing read from the machine's /proc */
	struct images im;
	images_init(&im);
	procmaps_add(&pm, 10, 0x1000, 0x1000, 0, "//anon");
	procmaps_add(&pm, 10, 0x5000, 0x1000, 0, "/usr/bin/true");
	procmaps_add(&pm, 12, 0x1000, 0x1000, 0, "//anon");
	uint64_t anon10 = images_ref(&im, &pm, 10, 0x1100), file = images_ref(&im, &pm, 10, 0x5100);
	uint64_t anon12 = images_ref(&im, &pm, 12, 0x1100);
	REQUIRE(anon10 && file && anon12);
	CHECK(images_id(anon10) != images_id(anon12)); /* one per process and address */
	procmaps_fork(&pm, 10, 11);
	struct drops d = { .n = 0 };
	procmaps_forget(&pm, 10);
	images_drop_unheld(&im, &pm, note_drop, &d);
	CHECK_EQ_U64(d.n, 0); /* the child maps the parent's anonymous code */
	CHECK_EQ_U64(images_ref(&im, &pm, 11, 0x1100), anon10);
	procmaps_forget(&pm, 11);
	images_drop_unheld(&im, &pm, note_drop, &d);
	REQUIRE(d.n == 1);
	CHECK_EQ_U64(d.ids[0], images_id(anon10));
	CHECK_EQ_U64(d.pids[0], 10);
	CHECK(!images_mapping(&im, anon10));
	CHECK(images_mapping(&im, file)); /* a file's image stays */
	CHECK(images_mapping(&im, anon12)); /* its process lives */
	images_drop_unheld(&im, &pm, note_drop, &d);
	CHECK_EQ_U64(d.n, 1); /* dropped once */
	procmaps_add(&pm, 13, 0x9000, 0x1000, 0, "//anon");
	uint64_t anon13 = images_ref(&im, &pm, 13, 0x9010);
	CHECK_EQ_U64(images_id(anon13), images_id(anon10)); /* the id comes back */
	const struct mapping *m = images_mapping(&im, anon13);
	REQUIRE(m);
	CHECK_EQ_U64(m->pid, 13);
	CHECK_EQ_U64(m->start, 0x9000);
	procmaps_add(&pm, 14, 0x7000, 0x1000, 0, "/usr/bin/false");
	CHECK(images_id(images_ref(&im, &pm, 14, 0x7000)) >= 3); /* a file never takes a dropped id */
	images_release(&im);
	procmaps_release(&pm);
}
