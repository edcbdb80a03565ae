# --time and --flamechart against perf itself, on a fresh capture of
# tests/workloads/phases (phases that time themselves): report --time and
# collapse perf --time on perf script's text give the stacks of
# `perf script --time X | scorch collapse perf`, for perf's spellings
# (absolute, open ends, percent slices and ranges, several ranges) and for
# times relative to the first sample (perf takes only absolute times: the
# reference is given the same range in absolute form); diff --time A
# --time B equals diff of the two perf script --time collapses (on
# perf.data and on perf script text); flamegraph --time on the text draws
# the SVG flamegraph draws of perf script --time's stacks; report
# --flamechart draws what flamegraph --flamechart draws from perf script's
# text (both in sample order). Recorded with -P (periods in the samples,
# which report then counts as perf script prints them). Bad ranges are
# one-line usage errors. Needs
# perf: without it the tests fail.
. "${0%/*}/lib.sh"

W=$BUILD/workloads/phases
T=$TMPDIR/time
mkdir -p "$T"
time_names="absolute open-start open-end percent-slice percent-ranges several relative collapse-absolute collapse-percent collapse-relative diff diff-text flamegraph flamechart bad-order bad-outside bad-form bad-folded"
time_why=""
if ! command -v perf >/dev/null 2>&1; then
	time_why="perf is not installed"
elif [ ! -x "$W" ]; then
	time_why="workload $W not built (make)"
elif ! perf record -q -k CLOCK_MONOTONIC -e task-clock -c 1000000 -P -g -o "$T/ph.data" -- "$W" 1 600 \
	>"$T/phases" 2>"$T/rec.err"; then
	time_why="perf record failed: $(grep -v '^$' "$T/rec.err" | head -1 | cut -c1-70)"
fi
if [ -n "$time_why" ]; then
	for n in $time_names; do not_ok "report time: $n" "$time_why"; done
