# record -F 30000 -a -d 2 stops (issue 30 item 2): with DWARF stack copies
# the BPF programs fill the copy ring faster than it is read, and reading
# it must still give way to -d, and to Ctrl-C. A second Ctrl-C while the
# rings' rest is read stops that reading: the samples left are counted as
# lost, and the summary says how many were left unread and why (at this
# rate the rings usually hold more than 10 ms of reading when sampling
# ends). Bounded: timeout -k 5 60 (exit 124 or 137 means record did not
# stop).
. "${0%/*}/lib.sh"

for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "record $be: -F 30000 -a -d 2 stops and writes" "$why"
		skip_or_fail "record $be: -F 30000 -a stops at Ctrl-C and writes" "$why"
		skip_or_fail "record $be: a second Ctrl-C leaves the rings' rest unread, counted as lost" "$why"
		continue
	fi
	timeout -k 5 60 "$SCORCH" record --backend $be -F 30000 -a -d 2 -o "$TMPDIR/hr.folded" \
		>/dev/null 2>"$TMPDIR/hr.err"
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$TMPDIR/hr.folded" ]; then
		ok "record $be: -F 30000 -a -d 2 stops and writes"
	else
		not_ok "record $be: -F 30000 -a -d 2 stops and writes" "exit $rc" "$(tail -2 "$TMPDIR/hr.err")"
	fi

	# the same without -d: one Ctrl-C after 2 s
	rm -f "$TMPDIR/int.folded"
	timeout -k 5 60 "$SCORCH" record --backend $be -F 30000 -a -o "$TMPDIR/int.folded" \
		>/dev/null 2>"$TMPDIR/int.err" </dev/null &
	pid=$!
	sleep 2
	rpid=$(pgrep -P $pid -x scorch || echo $pid)
	kill -INT "$rpid" 2>/dev/null
	wait $pid
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$TMPDIR/int.folded" ]; then
		ok "record $be: -F 30000 -a stops at Ctrl-C and writes"
	else
		not_ok "record $be: -F 30000 -a stops at Ctrl-C and writes" "exit $rc" "$(tail -2 "$TMPDIR/int.err")"
	fi

	name="record $be: a second Ctrl-C leaves the rings' rest unread, counted as lost"
	# Whether the rest takes longer than the 10 ms between the signals
	# depends on how full the rings were when sampling ended (CI at be5d550
	# saw the perf backend read its rest in time once): up to three tries,
	# each must exit 0 with its output and count no more unread than lost,
	# and one of them must have left some unread.
	verdict="" detail=""
	for try in 1 2 3; do
		rm -f "$TMPDIR/int2.folded"
		timeout -k 5 60 "$SCORCH" record --backend $be -F 30000 -a -o "$TMPDIR/int2.folded" \
			>/dev/null 2>"$TMPDIR/int2.err" </dev/null &
		pid=$!
		sleep 2
		rpid=$(pgrep -P $pid -x scorch || echo $pid)
		kill -INT "$rpid" 2>/dev/null
		sleep 0.01
		kill -INT "$rpid" 2>/dev/null
		wait $pid
		rc=$?
		summary=$(grep '^scorch: [a-z]* backend, ' "$TMPDIR/int2.err")
		lost=$(echo "$summary" | sed -n 's/.*, \([0-9]*\) lost (\([0-9]*\) of them left unread when a second signal came).*/\1 \2/p')
		detail="try $try: exit $rc, lost and unread: '$lost'"
		if [ "$rc" != 0 ] || [ ! -s "$TMPDIR/int2.folded" ]; then
			verdict=bad; break
		fi
		if [ -n "$lost" ]; then
			if [ "${lost% *}" -ge "${lost#* }" ] && [ "${lost#* }" -gt 0 ]; then
				verdict=good
			else
				verdict=bad
			fi
			break
		fi
	done
	if [ "$verdict" = good ]; then
		ok "$name"
	else
		not_ok "$name" "$detail" "$summary"
	fi
done
