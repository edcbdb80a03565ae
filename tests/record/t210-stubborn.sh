# A command that ignores SIGTERM does not keep record waiting (issue 30
# item 1): after a grace period it gets SIGKILL, said on stderr, and a
# second Ctrl-C (or SIGTERM) ends the wait at once; the output is written
# either way and holds the command's stacks, and the command is gone when
# record returns (no orphan left spinning). Every run is bounded (timeout
# -k 5 30: exit 124 or 137 means record hung).
. "${0%/*}/lib.sh"

# The command writes its pid, so that a hung record's orphan can be ended.
stubborn="echo \$\$ >>'$TMPDIR/pids'; trap '' TERM; while :; do :; done"
reap_orphans() { [ -f "$TMPDIR/pids" ] && while read -r p; do kill -9 "$p" 2>/dev/null; done <"$TMPDIR/pids"; rm -f "$TMPDIR/pids"; }
# Whether every command started is gone (checked before reap_orphans ends them).
commands_gone() {
	[ -s "$TMPDIR/pids" ] || return 1
	while read -r p; do kill -0 "$p" 2>/dev/null && return 1; done <"$TMPDIR/pids"
	return 0
}
# The command's stacks: sh's own loop, under its process name.
has_command_stacks() { grep -q '^sh[;-]' "$1"; }
for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "record $be: a command ignoring SIGTERM gets SIGKILL after the grace period" "$why"
		skip_or_fail "record $be: a second Ctrl-C stops waiting for the command" "$why"
		skip_or_fail "record $be: a SIGTERM after Ctrl-C stops waiting for the command" "$why"
		continue
	fi
	timeout -k 5 30 "$SCORCH" record --backend $be -d 1 -o "$TMPDIR/stub.folded" -- sh -c "$stubborn" \
		>/dev/null 2>"$TMPDIR/stub.err"
	rc=$?
	gone=0
	commands_gone && gone=1
	reap_orphans
	if [ "$rc" = 0 ] && [ "$gone" = 1 ] && has_command_stacks "$TMPDIR/stub.folded" &&
	   grep -q "did not exit within 2 s of SIGTERM: sent SIGKILL" "$TMPDIR/stub.err"; then
		ok "record $be: a command ignoring SIGTERM gets SIGKILL after the grace period"
	else
		not_ok "record $be: a command ignoring SIGTERM gets SIGKILL after the grace period" "exit $rc, gone $gone" \
			"$(tail -3 "$TMPDIR/stub.err")" "$(head -3 "$TMPDIR/stub.folded" 2>/dev/null | cut -c1-100)"
	fi

	# Ctrl-C stops sampling, a second one the wait (well within the grace
	# period here: the message tells which ended it); SIGTERM counts as
	# the second signal too.
	for second in INT TERM; do
		name="record $be: a second Ctrl-C stops waiting for the command"
		[ $second = TERM ] && name="record $be: a SIGTERM after Ctrl-C stops waiting for the command"
		timeout -k 5 30 "$SCORCH" record --backend $be -o "$TMPDIR/int.folded" -- sh -c "$stubborn" \
			>/dev/null 2>"$TMPDIR/int.err" &
		pid=$!
		sleep 1
		rpid=$(pgrep -P $pid -x scorch || echo $pid)
		kill -INT "$rpid" 2>/dev/null
		sleep 0.3
		kill -$second "$rpid" 2>/dev/null
		wait $pid
		rc=$?
		gone=0
		commands_gone && gone=1
		reap_orphans
		if [ "$rc" = 0 ] && [ "$gone" = 1 ] && has_command_stacks "$TMPDIR/int.folded" &&
		   grep -q "when a second signal came: sent SIGKILL" "$TMPDIR/int.err"; then
			ok "$name"
		else
			not_ok "$name" "exit $rc, gone $gone" "$(tail -3 "$TMPDIR/int.err")"
		fi
	done
done
