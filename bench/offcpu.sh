#!/bin/sh
# scorch record --off-cpu: overhead and lost events on a context-switch
# storm (no assertions; prints a table).
#
# The load is bench/pingpong.c: two threads pass a byte through two pipes
# ROUNDS times; it times itself and counts its threads' voluntary context
# switches (getrusage), the blocks there are to see. Profilers, each on the same load:
#   scorch record --off-cpu --backend perf (DWARF stack copies, the
#     default, and --call-graph fp), --backend bpf when `--backend bpf
#     --off-cpu` runs here, and perf sched record -g (frame pointers;
#     perf also records wake-ups and migrations).
# Per profiler: the load's wall time (median of REPS runs) and its
# slowdown against no profiler; the profiler's own CPU time (the whole
# run's user+sys minus the load's); blocks or events recorded against
# the 2 x ROUNDS blocks there are; and what was lost, as each tool says.
#
#   bench/offcpu.sh                     (about a minute)
#   REPS=5 ROUNDS=50000 bench/offcpu.sh
#
# Needs root (tracefs, system-wide tracepoints). Runs at nice 10 unless
# NICE=0; on a shared machine read the figures as orders of magnitude.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
O=${O:-build}
SCORCH=${SCORCH:-$ROOT/$( [ "$O" = build ] && echo scorch || echo "$O/scorch")}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-20000}
NICE=${NICE:-10}
[ "$NICE" != 0 ] && [ -z "${BENCH_NICED:-}" ] && BENCH_NICED=1 exec nice -n "$NICE" "$0" "$@"
. bench/lib.sh

TMP=$(mktemp -d "${TMPDIR:-/tmp}/scorch-bench-offcpu.XXXX")
trap 'rm -rf "$TMP"' EXIT
cc -O2 -g -pthread -o "$TMP/pingpong" bench/pingpong.c || exit 1
[ -x "$SCORCH" ] || { echo "no $SCORCH: build first (make O=$O)"; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_case CMD: REPS runs of the shell command CMD, which runs the load
# with its line ("ROUNDS wall cpu") in $TMP/line and the tool's messages
# on stderr ($TMP/err). Prints "wall profiler-cpu load-cpu" (medians; the
# load's CPU time includes what the kernel does for the profiler in its
# threads: a BPF program's run, perf's ring writes); the last run's
# $TMP/err stays.
run_case() {
	: >"$TMP/times"
	i=0
	while [ $i -lt "$REPS" ]; do
		: >"$TMP/line"
		"$TIMEIT" "$TMP/t" sh -c "$1" >/dev/null 2>"$TMP/err" || { echo "failed: $(head -2 "$TMP/err")" >&2; return 1; }
		read -r _ wall cpu blocks <"$TMP/line" || return 1
		echo "$blocks" >"$TMP/blocks"
		read -r _ user sys _ <"$TMP/t"
		echo "$wall $(awk -v u="$user" -v s="$sys" -v c="$cpu" 'BEGIN { printf "%.3f", u + s - c }') $cpu" >>"$TMP/times"
		i=$((i + 1))
	done
	echo "$(cut -d' ' -f1 "$TMP/times" | median) $(cut -d' ' -f2 "$TMP/times" | median) $(cut -d' ' -f3 "$TMP/times" | median)"
}

LOAD="\"$TMP/pingpong\" $ROUNDS >\"$TMP/line\""
# under_scorch BACKEND [OPTIONS]: the command line
under_scorch() {
	echo "\"$SCORCH\" record --no-progress --off-cpu -o \"$TMP/prof.folded\" --backend $* -- sh -c '$LOAD'"
}
UNDER_PERF="perf sched record -g -o \"$TMP/perf.data\" -- sh -c '$LOAD'"

bench_load
echo "# off-CPU profilers on a pipe ping-pong: $ROUNDS round trips, median of $REPS runs, nice $NICE"
base=$(run_case "$LOAD") || exit 1
printf '%-40s %8s %8s %10s %10s %19s  %s\n' "profiler" "wall s" "slowdown" "own CPU s" "load CPU s" "recorded/blocks" "lost"
printf '%-40s %8.3f %8s %10s %10.3f %19s  %s\n' "none" "${base%% *}" "1.00x" "-" "${base##* }" "-/$(cat "$TMP/blocks")" "-"

# row LABEL COUNTS-FN CMD
row() {
	label=$1 counter=$2
	t=$(run_case "$3") || { printf '%-40s %8s\n' "$label" "failed"; return; }
	set -- $($counter)
	echo "$t ${base%% *}" | awk -v l="$label" -v rec="$1/$(cat "$TMP/blocks")" -v lost="$2" \
		'{ printf "%-40s %8.3f %7.2fx %10.3f %10.3f %19s  %s\n", l, $1, $1 / $4, $2, $3, rec, lost }'
}

# What scorch says: "N blocks" recorded; "N lost" records and "N blocks
# dropped" (their wake-up was lost); bpf: stack copies the ring refused
# (those blocks counted with frame pointers); the share of user stacks
# that reached a thread's start.
scorch_counts() {
	line=$(grep 'blocks in' "$TMP/err" | head -1)
	blocks=$(echo "$line" | sed -n 's/.* \([0-9,]*\) blocks in .*/\1/p' | tr -d ,)
	lost=$(echo "$line" | sed -n 's/.*, \([0-9]*\) lost.*/\1/p')
	dropped=$(echo "$line" | sed -n 's/.*, \([0-9]*\) blocks dropped.*/\1/p')
	refused=$(echo "$line" | sed -n 's/.*, \([0-9]*\) stack copies refused.*/\1/p')
	reached=$(echo "$line" | sed -n 's/.*; \([0-9.]*%\) of user stacks reached.*/\1/p')
	echo "${blocks:-?} ${lost:-0}-records,${dropped:-0}-blocks-dropped,${refused:-0}-copies-refused,${reached:-?}-reached"
}
# What perf says: its sample count (sched_switch, wake-ups, migrations...
# of every task: perf sched records system-wide) and LOST events.
perf_counts() {
	stats=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null)
	samples=$(echo "$stats" | awk '/SAMPLE events:/ { print $3; exit }')
	lost=$(echo "$stats" | awk '/LOST events:/ { print $3; exit }')
	lostsamples=$(echo "$stats" | awk '/LOST_SAMPLES events:/ { print $3; exit }')
	echo "${samples:-?}-events ${lost:-0}-records,${lostsamples:-0}-samples"
}

row "scorch --off-cpu perf (auto: DWARF)" scorch_counts "$(under_scorch perf)"
row "scorch --off-cpu perf --call-graph fp" scorch_counts "$(under_scorch perf --call-graph fp)"
if "$SCORCH" record -q --backend bpf --off-cpu -o "$TMP/probe.folded" -- sleep 0.01 2>"$TMP/probe.err" ||
	grep -q 'no samples' "$TMP/probe.err"; then
	row "scorch --off-cpu bpf (auto: DWARF)" scorch_counts "$(under_scorch bpf)"
	row "scorch --off-cpu bpf --call-graph fp" scorch_counts "$(under_scorch bpf --call-graph fp)"
else
	printf '%-40s %8s  (%s)\n' "scorch --off-cpu bpf" "absent" "$(head -1 "$TMP/probe.err" | cut -c1-60)"
fi
if command -v perf >/dev/null 2>&1; then
	row "perf sched record -g (fp, system-wide)" perf_counts "$UNDER_PERF"
else
	printf '%-40s %8s\n' "perf sched record -g" "absent"
fi
