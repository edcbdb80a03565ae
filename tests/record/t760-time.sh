# record --time and --flamechart: only the samples in a range of the
# recording are written; the flame chart draws them in time order.
# tests/workloads/phases spins in phase_a for its first phase, then mostly
# sleeps in phase_b (1 ms of work in 20): its samples fall in phase_a first
# and in phase_b after, and the phase times it prints (CLOCK_MONOTONIC, the
# clock record stamps samples with) say where. A range over the first
# 40% of the samples' span must be phase_a's, one over the last 30%
# phase_b's, on each backend: perf, BPF with its default unwinding (user
# stacks copied out, each sample stamped) and BPF with frame pointers
# (every sample counted in the kernel, per millisecond cell). The flame
# chart of two rounds has its phase frames in the order a, b, a, b. An
# empty or outside range and the options that cannot keep times are usage
# errors. Needs perf_event_open and BPF: without them the tests fail.
. "${0%/*}/lib.sh"

P=$BUILD/workloads/phases
R=$TMPDIR/rtime
mkdir -p "$R"
# at_least_pct A B: A >= B (decimals)
at_least_pct() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'
}
# share FOLDED FUNCTION: percent of the samples whose stack holds FUNCTION
share() {
	awk -v f="$2" '{ n = $NF; t += n; if (index($0, ";" f ";") || $0 ~ (";" f " [0-9]+$")) s += n }
		END { if (t) printf "%.1f\n", 100 * s / t; else print "0" }' "$1"
}
# phase_order SVG: the phase frames of a flame chart, left to right, with
# repeats merged ("abab")
phase_order() {
	grep -o '<title>phase_[ab] ([^<]*</title><rect x="[0-9.]*"' "$1" |
		sed 's/^<title>phase_\([ab]\) .*x="\([0-9.]*\)"$/\2 \1/' | sort -n |
		awk '$2 != last { printf "%s", $2; last = $2 } END { print "" }'
}
for be in "perf" "bpf" "bpf --call-graph fp"; do
	n=$(echo "$be" | tr -d ' -')
	# (the word splitting of $be is meant: a backend and its options)
	"$SCORCH" record -q --backend $be -F 999 --time 0%-40% -o "$R/a-$n.folded" -- "$P" 1 800 >/dev/null 2>"$R/a.err"
	rc=$?
	if [ $rc = 0 ] && [ -s "$R/a-$n.folded" ] && at_least_pct "$(share "$R/a-$n.folded" phase_a)" 90; then
		ok "record --backend $be --time 0%-40%: phase_a's samples ($(share "$R/a-$n.folded" phase_a)%)"
	else
		not_ok "record --backend $be --time 0%-40%: phase_a's samples" \
			"exit $rc, phase_a $(share "$R/a-$n.folded" phase_a)%" "$(head -3 "$R/a.err")"
	fi
	"$SCORCH" record -q --backend $be -F 999 --time 70%-100% -o "$R/b-$n.folded" -- "$P" 1 800 >/dev/null 2>"$R/b.err"
	rc=$?
	if [ $rc = 0 ] && [ -s "$R/b-$n.folded" ] && at_least_pct "$(share "$R/b-$n.folded" phase_b)" 90 &&
		! grep -q phase_a "$R/b-$n.folded"; then
		ok "record --backend $be --time 70%-100%: phase_b's samples ($(share "$R/b-$n.folded" phase_b)%), none of phase_a"
	else
		not_ok "record --backend $be --time 70%-100%: phase_b's samples, none of phase_a" \
			"exit $rc, phase_b $(share "$R/b-$n.folded" phase_b)%" "$(head -3 "$R/b.err")"
	fi
	"$SCORCH" record -q --backend $be -F 499 --flamechart -o "$R/chart-$n.svg" -- "$P" 2 400 >/dev/null 2>"$R/c.err"
	rc=$?
	order=$(phase_order "$R/chart-$n.svg")
	if [ $rc = 0 ] && grep -q 'Flame Chart' "$R/chart-$n.svg" && [ "$order" = abab ]; then
		ok "record --backend $be --flamechart: the phases in time order ($order)"
	else
		not_ok "record --backend $be --flamechart: the phases in time order" "exit $rc, order '$order'" \
			"$(head -3 "$R/c.err")"
	fi
done
cp "$R/a-perf.folded" "$R/a.folded"
# the whole recording's samples are more
"$SCORCH" record -q -F 999 --backend perf -o "$R/all.folded" -- "$P" 1 800 >/dev/null 2>&1
n_all=$(awk '{ t += $NF } END { print t + 0 }' "$R/all.folded")
n_a=$(awk '{ t += $NF } END { print t + 0 }' "$R/a.folded")
if [ "$n_a" -gt 0 ] && [ "$n_a" -lt "$n_all" ]; then
	ok "record --time keeps fewer samples than the whole ($n_a of about $n_all)"
else
	not_ok "record --time keeps fewer samples than the whole" "$n_a against $n_all"
fi
rtime_bad() { # NAME EXPECTED-TEXT ARGS...
	_n=$1 _w=$2
	shift 2
	"$SCORCH" record -q "$@" >/dev/null 2>"$R/bad.err"
	_rc=$?
	if [ $_rc = 2 ] && [ "$(wc -l <"$R/bad.err")" = 1 ] && grep -q -- "$_w" "$R/bad.err"; then
		ok "record --time: $_n is a usage error"
	else
		not_ok "record --time: $_n is a usage error" "exit $_rc" "$(cat "$R/bad.err")"
	fi
}
rtime_bad "outside the recording" "outside the recording" --time 50,60 -o "$R/x.folded" -- "$P" 1 100
rtime_bad "end before start" "ends before it starts" --time 3,1 -- true
rtime_bad "--off-cpu" "not with --off-cpu" --off-cpu --time 1,2 -- true
if [ -e "$R/x.folded" ]; then
	not_ok "record --time: nothing written after a bad range" "$R/x.folded exists"
else
	ok "record --time: nothing written after a bad range"
fi
