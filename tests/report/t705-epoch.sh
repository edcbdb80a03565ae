# perf.data's clock mapped to the Unix epoch. perf record -k CLOCKID writes
# the CLOCK_DATA feature (the wall clock and CLOCKID read together); with
# it, report's HTML heat map carries column 0's epoch time and --time takes
# epoch seconds. The expectations come from perf itself (perf script's
# `tod` field: each sample's wall-clock time, from the same feature) and
# from `date` around the capture, never from scorch: the heat map's first
# sample is perf's first tod to the microsecond, inside the run's wall
# time; report --time over phase a's epoch span equals perf script --time
# over its perf-clock span (the tod - time of perf's first sample converts)
# folded by collapse perf (perf record -P: report counts periods as perf
# script prints them); an epoch range outside the recording is a usage
# error naming the recording's UTC span. perf script --header's text
# carries the same reference ("# reference time: ..."): flamegraph's heat
# map and collapse perf --time of it agree with the same. Without -k (perf 6.1 writes no
# clock reference then) times stay relative: no epoch in the page, an
# epoch time is outside the recording. With -k CLOCK_REALTIME perf's own
# timestamps are epoch times. Needs perf: without it the tests fail.
. "${0%/*}/lib.sh"

W=$BUILD/workloads/phases
E=$TMPDIR/epoch
mkdir -p "$E"
names="heat-map-origin heat-map-wall-clock text-heat-map-origin time-epoch-a text-time-epoch-a time-epoch-b text-time-epoch-b outside-utc no-clock-data-origin no-clock-data-epoch realtime-clock short-clock-data"
why=""
if ! command -v perf >/dev/null 2>&1; then
	why="perf is not installed"
elif [ ! -x "$W" ]; then
	why="workload $W not built (make)"
else
	before=$(date +%s%N)
	if ! perf record -q -k CLOCK_MONOTONIC -e task-clock -c 1000000 -P -g -o "$E/k.data" -- "$W" 1 600 \
		>"$E/phases" 2>"$E/rec.err"; then
		why="perf record -k failed: $(grep -v '^$' "$E/rec.err" | head -1 | cut -c1-70)"
	fi
	after=$(date +%s%N)
fi
if [ -n "$why" ]; then
	for n in $names; do not_ok "report epoch: $n" "$why"; done
	exit 0
fi

# ns TEXT: "2026-12-02 06:20:28.791476" (UTC) as ns since the epoch
ns_of_tod() {
	TZ=UTC date -d "$1" +%s%N
}
# perf's first sample: its perf-clock time and its wall-clock time
TZ=UTC perf script -i "$E/k.data" -F time,tod 2>/dev/null | head -1 >"$E/first"
tod0=$(ns_of_tod "$(awk '{ print $1, $2 }' "$E/first")")
t0=$(awk '{ sub(/:$/, "", $3); split($3, s, "."); printf "%s%s000\n", s[1], s[2] }' "$E/first")
offset=$((tod0 - t0)) # perf's own epoch - perf clock, to the microsecond

"$SCORCH" report -q -o "$E/k.html" "$E/k.data" 2>"$E/html.err"
origin=$(grep -o '"time":{[^}]*}' "$E/k.html" | sed -n 's/.*"origin":"\([0-9]*\)".*/\1/p')
first=$(grep -o '"time":{[^}]*}' "$E/k.html" | sed -n 's/.*"first":\([0-9.]*\).*/\1/p')
if [ -n "$origin" ] && [ -n "$first" ]; then
	# (ns in shell arithmetic: awk's doubles lose the nanoseconds)
	fns=$(echo "$first" | awk -F. '{ printf "%s%s\n", $1, substr($2 "000000000", 1, 9) }' | sed 's/^0*//')
	got=$((origin + ${fns:-0}))
	d=$(((got - tod0) < 0 ? tod0 - got : got - tod0))
	if [ "$d" -le 2000 ]; then
		ok "report epoch: heat-map-origin (first sample at $got ns, perf's tod $tod0: ${d} ns apart)"
	else
		not_ok "report epoch: heat-map-origin" "first sample at $got ns, perf's tod says $tod0"
	fi
	if [ "$got" -ge "$before" ] && [ "$got" -le "$after" ]; then
		ok "report epoch: heat-map-wall-clock (within date's $before..$after)"
	else
		not_ok "report epoch: heat-map-wall-clock" "first sample at $got, capture ran $before..$after"
	fi