else
	perf script -i "$T/ph.data" >"$T/ph.txt" 2>/dev/null
	# first sample's time, and phase a's and b's as perf prints times
	first=$(awk '/ task-clock:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); print $i; exit } }' "$T/ph.txt")
	a0=$(awk '$1 == "a" { printf "%d.%06d\n", $2 / 1e9, ($2 % 1e9) / 1e3; exit }' "$T/phases")
	a1=$(awk '$1 == "a" { printf "%d.%06d\n", $3 / 1e9, ($3 % 1e9) / 1e3; exit }' "$T/phases")
	b1=$(awk '$1 == "b" { printf "%d.%06d\n", $3 / 1e9, ($3 % 1e9) / 1e3; exit }' "$T/phases")
	am=$(awk '$1 == "a" { t = $2 + 2e8; printf "%d.%06d\n", t / 1e9, (t % 1e9) / 1e3; exit }' "$T/phases")
	# time_case NAME SCORCH-SPEC PERF-SPEC
	time_case() {
		perf script -i "$T/ph.data" --time "$3" 2>/dev/null | "$SCORCH" collapse perf >"$T/want.$1" 2>/dev/null
		"$SCORCH" report -q --time "$2" "$T/ph.data" >"$T/got.$1" 2>"$T/err.$1"
		if [ ! -s "$T/want.$1" ]; then
			not_ok "report time: $1" "perf script --time $3 kept no sample"
		else
			test_cmp "report time: $1 (report --time $2 = perf script --time $3 | collapse perf)" "$T/want.$1" "$T/got.$1"
		fi
	}
	rel=$(awk -v f="$first" 'BEGIN { printf "%.6f,%.6f\n", f + 0.2, f + 0.9 }')
	time_case absolute "$a0,$a1" "$a0,$a1"
	time_case open-start ",$a1" ",$a1"
	time_case open-end "$a1," "$a1,"
	time_case percent-slice "25%/2" "25%/2"
	time_case percent-ranges "0%-10%,50%-60%" "0%-10%,50%-60%"
	time_case several "$a0,$am $a1,$b1" "$a0,$am $a1,$b1"
	time_case relative "0.2,0.9" "$rel"
	# collapse perf --time on the same text (the flamegraph and collapse route)
	collapse_case() { # NAME SCORCH-SPEC REFERENCE
		"$SCORCH" collapse perf --time "$2" "$T/ph.txt" >"$T/cgot.$1" 2>"$T/cerr.$1"
		test_cmp "report time: collapse-$1 (collapse perf --time $2 on perf script text)" "$T/want.$3" "$T/cgot.$1"
	}
	collapse_case absolute "$a0,$a1" absolute
	collapse_case percent "0%-10%,50%-60%" percent-ranges
	collapse_case relative "0.2,0.9" relative
	# diff of two ranges of one capture
	perf script -i "$T/ph.data" --time "$a0,$a1" 2>/dev/null | "$SCORCH" collapse perf >"$T/da" 2>/dev/null
	perf script -i "$T/ph.data" --time "$a1,$b1" 2>/dev/null | "$SCORCH" collapse perf >"$T/db" 2>/dev/null
	"$SCORCH" diff "$T/da" "$T/db" >"$T/dwant" 2>/dev/null
	"$SCORCH" diff --time "$a0,$a1" --time "$a1,$b1" "$T/ph.data" >"$T/dgot" 2>"$T/derr"
	test_cmp "report time: diff (diff --time A --time B perf.data = diff of the two ranges)" "$T/dwant" "$T/dgot"
	"$SCORCH" diff --time "$a0,$a1" --time "$a1,$b1" "$T/ph.txt" >"$T/dgot.txt" 2>"$T/derr.txt"
	test_cmp "report time: diff-text (diff --time A --time B on perf script text)" "$T/dwant" "$T/dgot.txt"
	# flamegraph --time on perf script text draws what flamegraph draws of
	# perf script --time's stacks (the same SVG, byte for byte)
	fg="--title T --subtitle S --countname n"
	"$SCORCH" flamegraph $fg -o "$T/fgwant.svg" "$T/want.absolute" 2>/dev/null
	"$SCORCH" flamegraph --time "$a0,$a1" $fg -o "$T/fggot.svg" "$T/ph.txt" 2>"$T/fgerr"
	if [ "$(grep -c '<title>' "$T/fgwant.svg")" -lt 3 ]; then
		not_ok "report time: flamegraph" "flamegraph of perf script --time drew $(grep -c '<title>' "$T/fgwant.svg") frames"
	else
		test_cmp "report time: flamegraph (flamegraph --time on perf script text = flamegraph of perf script --time)" \
			"$T/fgwant.svg" "$T/fggot.svg"
	fi
	# the flame chart: samples in time order, as from perf script's text
	same="--title T --subtitle S --countname n"
	"$SCORCH" flamegraph --flamechart $same -o "$T/fcwant.svg" "$T/ph.txt" 2>/dev/null
	"$SCORCH" report -q --flamechart $same -o "$T/fcgot.svg" "$T/ph.data" 2>"$T/fcerr"
	if [ "$(grep -c '<title>' "$T/fcwant.svg")" -lt 10 ]; then
		not_ok "report time: flamechart" "flamegraph --flamechart drew $(grep -c '<title>' "$T/fcwant.svg") frames"
	else
		test_cmp "report time: flamechart (report --flamechart = flamegraph --flamechart of perf script)" \
			"$T/fcwant.svg" "$T/fcgot.svg"
	fi
	# bad ranges: one line, exit 2
	bad_case() { # NAME SPEC [INPUT]
		"$SCORCH" report -q --time "$2" "${3:-$T/ph.data}" >/dev/null 2>"$T/bad.$1"
		rc=$?
		if [ $rc = 2 ] && [ "$(wc -l <"$T/bad.$1")" = 1 ] && grep -q -- "--time" "$T/bad.$1"; then
			ok "report time: bad-$1 ($(cut -c1-90 "$T/bad.$1"))"
		else
			not_ok "report time: bad-$1" "exit $rc" "$(cat "$T/bad.$1")"
		fi
	}
	bad_case order "$a1,$a0"
	bad_case outside "100,200"
	bad_case form "10%"
	printf 'a;b 1\n' >"$T/x.folded"
	"$SCORCH" collapse --time 1,2 "$T/x.folded" >/dev/null 2>"$T/bad.folded"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/bad.folded")" = 1 ]; then
		ok "report time: bad-folded (collapse --time on folded stacks: $(cut -c1-70 "$T/bad.folded"))"
	else
		not_ok "report time: bad-folded" "exit $rc" "$(cat "$T/bad.folded")"
	fi
fi
