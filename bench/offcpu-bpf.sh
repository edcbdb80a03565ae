#!/bin/sh
# Off-CPU recording's overhead under a context-switch-heavy load: the
# ping-pong of bench/pingpong.c (two threads, a byte through two pipes,
# ROUNDS round trips: each thread blocks in read(2) once per round). No
# assertions; prints a table, medians of REPS runs:
#   - the load's own wall and CPU seconds (it times itself: the BPF program
#     runs in the switching threads, so its cost shows in their CPU time),
#   - the CPU of everything (scorch or perf and the load, from wait4),
#   - what the profiler says it lost or could not copy (its summary line).
# Profilers: scorch record --off-cpu on the bpf backend with frame pointers
# and with the default auto (DWARF copies at switch-out), on the perf
# backend when it records off-CPU time here, `perf sched record -g` (the
# reference: system-wide, as perf sched always is) and `perf record -e
# sched:sched_switch -g` (the load only, the closest to scorch's scope).
#
#   bench/offcpu-bpf.sh              (about a minute)
#   REPS=5 ROUNDS=200000 bench/offcpu-bpf.sh
#
# Needs root (or CAP_PERFMON/CAP_BPF). Runs at nice 10 unless NICE=0; on a
# shared machine the figures are noisy: read them as orders of magnitude.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
O=${O:-build}
SCORCH=${SCORCH:-$ROOT/$( [ "$O" = build ] && echo scorch || echo "$O/scorch")}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-100000}
NICE=${NICE:-10}
[ "$NICE" != 0 ] && [ -z "${BENCH_NICED:-}" ] && BENCH_NICED=1 exec nice -n "$NICE" "$0" "$@"
. bench/lib.sh

TMP=$(mktemp -d "${TMPDIR:-/tmp}/scorch-bench-offcpu.XXXX")
trap 'rm -rf "$TMP"' EXIT
# Built as distributions build: no frame pointers (fp loses the callers).
cc -O2 -g -pthread -o "$TMP/pingpong" bench/pingpong.c || exit 1
[ -x "$SCORCH" ] || { echo "no $SCORCH: build first (make O=$O)"; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_case CMD...: REPS runs of CMD (which runs the load, its timing line on
# stdout); sets wall cpu all (medians) and note (the last run's losses).
run_case() {
	: >"$TMP/w"; : >"$TMP/c"; : >"$TMP/a"
	i=0
	while [ $i -lt "$REPS" ]; do
		rm -f "$TMP/line"
		"$TIMEIT" "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" || return 1
		line=$(grep -hE '^[0-9.]+ [0-9.]+$' "$TMP/out" "$TMP/line" 2>/dev/null | tail -1)
		[ -n "$line" ] || return 1
		echo "${line% *}" >>"$TMP/w"
		echo "${line#* }" >>"$TMP/c"
		read -r _w u s _kb <"$TMP/time"
		awk -v u="$u" -v s="$s" 'BEGIN { print u + s }' >>"$TMP/a"
		i=$((i + 1))
	done
	wall=$(median <"$TMP/w") cpu=$(median <"$TMP/c") all=$(median <"$TMP/a")
	note=$(grep -o -E '[0-9,]+ (lost|stack copies refused[^;,]*|with a stack lost[^;,]*)|[0-9.]+% of user stacks reached[^;,]*|lost [0-9,]+ chunks|Processed [0-9]+ events and lost [0-9]+ chunks|[0-9]+ samples\)' "$TMP/err" |
		tr '\n' ';' | sed 's/;$//')
	return 0
}

echo "# off-CPU recording overhead: pingpong $ROUNDS rounds, median of $REPS runs, nice $NICE; $(bench_load)"
printf '%-34s %7s %7s %7s %8s %8s  %s\n' profiler "wall s" "cpu s" "all s" "wall +%" "cpu +%" "losses / stacks"
run_case "$TMP/pingpong" "$ROUNDS" || { echo "the load failed: $(cat "$TMP/err")"; exit 1; }
base_wall=$wall base_cpu=$cpu
printf '%-34s %7.3f %7.3f %7.3f %8s %8s\n' none "$wall" "$cpu" "$all" - -

row() {
	label=$1
	shift
	if ! run_case "$@"; then
		printf '%-34s %7s  %s\n' "$label" failed "$(head -1 "$TMP/err" | cut -c1-80)"
		return
	fi
	awk -v l="$label" -v w="$wall" -v c="$cpu" -v a="$all" -v bw="$base_wall" -v bc="$base_cpu" -v n="$note" \
		'BEGIN { printf "%-34s %7.3f %7.3f %7.3f %7.1f%% %7.1f%%  %s\n", l, w, c, a, (w / bw - 1) * 100, (c / bc - 1) * 100, n }'
}

for be in bpf perf; do
	for cg in fp auto; do
		row "scorch $be --off-cpu ($cg)" "$SCORCH" record --backend $be --off-cpu --call-graph $cg \
			-o "$TMP/p.folded" -- "$TMP/pingpong" "$ROUNDS"
	done
done
if command -v perf >/dev/null 2>&1; then
	row "perf sched record -g (system)" sh -c "perf sched record -g -o '$TMP/perf.data' -- '$TMP/pingpong' $ROUNDS >'$TMP/line'"
	row "perf record -e sched_switch -g" sh -c "perf record -e sched:sched_switch -g -o '$TMP/perf.data' -- '$TMP/pingpong' $ROUNDS >'$TMP/line'"
	ls -l "$TMP/perf.data" 2>/dev/null | awk '{ printf "# perf.data of the last perf run: %.1f MB\n", $5 / 1e6 }'
fi
