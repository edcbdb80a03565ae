# record -o (see tests/cli/t300-outputs.sh for the other commands): through a
# symbolic link to another user's 0600 file, stopped by SIGHUP, which (like
# SIGINT and SIGTERM) ends sampling and still writes the output.
. "${0%/*}/lib.sh"
if [ "$perf_ok" = 1 ] && [ "$(id -u)" = 0 ]; then
	ro=$TMPDIR/record-output
	mkdir -p "$ro"
	echo old >"$ro/theirs.folded"
	chown 65534:65534 "$ro/theirs.folded" && chmod 0600 "$ro/theirs.folded"
	ln -s theirs.folded "$ro/link.folded"
	"$SCORCH" record -q --backend perf -F 199 -o "$ro/link.folded" -- "$WL/burn" 60 2>"$ro/err" &
	rp=$!
	# The command is started once sampling is set up (and record's own
	# SIGHUP handler installed); wait for it, then for it to have used 0.2 s
	# of CPU (so there are samples), not for a time.
	child=
	while kill -0 $rp 2>/dev/null && [ -z "$child" ]; do child=$(pgrep -P $rp); done
	while kill -0 $rp 2>/dev/null &&
		[ "$(awk '{ print $14 }' "/proc/$child/stat" 2>/dev/null || echo 0)" -lt 20 ]; do
		sleep 0.1
	done
	kill -HUP $rp
	wait $rp
	st=$?
	if [ -L "$ro/link.folded" ] && grep -q '^burn;.* [0-9][0-9]*$' "$ro/theirs.folded"; then
		ok "record: SIGHUP ends sampling and -o through a symbolic link replaces its target"
	else
		not_ok "record: SIGHUP ends sampling and -o through a symbolic link replaces its target" \
			"exit $st" "$(ls -l "$ro")" "$(head -3 "$ro/theirs.folded")" "$(cat "$ro/err")"
	fi
	got=$(stat -c '%a %u %g' "$ro/theirs.folded")
	if [ "$got" = "600 65534 65534" ]; then
		ok "record: the replaced file keeps mode 0600 and its owner"
	else
		not_ok "record: the replaced file keeps mode 0600 and its owner" "now: $got"
	fi
	leftover=$(find "$ro" -name '*.tmp.*')
	if [ -z "$leftover" ]; then ok "record: no temporary file is left"; else not_ok "record: no temporary file is left" "$leftover"; fi
else
	for n in "SIGHUP ends sampling and -o through a symbolic link replaces its target" \
		"the replaced file keeps mode 0600 and its owner" "no temporary file is left"; do
		skip_or_fail "record: $n" "${perf_why:-not root (chown)}"
	done
fi
