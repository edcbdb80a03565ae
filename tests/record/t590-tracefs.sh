# scorch record mounts tracefs where it is not mounted, as perf record does
# (a freshly booted Debian 12 has /sys/kernel/tracing empty until the
# first tool mounts it), for --off-cpu's sched_switch format and -e
# SYS:NAME's id. As root only: the test unmounts tracefs first, and leaves
# it mounted (as the first run of perf or scorch leaves it). Runs before
# t600/t700, whose tracepoint tests then find it.
# Uses lib.sh's probes ($perf_ok, $perf_why).
. "${0%/*}/lib.sh"
tfs=/sys/kernel/tracing
tfs_names="--off-cpu mounts tracefs|-e SYS:NAME mounts tracefs"
tfs_why=""
if [ "$perf_ok" != 1 ]; then
	tfs_why=$perf_why
elif [ "$(id -u)" != 0 ]; then
	tfs_why="not root (mounting tracefs needs root)"
elif [ ! -d "$tfs" ]; then
	tfs_why="no $tfs in this kernel's sysfs"
elif grep -q ' /sys/kernel/debug debugfs ' /proc/mounts; then
	tfs_why="debugfs is mounted: its tracing directory mounts tracefs by itself"
fi
# tfs_unmounted: tracefs unmounted at $tfs (0), or why not on stdout
tfs_unmounted() {
	if grep -q " $tfs tracefs " /proc/mounts && ! umount "$tfs" 2>"$TMPDIR/umount.err"; then
		echo "cannot unmount $tfs to test: $(head -1 "$TMPDIR/umount.err")"
		return 1
	fi
	return 0
}
tfs_check() { # NAME: tracefs is mounted again, and the run's output is right
	if grep -q " $tfs tracefs " /proc/mounts && [ "$2" = 0 ] && grep -q "$3" "$4"; then
		ok "record perf: $1"
	else
		not_ok "record perf: $1" "exit $2, tracefs $(grep -c " $tfs tracefs " /proc/mounts) times in /proc/mounts" \
			"$(head -3 "$TMPDIR/tfs.err")"
	fi
}
if [ -n "$tfs_why" ]; then
	IFS='|'
	for n in $tfs_names; do skip_or_fail "record perf: $n" "$tfs_why"; done
	unset IFS
elif why=$(tfs_unmounted); then
	"$SCORCH" record --backend perf --off-cpu -o "$TMPDIR/tfs-off.folded" -- sleep 0.2 2>"$TMPDIR/tfs.err"
	tfs_check "--off-cpu mounts tracefs" $? '^sleep;.*nanosleep' "$TMPDIR/tfs-off.folded"
	if why=$(tfs_unmounted); then
		"$SCORCH" record --backend perf -e sched:sched_process_exec -o "$TMPDIR/tfs-exec.folded" \
			-- sh -c 'true; /bin/true' 2>"$TMPDIR/tfs.err"
		tfs_check "-e SYS:NAME mounts tracefs" $? '^true;' "$TMPDIR/tfs-exec.folded"
	else
		skip_or_fail "record perf: -e SYS:NAME mounts tracefs" "$why"
	fi
	# as found (mounted), whatever happened above
	grep -q " $tfs tracefs " /proc/mounts || mount -t tracefs nodev "$tfs" 2>/dev/null || true
else
	IFS='|'
	for n in $tfs_names; do skip_or_fail "record perf: $n" "$why"; done
	unset IFS
fi
