/* tracefs: finding (and mounting) it (see tracefs.h). */
#include "record/tracefs.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/vfs.h>

/* statfs's f_type for tracefs (linux/magic.h's TRACEFS_MAGIC). */
enum { TRACEFS_FS_MAGIC = 0x74726163 };

static const char *const tracefs_dirs[] = { TRACEFS_MOUNT_POINT, "/sys/kernel/debug/tracing" };

static bool is_tracefs(const char *dir)
{
	struct statfs st;
	return !statfs(dir, &st) && (unsigned long)st.f_type == TRACEFS_FS_MAGIC;
}

/* Mount tracefs at its mount point when it is mounted at none of the
 * places looked at (the kernel makes the empty directory). Whether it
 * now is there. */
static bool mount_tracefs(void)
{
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		if (is_tracefs(tracefs_dirs[i]))
			return false; /* mounted: the file is missing, not tracefs */
	return !mount("nodev", TRACEFS_MOUNT_POINT, "tracefs", 0, NULL) && is_tracefs(TRACEFS_MOUNT_POINT);
}

static FILE *open_in(const char *dir, const char *rel, char *path, size_t path_size)
{
	snprintf(path, path_size, "%s/%s", dir, rel);
	return fopen(path, "re");
}

FILE *tracefs_open(const char *rel, char *path, size_t path_size)
{
	int first_errno = 0;
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		FILE *f = open_in(tracefs_dirs[i], rel, path, path_size);
		if (f)
			return f;
		if (!first_errno)
			first_errno = errno;
	}
	if (first_errno == ENOENT && mount_tracefs()) {
		FILE *f = open_in(TRACEFS_MOUNT_POINT, rel, path, path_size);
		if (f)
			return f;
		first_errno = errno;
	}
	snprintf(path, path_size, "%s/%s", tracefs_dirs[0], rel);
	errno = first_errno;
	return NULL;
}
