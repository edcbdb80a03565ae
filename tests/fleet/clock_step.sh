# Clock steps (sourced by tests/fleet/run, which sets F, CH, SCORCH, T0).
#
# A wall clock stepped back makes intervals whose times repeat earlier
# ones (the same multiples of --every: the same start and end): both are
# kept, in the directory (the second file named START-END-1.zst) and in
# ClickHouse, and a query sums them.
#
# A wall clock stepped forward during record --every (NTP, or a clock set
# by hand): tests/fleet/clockshift.c, preloaded, shifts CLOCK_REALTIME for
# scorch alone (the machine's clock is left alone) by what the test writes
# to a file, +1 h once two intervals are stored here. The interval sampling at the step is
# as long as what was sampled, stamped in the clock after the step (its end
# read at the cut, its start that much before); the next ones are cut at
# the new clock's multiples; none overlaps another, none spans the hour
# skipped, and nothing sampled is lost: the directory and ClickHouse hold
# the same intervals (those with samples). The recording keeps --keep 1m:
# the intervals before the step, an hour older by the stepped clock, are
# kept (rotation ages what is stored on the monotonic clock, and by the
# interval just stored, not by the wall clock's reading).
CS=$F/clock
rm -rf "$CS" && mkdir -p "$CS"

# ---- a step back: two intervals with the same times ----
ST=$((T0 + 20000))
printf 'app;main;before 3\n' >"$CS/one.folded"
printf 'app;main;after 4\n' >"$CS/two.folded"
put_rc=0
for f in one two; do
	"$SCORCH" store put --to "$CS/store" --to "$CH" --host stepped --start "@$ST" --end "@$((ST + 10))" \
		"$CS/$f.folded" 2>>"$CS/put.err" || put_rc=1
done
files=$(ls "$CS/store/stepped"/*/ 2>/dev/null | grep -c '^[0-9]*-[0-9]*\(-1\)\?\.zst$')
if [ $put_rc = 0 ] && [ "$files" = 2 ]; then
	ok "clock step back: two intervals with the same start and end are two files ($(ls "$CS/store/stepped"/*/ | grep -- '-.*zst' | tr '\n' ' '))"
else
	not_ok "clock step back: two intervals with the same times are two files" "put $put_rc, $files files" "$(head -3 "$CS/put.err")"
fi
printf 'app;main;after 4\napp;main;before 3\n' >"$CS/both.want"
for src in "$CS/store" "$CH"; do
	"$SCORCH" query --from "@$ST" --to "@$((ST + 10))" --host stepped "$src" 2>"$CS/q.err" | LC_ALL=C sort >"$CS/both.got"
	test_cmp "clock step back: query ${src%%:*} sums both" "$CS/both.want" "$CS/both.got"
done

# ---- a step forward during record --every ----
if ! cc -O1 -shared -fPIC -o "$CS/clockshift.so" "$(dirname "$0")/clockshift.c" -ldl 2>"$CS/cc.err"; then
	not_ok "clock step forward: the clock shim builds" "$(head -3 "$CS/cc.err")"
else
	echo 0 >"$CS/shift"
	# (a sanitized scorch: ASan wants to be the first library; the shim
	# goes first here, and only wraps the clock)
	CLOCKSHIFT_FILE=$CS/shift LD_PRELOAD=$CS/clockshift.so ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		"$SCORCH" record --every 1s -a -F 49 --host stepfwd \
		--to "$CS/rec" --keep 1m --to "$CH" --spool "$CS/spool" 2>"$CS/rec.err" &
	pid=$!
	n_iv() { cat "$CS/rec"/stepfwd/*/index.tsv 2>/dev/null | wc -l; }
	until_iv() { # N: until N intervals are stored (at most 60 s)
		_i=0
		while [ "$(n_iv)" -lt "$1" ] && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	}
	until_iv 2
	step_at=$(date +%s%N)
	echo 3600 >"$CS/shift"
	until_iv $(($(n_iv) + 3))
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	cat "$CS/rec"/stepfwd/*/index.tsv 2>/dev/null | cut -f1,2 | sort -n >"$CS/iv"
	# before: ended by the step; after: ended in the new clock (the one
	# sampling at the step, stamped after it, may start before step + 1 h)
	before=$(awk -v s="$step_at" '$2 <= s' "$CS/iv" | wc -l)
	after=$(awk -v s="$step_at" '$2 >= s + 3600e9' "$CS/iv" | wc -l)
	across=$(awk -v s="$step_at" '$2 >= s + 3600e9 && $1 < s + 3600e9' "$CS/iv" | wc -l)
	# (an interval is as long as it sampled: a second, more when a cut
	# comes late on a loaded machine, as the first one waits for the
	# kernel's symbols; never the hour skipped, which a minute tells)
	bad=$(awk 'NR > 1 && $1 < pe { print "overlap at " $1 } $2 <= $1 || $2 - $1 > 60e9 { print "length " ($2 - $1) / 1e9 " s at " $1 } { pe = $2 }' "$CS/iv")
	if [ $rc = 0 ] && [ "$before" -ge 1 ] && [ "$after" -ge 2 ] && [ "$across" -le 1 ] && [ -z "$bad" ] &&
		[ $((before + after)) = "$(wc -l <"$CS/iv")" ]; then
		ok "clock step forward: $before intervals before (kept under --keep 1m), $after after, none longer than sampled, none overlapping or across the hour"
	else
		not_ok "clock step forward: intervals on both sides, each as long as sampled" \
			"exit $rc, $before before, $after after, $across across the step" \
			"$bad" "$(cat "$CS/iv")" "$(head -3 "$CS/rec.err")"
	fi
	# the intervals that hold samples, in the directory and in ClickHouse
	for d in "$CS/rec"/stepfwd/*; do
		while IFS='	' read -r s e f rest; do
			"$SCORCH" merge "$d/$f" 2>/dev/null | grep -q . && echo "$s"
		done <"$d/index.tsv"
	done | sort >"$CS/dir.starts"
	ch_sql "SELECT DISTINCT start_ns FROM fleet.scorch_samples WHERE host = 'stepfwd' ORDER BY start_ns" | sort >"$CS/ch.starts"
	if [ -s "$CS/dir.starts" ]; then
		test_cmp "clock step forward: ClickHouse holds the intervals the directory holds" "$CS/dir.starts" "$CS/ch.starts"
	else
		not_ok "clock step forward: ClickHouse holds the intervals the directory holds" "no interval with samples"
	fi
fi
