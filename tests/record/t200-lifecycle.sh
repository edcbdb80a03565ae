# scorch record's lifecycle: when sampling ends, what the command's output
# and exit status become. Uses lib.sh's workloads and probes
# ($WL, $perf_ok, $bpf_ok, share).
. "${0%/*}/lib.sh"

# cpu_of FILE: the "%U+%S" that /usr/bin/time wrote, as one number.
cpu_of() { tail -1 "$1" | awk -F+ '{ printf "%.2f\n", $1 + $2 }'; }

# -p: sampling ends when the process exits (well before -d), and the wait
# costs no CPU (a loop that spins on a hung-up ring would burn a core).
for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "record $be: -p ends when the process exits, without spinning" "$why"
		skip_or_fail "record $be: -t ends when the thread exits" "$why"
		continue
	fi
	if ! [ -x /usr/bin/time ]; then
		not_ok "record $be: -p ends when the process exits, without spinning" "no /usr/bin/time (scripts/setup installs Debian's time)"
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

# ---- -- COMMAND: exit status and output ----------------------------------
if [ "$perf_ok" = 1 ] || [ "$bpf_ok" = 1 ]; then
	# The command's status (it samples: the output is written too).
	"$SCORCH" record -q -F 499 -o "$TMPDIR/st3.folded" -- sh -c "\"$WL/burn\" 0.2; exit 3" 2>"$TMPDIR/st.err"
	st=$?
	if [ "$st" = 3 ] && grep -q ';main;burn_a' "$TMPDIR/st3.folded"; then
		ok "record: exits with the command's status"
	else
		not_ok "record: exits with the command's status" "exit $st (want 3)" "$(cat "$TMPDIR/st.err")"
	fi
	# 128+N when signal N killed it.
	"$SCORCH" record -q -F 499 -o "$TMPDIR/sig.folded" -- sh -c "\"$WL/burn\" 0.2; kill -USR1 \$\$" \
		2>"$TMPDIR/st.err"
	st=$?
	sh -c 'kill -USR1 $$' 2>/dev/null
	want=$? # what the shell reports for the same death
	if [ "$st" = "$want" ] && [ -s "$TMPDIR/sig.folded" ]; then
		ok "record: a command killed by signal N gives 128+N"
	else
		not_ok "record: a command killed by signal N gives 128+N" "exit $st (want $want)" "$(cat "$TMPDIR/st.err")"
	fi
	# scorch ended the command itself (-d): its own status, 0.
	"$SCORCH" record -q -F 499 -d 0.5 -o "$TMPDIR/dur.folded" -- "$WL/burn" 20 2>"$TMPDIR/st.err"
	st=$?
	if [ "$st" = 0 ] && [ -s "$TMPDIR/dur.folded" ]; then
		ok "record: a command ended by -d does not make the status"
	else
		not_ok "record: a command ended by -d does not make the status" "exit $st (want 0)" "$(cat "$TMPDIR/st.err")"
	fi

	# Profile on stdout: the command's stdout goes to stderr, the
	# profile holds only folded lines.
	"$SCORCH" record -q -F 499 -- sh -c "echo MARKER-stdout; \"$WL/burn\" 0.2; echo MARKER-end" \
		>"$TMPDIR/clean.folded" 2>"$TMPDIR/clean.err"
	bad=$(grep -c -v -E '^[^ ].* [1-9][0-9]*$' "$TMPDIR/clean.folded")
	if [ -s "$TMPDIR/clean.folded" ] && [ "$bad" = 0 ] && grep -q MARKER-stdout "$TMPDIR/clean.err" &&
		grep -q MARKER-end "$TMPDIR/clean.err"; then
		ok "record: with the profile on stdout, the command prints to stderr"
	else
		not_ok "record: with the profile on stdout, the command prints to stderr" \
			"$bad non-folded lines" "$(head -3 "$TMPDIR/clean.folded")" "stderr: $(head -3 "$TMPDIR/clean.err")"
	fi
	# With -o the command's stdout is left alone.
	"$SCORCH" record -q -F 499 -o "$TMPDIR/o.folded" -- sh -c "echo MARKER-stdout; \"$WL/burn\" 0.2" \
		>"$TMPDIR/o.out" 2>"$TMPDIR/o.err"
	if grep -q MARKER-stdout "$TMPDIR/o.out" && ! grep -q MARKER "$TMPDIR/o.folded"; then
		ok "record: with -o, the command's stdout is its own"
	else
		not_ok "record: with -o, the command's stdout is its own" "stdout: $(head -3 "$TMPDIR/o.out")"
	fi

	# No samples: one message saying why, the same status for every
	# output format, and nothing written.
	rm -f "$TMPDIR/none.folded" "$TMPDIR/none.svg"
	res=""
	for o in "" "-o $TMPDIR/none.folded" "-o $TMPDIR/none.svg"; do
		# shellcheck disable=SC2086
		"$SCORCH" record -q $o -- sleep 0.2 >"$TMPDIR/none.out" 2>"$TMPDIR/none.err"
		res="$res $?:$(wc -c <"$TMPDIR/none.out"):$(grep -c 'no samples' "$TMPDIR/none.err"):$(wc -l <"$TMPDIR/none.err")"
	done
	if [ "$res" = " 1:0:1:1 1:0:1:1 1:0:1:1" ] && ! [ -e "$TMPDIR/none.folded" ] && ! [ -e "$TMPDIR/none.svg" ] &&
		grep -q "'sleep' ran .* CPU" "$TMPDIR/none.err"; then
		ok "record: no samples: one message, exit 1 for every output format, nothing written"
	else
		not_ok "record: no samples: one message, exit 1 for every output format, nothing written" \
			"status:stdout bytes:messages:stderr lines =$res (want 1:0:1:1 each)" "$(cat "$TMPDIR/none.err")"
	fi
	# A failing command that sampled nothing: its status wins.
	expect_exit "record: no samples and a failing command: the command's status" 3 \
		"$SCORCH" record -q -- sh -c 'exit 3'
else
	for n in "exits with the command's status" "a command killed by signal N gives 128+N" \
		"a command ended by -d does not make the status" \
		"with the profile on stdout, the command prints to stderr" \
		"with -o, the command's stdout is its own" \
		"no samples: one message, exit 1 for every output format, nothing written" \
		"no samples and a failing command: the command's status"; do
		skip_or_fail "record: $n" "$perf_why"
	done
fi
