# scorch itself: help, version, unknown commands, stdout errors.
. "${0%/*}/../lib.sh"
expect_exit "cli/no arguments is a usage error" 2 "$SCORCH"
expect_grep "cli/no arguments prints the overview" "usage: scorch COMMAND" "$TMPDIR/err"
expect_exit "cli/--help exits 0" 0 "$SCORCH" --help
for c in flamegraph collapse diff report record; do
	expect_grep "cli/overview lists $c" "^  $c " "$TMPDIR/out"
done
expect_exit "cli/unknown command exits 2" 2 "$SCORCH" frobnicate
expect_grep "cli/unknown command is named" "unknown command 'frobnicate'" "$TMPDIR/err"
expect_exit "cli/help of unknown command exits 2" 2 "$SCORCH" help frobnicate
expect_exit "cli/version exits 0" 0 "$SCORCH" --version
expect_grep "cli/version lists features" "^features: [+-]zlib" "$TMPDIR/out"
for c in flamegraph collapse diff report record; do
	expect_exit "cli/help $c exits 0" 0 "$SCORCH" help "$c"
	expect_grep "cli/help $c prints usage" "usage: scorch $c" "$TMPDIR/out"
done
if [ -w /dev/full ]; then
	"$SCORCH" --version >/dev/full 2>"$TMPDIR/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "cannot write to stdout" "$TMPDIR/err"; then
		ok "cli/write error on stdout exits 1 with a message"
	else
		not_ok "cli/write error on stdout exits 1 with a message" "exit $rc" "$(cat "$TMPDIR/err")"
	fi
else
	# a chroot or container may have no /dev/full device node: the
	# machine's, and no package scripts/setup installs makes one
	skip "cli/write error on stdout exits 1 with a message" "no /dev/full"
fi