else
	not_ok "report epoch: heat-map-origin" "no epoch origin in the page: $(grep -o '"time":{[^}]*}' "$E/k.html")" \
		"$(head -3 "$E/html.err")"
	not_ok "report epoch: heat-map-wall-clock" "no epoch origin"
fi

# perf script --header's text says the same ("# reference time: ..."):
# flamegraph's heat map of it starts at perf's first tod too
TZ=UTC perf script --header -i "$E/k.data" >"$E/k.txt" 2>/dev/null
"$SCORCH" flamegraph -o "$E/k-text.html" "$E/k.txt" 2>"$E/text.err"
torigin=$(grep -o '"time":{[^}]*}' "$E/k-text.html" | sed -n 's/.*"origin":"\([0-9]*\)".*/\1/p')
tfirst=$(grep -o '"time":{[^}]*}' "$E/k-text.html" | sed -n 's/.*"first":\([0-9.]*\).*/\1/p')
if [ -n "$torigin" ] && [ -n "$tfirst" ]; then
	fns=$(echo "$tfirst" | awk -F. '{ printf "%s%s\n", $1, substr($2 "000000000", 1, 9) }' | sed 's/^0*//')
	tgot=$((torigin + ${fns:-0}))
	d=$(((tgot - tod0) < 0 ? tod0 - tgot : tgot - tod0))
	if [ "$d" -le 2000 ]; then
		ok "report epoch: text-heat-map-origin (perf script --header | flamegraph: first sample $d ns from perf's tod)"
	else
		not_ok "report epoch: text-heat-map-origin" "first sample at $tgot ns, perf's tod says $tod0"
	fi
else
	not_ok "report epoch: text-heat-map-origin" "no epoch origin: $(grep -o '"time":{[^}]*}' "$E/k-text.html")" \
		"$(head -3 "$E/text.err")"
fi

# sec NS: ns as perf's "seconds.microseconds"
sec() {
	printf '%d.%06d\n' $(($1 / 1000000000)) $((($1 % 1000000000) / 1000))
}
# epoch_case NAME PHASE: the middle of the phase's span (its own CLOCK_MONOTONIC
# times, the clock of -k CLOCK_MONOTONIC), in epoch seconds for report and in
# perf's clock for perf script
epoch_case() {
	set -- "$1" $(awk -v k="$2" '$1 == k { print $2, $3; exit }' "$E/phases")
	set -- "$1" $(($2 + 100000000)) $(($3 - 100000000))
	p0=$(sec "$2") p1=$(sec "$3")
	e0=$(sec $(($2 + offset))) e1=$(sec $(($3 + offset)))
	perf script -i "$E/k.data" --time "$p0,$p1" 2>/dev/null | "$SCORCH" collapse perf >"$E/want.$1" 2>/dev/null
	"$SCORCH" report -q --time "$e0,$e1" "$E/k.data" >"$E/got.$1" 2>"$E/err.$1"
	"$SCORCH" collapse perf --time "$e0,$e1" "$E/k.txt" >"$E/tgot.$1" 2>"$E/terr.$1"
	if [ ! -s "$E/want.$1" ]; then
		not_ok "report epoch: time-epoch-$1" "perf script --time $p0,$p1 kept no sample"
		not_ok "report epoch: text-time-epoch-$1" "perf script --time $p0,$p1 kept no sample"
	else
		test_cmp "report epoch: time-epoch-$1 (report --time $e0,$e1 = perf script --time $p0,$p1)" \
			"$E/want.$1" "$E/got.$1"
		test_cmp "report epoch: text-time-epoch-$1 (collapse perf --time $e0,$e1 on perf script --header)" \
			"$E/want.$1" "$E/tgot.$1"
	fi
}
epoch_case a a
epoch_case b b

