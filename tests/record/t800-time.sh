# record --time: only the samples in a range of the recording are written.
# tests/workloads/phases spins in phase_a for its first phase, then mostly
# sleeps in phase_b (1 ms of work in 20): its samples fall in phase_a first
# and in phase_b after, and the phase times it prints (CLOCK_MONOTONIC, the
# clock record stamps samples with) say where. A range over the first
# 40% of the samples' span must be phase_a's, one over the last 30%
# phase_b's; an empty or outside range and the options that cannot keep
# times are usage errors. Needs perf_event_open: without it the tests fail.
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
"$SCORCH" record -q --backend perf -F 999 --time 0%-40% -o "$R/a.folded" -- "$P" 1 800 >/dev/null 2>"$R/a.err"
rc=$?
if [ $rc = 0 ] && [ -s "$R/a.folded" ] && at_least_pct "$(share "$R/a.folded" phase_a)" 90; then
	ok "record --time 0%-40%: phase_a's samples ($(share "$R/a.folded" phase_a)%)"
else
	not_ok "record --time 0%-40%: phase_a's samples" "exit $rc, phase_a $(share "$R/a.folded" phase_a)%" "$(head -3 "$R/a.err")"
fi
"$SCORCH" record -q -F 999 --time 70%-100% -o "$R/b.folded" -- "$P" 1 800 >/dev/null 2>"$R/b.err"
rc=$?
if [ $rc = 0 ] && [ -s "$R/b.folded" ] && at_least_pct "$(share "$R/b.folded" phase_b)" 90; then
	ok "record --time 70%-100% (perf backend implied): phase_b's samples ($(share "$R/b.folded" phase_b)%)"
else
	not_ok "record --time 70%-100%: phase_b's samples" "exit $rc, phase_b $(share "$R/b.folded" phase_b)%" "$(head -3 "$R/b.err")"
fi
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
rtime_bad "--backend bpf" "only --backend perf" --backend bpf --time 1,2 -- true
rtime_bad "--off-cpu" "not with --off-cpu" --off-cpu --time 1,2 -- true
if [ -e "$R/x.folded" ]; then
	not_ok "record --time: nothing written after a bad range" "$R/x.folded exists"
else
	ok "record --time: nothing written after a bad range"
fi
