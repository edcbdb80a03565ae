# scorch record's lifecycle: when sampling ends, what the command's output
# and exit status become. Uses t100-record.sh's workloads and probes
# ($WL, $perf_ok, $bpf_ok, share).

# cpu_of FILE: the "%U+%S" that /usr/bin/time wrote, as one number.
cpu_of() { tail -1 "$1" | awk -F+ '{ printf "%.2f\n", $1 + $2 }'; }

# -p: sampling ends when the process exits (well before -d), and the wait
# costs no CPU (a loop that spins on a hung-up ring would burn a core).
for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip "record $be: -p ends when the process exits, without spinning" "$why"
		skip "record $be: -t ends when the thread exits" "$why"
		continue
	fi
	if ! [ -x /usr/bin/time ]; then
		skip "record $be: -p ends when the process exits, without spinning" "no /usr/bin/time (scripts/setup)"
	else
		"$WL/burn" 0.3 &
		bp=$!
		start=$(date +%s)
		/usr/bin/time -o "$TMPDIR/time" -f '%U+%S' \
			"$SCORCH" record -q --backend $be -p $bp -d 30 -o "$TMPDIR/pexit.folded" 2>"$TMPDIR/pexit.err"
		st=$?
		took=$(($(date +%s) - start))
		wait $bp 2>/dev/null
		cpu=$(cpu_of "$TMPDIR/time")
		if [ "$st" = 0 ] && [ "$took" -lt 5 ] && awk -v c="$cpu" 'BEGIN { exit !(c < 0.5) }' &&
			grep -q ';main;burn_a' "$TMPDIR/pexit.folded"; then
			ok "record $be: -p ends when the process exits, without spinning"
		else
			not_ok "record $be: -p ends when the process exits, without spinning" \
				"exit $st, ${took} s wall (want < 5 with -d 30), $cpu s CPU (want < 0.5)" \
				"$(cat "$TMPDIR/pexit.err")"
		fi
	fi
	# -t on the main thread of a process that exits after a second.
	"$WL/burn" 0.3 &
	bp=$!
	start=$(date +%s)
	"$SCORCH" record -q --backend $be -t $bp -d 30 -o "$TMPDIR/texit.folded" 2>"$TMPDIR/texit.err"
	st=$?
	took=$(($(date +%s) - start))
	wait $bp 2>/dev/null
	if [ "$st" = 0 ] && [ "$took" -lt 5 ]; then
		ok "record $be: -t ends when the thread exits"
	else
		not_ok "record $be: -t ends when the thread exits" "exit $st, ${took} s (want < 5 with -d 30)" \
			"$(cat "$TMPDIR/texit.err")"
	fi
done
