#!/bin/sh
# Benchmark: scorch flamegraph on ~1 GB of real folded stacks with ~a million
# distinct stacks. The input is the reference collapse of the bench corpus's
# biggest capture (b-sys-gcc, --tid: 112k distinct stacks), copied with ten
# distinct root frames (1.1M distinct stacks) and repeated until FG_BENCH_MB.
# The machine is shared: the load average is printed, and user+sys CPU
# time next to wall time (wall = CPU on an idle machine).
# Prints MB/s by wall and by CPU time, peak RSS, and the ratios to the
# issue's anchor figures (flamegraph.pl ~18 MB/s, inferno ~90 MB/s here).
#   bench/flamegraph.sh            build the input if absent, 3 runs
#   FG_BENCH_MB=256 RUNS=1 bench/flamegraph.sh
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
SHARED=${SHARED:-../shared}
OUT=${BENCH_OUT:-bench/out/flamegraph}
MB=${FG_BENCH_MB:-1024}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
input=$OUT/flamegraph-${MB}mb.folded

if [ ! -s "$input" ]; then
	echo "# building $input (${MB} MB)" >&2
	base=$OUT/b-sys-gcc.tid.folded
	xz -dc "$SHARED/bench/corpus/refs/b-sys-gcc.tid.folded.xz" >"$base"
	copies=$OUT/flamegraph-copies.folded
	: >"$copies"
	for k in 0 1 2 3 4 5 6 7 8 9; do
		sed "s/^/worker-$k;/" "$base" >>"$copies"
	done
	: >"$input.tmp"
	target=$((MB * 1000 * 1000))
	while [ "$(stat -c %s "$input.tmp")" -lt "$target" ]; do
		cat "$copies" >>"$input.tmp"
	done
	head -c "$target" "$input.tmp" | sed '$d' >"$input"
	rm -f "$input.tmp" "$copies" "$base"
fi

bytes=$(stat -c %s "$input")
lines=$(wc -l <"$input")
echo "# input: $input: $bytes bytes, $lines lines; load: $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # label args...
	label=$1
	shift
	best=""
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.txt" nice "$SCORCH" flamegraph "$@" "$input" >"$OUT/graph.svg"
		read -r secs kb usr sys <"$OUT/time.txt"
		echo "#   run $i: ${secs}s wall (${usr}s user, ${sys}s sys), peak RSS $((kb / 1024)) MiB" >&2
		if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then
			best=$secs best_kb=$kb cpu=$(awk "BEGIN{print $usr + $sys}")
		fi
	done
	awk -v b="$bytes" -v s="$best" -v kb="$best_kb" -v l="$label" -v c="$cpu" 'BEGIN {
		mbs = b / 1e6 / s; cmbs = b / 1e6 / c
		printf "%-26s wall %5.2f s %6.1f MB/s (x%.0f flamegraph.pl, x%.1f inferno) | cpu %5.2f s %6.1f MB/s (x%.0f, x%.1f) | peak %d MiB\n",
			l, s, mbs, mbs / 18, mbs / 90, c, cmbs, cmbs / 18, cmbs / 90, kb / 1024 }'
	echo "#   (best of $RUNS by wall time; cpu = user+sys of that run; with one thread, the wall time on an idle core)"
}
run "flamegraph (default)"
run "flamegraph --threads=2" --threads=2
run "flamegraph --reverse" --reverse
echo "# SVG: $(stat -c %s "$OUT/graph.svg") bytes"
