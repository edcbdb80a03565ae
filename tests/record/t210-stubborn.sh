# A command that ignores SIGTERM does not keep record waiting (issue 30
# item 1): after a grace period it gets SIGKILL, said on stderr, and a
# second Ctrl-C (or SIGTERM) ends the wait at once; the output is written
# either way and holds the command's stacks, and the command is gone when
# record returns (no orphan left spinning). The output is written first:
# complete (its counts add up to the summary's samples) and said (the
# summary follows it) before the SIGKILL notice. A command that exits
# within the grace period is waited for, not killed. Every run is bounded
# (timeout -k 5 30: exit 124 or 137 means record hung).
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
# written_first OUT ERR: the output's counts add up to the samples the
# summary line gives, and that line (printed once the output is written)
# comes before the SIGKILL notice; empty when so, else what differs.
written_first() {
	said=$(sed -n 's/^scorch: [a-z]* backend, [^:]*: \([0-9,]*\) samples in .*/\1/p' "$2" | tr -d ,)
	sum=$(awk '{ n += $NF } END { print n + 0 }' "$1" 2>/dev/null)
	summary_at=$(grep -n '^scorch: [a-z]* backend, ' "$2" | head -1 | cut -d: -f1)
	kill_at=$(grep -n 'sent SIGKILL' "$2" | head -1 | cut -d: -f1)
	if [ -z "$said" ] || [ "$said" != "$sum" ]; then
		echo "the output holds $sum samples, the summary says '$said'"
	elif [ -z "$kill_at" ] || [ "$summary_at" -ge "$kill_at" ]; then
		echo "the summary (line $summary_at) is not before the SIGKILL notice (line $kill_at)"
	fi
}
for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "record $be: a command ignoring SIGTERM gets SIGKILL after the grace period" "$why"
		skip_or_fail "record $be: a second Ctrl-C stops waiting for the command" "$why"
		skip_or_fail "record $be: a SIGTERM after Ctrl-C stops waiting for the command" "$why"
		skip_or_fail "record $be: the output is written while the command still runs, then a Ctrl-C ends the wait" "$why"
		skip_or_fail "record $be: a command that exits within the grace period is not killed" "$why"
		continue
	fi
	timeout -k 5 30 "$SCORCH" record --backend $be -d 1 -o "$TMPDIR/stub.folded" -- sh -c "$stubborn" \
		>/dev/null 2>"$TMPDIR/stub.err"
	rc=$?
	gone=0
	commands_gone && gone=1
	reap_orphans
	first=$(written_first "$TMPDIR/stub.folded" "$TMPDIR/stub.err")
	if [ "$rc" = 0 ] && [ "$gone" = 1 ] && has_command_stacks "$TMPDIR/stub.folded" && [ -z "$first" ] &&
	   grep -q "did not exit within 2 s of SIGTERM: sent SIGKILL" "$TMPDIR/stub.err"; then
		ok "record $be: a command ignoring SIGTERM gets SIGKILL after the grace period"
	else
		not_ok "record $be: a command ignoring SIGTERM gets SIGKILL after the grace period" "exit $rc, gone $gone" \
			"$first" "$(tail -3 "$TMPDIR/stub.err")" "$(head -3 "$TMPDIR/stub.folded" 2>/dev/null | cut -c1-100)"
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
		first=$(written_first "$TMPDIR/int.folded" "$TMPDIR/int.err")
		if [ "$rc" = 0 ] && [ "$gone" = 1 ] && has_command_stacks "$TMPDIR/int.folded" && [ -z "$first" ] &&
		   grep -q "when a second signal came: sent SIGKILL" "$TMPDIR/int.err"; then
			ok "$name"
		else
			not_ok "$name" "exit $rc, gone $gone" "$first" "$(tail -3 "$TMPDIR/int.err")"
		fi
	done

	# -d ends sampling; the output appears while the command (which
	# ignores the SIGTERM) still runs; then one Ctrl-C ends the wait.
	name="record $be: the output is written while the command still runs, then a Ctrl-C ends the wait"
	rm -f "$TMPDIR/pids" "$TMPDIR/early.folded"
	timeout -k 5 30 "$SCORCH" record --backend $be -d 1 -o "$TMPDIR/early.folded" -- sh -c "$stubborn" \
		>/dev/null 2>"$TMPDIR/early.err" &
	pid=$!
	tries=0
	while [ ! -e "$TMPDIR/early.folded" ] && [ $tries -lt 400 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.05
		tries=$((tries + 1))
	done
	alive=0
	[ -s "$TMPDIR/pids" ] && kill -0 "$(head -1 "$TMPDIR/pids")" 2>/dev/null && alive=1
	rpid=$(pgrep -P $pid -x scorch || echo $pid)
	kill -INT "$rpid" 2>/dev/null
	wait $pid
	rc=$?
	gone=0
	commands_gone && gone=1
	reap_orphans
	first=$(written_first "$TMPDIR/early.folded" "$TMPDIR/early.err")
	if [ "$rc" = 0 ] && [ "$alive" = 1 ] && [ "$gone" = 1 ] && [ -z "$first" ] &&
	   grep -q "when a signal came: sent SIGKILL" "$TMPDIR/early.err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, command alive when the output appeared: $alive, gone $gone" "$first" \
			"$(tail -3 "$TMPDIR/early.err")"
	fi

	# A command that takes a moment to exit on SIGTERM: the output is
	# written meanwhile, and record still waits for it (no SIGKILL).
	name="record $be: a command that exits within the grace period is not killed"
	timeout -k 5 30 "$SCORCH" record --backend $be -d 1 -o "$TMPDIR/slow.folded" -- \
		sh -c "echo \$\$ >>'$TMPDIR/pids'; trap 'sleep 0.3; exit 0' TERM; while :; do :; done" \
		>/dev/null 2>"$TMPDIR/slow.err"
	rc=$?
	gone=0
	commands_gone && gone=1
	reap_orphans
	if [ "$rc" = 0 ] && [ "$gone" = 1 ] && has_command_stacks "$TMPDIR/slow.folded" &&
	   ! grep -q "SIGKILL" "$TMPDIR/slow.err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, gone $gone" "$(tail -3 "$TMPDIR/slow.err")"
	fi
done