# an epoch range a day later: outside, and the message gives the UTC span
late=$(sec $((tod0 + 86400000000000))),$(sec $((tod0 + 86401000000000)))
"$SCORCH" report -q --time "$late" "$E/k.data" >/dev/null 2>"$E/late.err"
rc=$?
day=$(TZ=UTC date -d "@$((tod0 / 1000000000))" +%Y-%m-%d)
if [ $rc = 2 ] && [ "$(wc -l <"$E/late.err")" = 1 ] && grep -q "outside the recording.*UTC $day" "$E/late.err"; then
	ok "report epoch: outside-utc ($(cut -c1-110 "$E/late.err"))"
else
	not_ok "report epoch: outside-utc" "exit $rc" "$(cat "$E/late.err")"
fi

# without -k: perf's default clock, no reference written
perf record -q -e task-clock -c 1000000 -g -o "$E/nok.data" -- "$W" 1 200 >/dev/null 2>&1
"$SCORCH" report -q -o "$E/nok.html" "$E/nok.data" 2>/dev/null
if grep -o '"time":{[^}]*}' "$E/nok.html" | grep -q '"origin":null'; then
	ok "report epoch: no-clock-data-origin (relative times only)"
else
	not_ok "report epoch: no-clock-data-origin" "$(grep -o '"time":{[^}]*}' "$E/nok.html")"
fi
"$SCORCH" report -q --time "$(sec "$tod0"),$(sec $((tod0 + 1000000000)))" "$E/nok.data" >/dev/null 2>"$E/nok.err"
rc=$?
if [ $rc = 2 ] && grep -q 'outside the recording' "$E/nok.err"; then
	ok "report epoch: no-clock-data-epoch (an epoch time is outside the recording)"
else
	not_ok "report epoch: no-clock-data-epoch" "exit $rc" "$(cat "$E/nok.err")"
fi

# -k CLOCK_REALTIME: perf's timestamps are epoch times already
perf record -q -k CLOCK_REALTIME -e task-clock -c 1000000 -P -g -o "$E/rt.data" -- "$W" 1 300 >"$E/rt.phases" 2>&1
rt0=$(perf script -i "$E/rt.data" -F time 2>/dev/null | awk 'NR == 1 { sub(/:$/, "", $1); split($1, s, "."); print s[1] s[2] "000"; exit }')
r0=$(sec $((rt0 + 200000000)))
r1=$(sec $((rt0 + 400000000)))
perf script -i "$E/rt.data" --time "$r0,$r1" 2>/dev/null | "$SCORCH" collapse perf >"$E/want.rt" 2>/dev/null
"$SCORCH" report -q --time "$r0,$r1" "$E/rt.data" >"$E/got.rt" 2>"$E/err.rt"
if [ -s "$E/want.rt" ] && cmp -s "$E/want.rt" "$E/got.rt"; then
	ok "report epoch: realtime-clock (report --time $r0,$r1 = perf script --time)"
else
	not_ok "report epoch: realtime-clock" "$(head -3 "$E/err.rt")" "$(diff "$E/want.rt" "$E/got.rt" | head -5)"
fi

# a CLOCK_DATA feature too short (the fuzz corpus's capture with its
# section cut to 8 bytes): exit 1, the error names the byte offset
short=$(dirname "$0")/../fuzz/corpus/perfdata/clock-data-short.data
"$SCORCH" report -q "$short" >"$E/short.out" 2>"$E/short.err"
rc=$?
if [ $rc = 1 ] && grep -q 'byte [0-9]*: CLOCK_DATA feature too small' "$E/short.err"; then
	ok "report epoch: short-clock-data ($(head -1 "$E/short.err" | cut -c1-100))"
else
	not_ok "report epoch: short-clock-data" "exit $rc" "$(head -3 "$E/short.err")"
fi
