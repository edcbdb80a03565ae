#!/bin/sh
# scorch record's overhead and finishing time (no assertions; prints a table).
#
# 1. Slowdown of a CPU-bound workload (tests/workloads/burn.c, a fixed number
#    of rounds; it times itself) under: scorch record --backend perf, scorch
#    record --backend bpf, perf record -g, and bcc's profile when it runs,
#    each at 99 and 999 Hz. Median of REPS runs, relative to the median
#    unprofiled run.
# 2. Time from the end of sampling to the SVG being written for a system-wide
#    profile of FINISH_SECONDS (default 30) seconds, per backend (scorch's
#    own report on stderr), while the demo workload keeps the CPUs busy.
#
#   bench/record.sh                  everything (about 2-3 minutes)
#   REPS=5 ROUNDS=4000 FINISH_SECONDS=10 bench/record.sh
#
# Needs root (or CAP_PERFMON/CAP_BPF). Runs at nice 10 unless NICE=0; on a
# shared machine the figures are noisy: read them as orders of magnitude.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
O=${O:-build}
SCORCH=${SCORCH:-$ROOT/$( [ "$O" = build ] && echo scorch || echo "$O/scorch")}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-3000}
FINISH_SECONDS=${FINISH_SECONDS:-30}
NICE=${NICE:-10}
[ "$NICE" != 0 ] && [ -z "${BENCH_NICED:-}" ] && BENCH_NICED=1 exec nice -n "$NICE" "$0" "$@"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/scorch-bench-record.XXXX")
trap 'rm -rf "$TMP"' EXIT
CFLAGS_WL="-O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -pthread"
cc $CFLAGS_WL -o "$TMP/burn" tests/workloads/burn.c || exit 1
cc $CFLAGS_WL -o "$TMP/demo" tests/workloads/demo.c || exit 1
[ -x "$SCORCH" ] || { echo "no $SCORCH: build first (make O=$O)"; exit 1; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_case LABEL CMD...: CMD runs "$TMP/burn -n ROUNDS", which prints its
# own wall and CPU seconds; prints "median-wall median-cpu".
run_case() {
	label=$1
	shift
	: >"$TMP/times"
	i=0
	while [ $i -lt "$REPS" ]; do
		"$@" >"$TMP/out" 2>"$TMP/err" || { echo "$label: failed: $(head -2 "$TMP/err")" >&2; return 1; }
		grep -E '^[0-9.]+ [0-9.]+$' "$TMP/out" | tail -1 >>"$TMP/times"
		i=$((i + 1))
	done
	echo "$(cut -d' ' -f1 "$TMP/times" | median) $(cut -d' ' -f2 "$TMP/times" | median)"
}

echo "# scorch record overhead: burn -n $ROUNDS, median of $REPS runs, nice $NICE, $(nproc) CPUs"
base=$(run_case baseline "$TMP/burn" -n "$ROUNDS") || exit 1
# The workload's CPU time (user + system, including the sampling interrupts
# it absorbs) is the steadier figure on a shared machine; wall time also
# counts waiting for a CPU.
printf '%-36s %8s %8s %9s %9s\n' "profiler" "wall s" "cpu s" "wall +%" "cpu +%"
printf '%-36s %8.3f %8.3f %9s %9s\n' "none" ${base% *} ${base#* } "-" "-"

row() {
	label=$1
	shift
	t=$(run_case "$label" "$@") || { printf '%-36s %8s\n' "$label" "failed"; return; }
	echo "$t $base" | awk -v l="$label" '{ printf "%-36s %8.3f %8.3f %8.1f%% %8.1f%%\n", l, $1, $2,
		($1 / $3 - 1) * 100, ($2 / $4 - 1) * 100 }'
}

# The burn's timing line goes to stdout; profiles go to files.
burn_under_scorch() { # BACKEND HZ
	"$SCORCH" record -q --backend "$1" -F "$2" -o "$TMP/prof.folded" -- sh -c "\"$TMP/burn\" -n $ROUNDS >\"$TMP/line\"" &&
		cat "$TMP/line"
}
burn_under_perf() { # HZ
	perf record -q -g -F "$1" -o "$TMP/perf.data" -- "$TMP/burn" -n "$ROUNDS" 2>/dev/null
}
burn_under_bcc() { # HZ
	"$BCC" -F "$1" -f >"$TMP/bcc.out" 2>&1 &
	bp=$!
	sleep 3 # bcc compiles its program first
	"$TMP/burn" -n "$ROUNDS"
	kill -INT $bp 2>/dev/null
	wait $bp 2>/dev/null
}

BCC=$(command -v profile-bpfcc || command -v /usr/share/bcc/tools/profile || true)
for hz in 99 999; do
	row "scorch record --backend perf $hz Hz" burn_under_scorch perf $hz
	row "scorch record --backend bpf $hz Hz" burn_under_scorch bpf $hz
	if command -v perf >/dev/null 2>&1; then
		row "perf record -g $hz Hz" burn_under_perf $hz
	else
		printf '%-36s %8s\n' "perf record -g $hz Hz" "absent"
	fi
	if [ -n "$BCC" ] && "$BCC" -F 49 -f 1 >/dev/null 2>&1; then
		row "bcc profile $hz Hz (system-wide)" burn_under_bcc $hz
	else
		printf '%-36s %8s\n' "bcc profile $hz Hz" "does not run here"
	fi
done

echo
echo "# end of sampling -> SVG written, ${FINISH_SECONDS}s system-wide at 99 Hz (demo workload running)"
for be in perf bpf; do
	"$TMP/demo" $((FINISH_SECONDS + 2)) >/dev/null &
	dp=$!
	/usr/bin/time -f '%M' -o "$TMP/rss" "$SCORCH" record --no-progress --backend $be -a -d "$FINISH_SECONDS" \
		-o "$TMP/all-$be.svg" 2>"$TMP/err"
	wait $dp
	line=$(grep 'output written' "$TMP/err")
	fin=$(echo "$line" | sed -n 's/.*output written \([0-9.]*\) s (\([0-9.]*\) s CPU).*/\1 s (\2 s CPU)/p')
	printf '%-6s finish %s  samples %-6s distinct stacks %-6s peak RSS %s KiB  svg %s bytes\n' "$be" "$fin" \
		"$(echo "$line" | sed -n 's/.*: \([0-9]*\) samples.*/\1/p')" \
		"$(echo "$line" | sed -n 's/.* \([0-9]*\) distinct.*/\1/p')" "$(cat "$TMP/rss")" \
		"$(wc -c <"$TMP/all-$be.svg")"
done
