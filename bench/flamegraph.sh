#!/bin/sh
# Benchmark: scorch flamegraph on 15 MB, 256 MB and 1 GB of real folded
# stacks with many distinct stacks, side by side with a previous scorch
# (BASE_REV, built once into the bench output folder) in the same run.
#
# Input: the reference collapse of the bench corpus's biggest capture
# (b-sys-gcc, --tid: 112k distinct stacks, 18.6 MB) copied with ten distinct
# root frames (1.1M distinct stacks, 196 MB), repeated and cut to size.
# The 15 MB input is the first 92k distinct stacks; 256 MB has all 1.1M and
# 1.47M lines; 1 GB 5.9M lines.
#
# Prints per size and binary the medians of RUNS runs (runs of the two
# binaries alternate) of wall and CPU (user+sys) time, MB/s (MB = 10^6
# bytes) by each, the peak RSS, and the ratios to the issue's anchors,
# measured on this machine kind: inferno-flamegraph 136 MB/s (1.88 s on
# 256 MB), flamegraph.pl 2.4 s on 15 MB. The machine is shared: the load
# average is printed; with one thread, CPU time is what the wall time
# would be on an idle core. CALLGRIND=1 adds instruction counts at 15 MB.
#
#   bench/flamegraph.sh                    3 sizes, 5 runs (3 at 1 GB)
#   SIZES="15 256" RUNS=3 bench/flamegraph.sh
#   BASE_REV=none bench/flamegraph.sh      without the previous version (BASE= works too;
#                                         default: main before the 2026-11-24 speed work)
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
CORPUS=${CORPUS:-tests/data/corpus}
OUT=${BENCH_OUT:-bench/out}/flamegraph
SIZES=${SIZES:-15 256 1024}
RUNS=${RUNS:-5}
BASE_REV=${BASE_REV:-${BASE:-af93b8f}}
INFERNO_MBS=136
FGPL_15MB_S=2.4
mkdir -p "$OUT"
. bench/lib.sh

base=$(bench_base_build "$BASE_REV")
copies=$OUT/copies.folded
if [ ! -s "$copies" ]; then
	echo "# building $copies" >&2
	xz -dc "$CORPUS/refs/b-sys-gcc.tid.folded.xz" >"$OUT/b-sys-gcc.tid.folded"
	for k in 0 1 2 3 4 5 6 7 8 9; do
		sed "s/^/worker-$k;/" "$OUT/b-sys-gcc.tid.folded"
	done >"$copies"
	rm -f "$OUT/b-sys-gcc.tid.folded"
fi

echo "# scorch flamegraph; $(bench_load); base: ${base:-none}"
printf '%-7s %-6s %9s %9s %8s %8s %8s %9s %9s %9s\n' size binary "wall s" "cpu s" "MB/s" "MB/s cpu" "RSS MiB" "x inferno" "x fg.pl" "x base"
for mb in $SIZES; do
	input=$OUT/fg-$mb.folded
	if [ ! -s "$input" ]; then
		echo "# building $input" >&2
		n=$(((mb * 1000 * 1000) / $(stat -c %s "$copies") + 1))
		for _ in $(seq "$n"); do cat "$copies"; done | head -c $((mb * 1000 * 1000)) | sed '$d' >"$input"
	fi
	bytes=$(stat -c %s "$input")
	[ -s "$input.stacks" ] || "$SCORCH" collapse folded "$input" | wc -l >"$input.stacks"
	runs=$RUNS
	[ "$mb" -ge 1000 ] && [ "$RUNS" -gt 3 ] && runs=3
	bench_median_pair "$runs" "$base" "$SCORCH" flamegraph "$input"
	echo "# $mb MB: $input: $bytes bytes, $(wc -l <"$input") lines, $(cat "$input.stacks") distinct stacks; $runs runs; $(bench_load)"
	for who in base new; do
		[ "$who" = base ] && [ -z "$base" ] && continue
		eval "w=\$${who}_wall c=\$${who}_cpu r=\$${who}_rss"
		awk -v mb="$mb" -v who="$who" -v b="$bytes" -v w="$w" -v c="$c" -v r="$r" \
			-v inf="$INFERNO_MBS" -v pl="$FGPL_15MB_S" -v bw="${base_wall:-0}" -v bc="${base_cpu:-0}" 'BEGIN {
			tinf = b / 1e6 / inf
			fgpl = mb == 15 ? sprintf("%.0f/%.0f", pl / w, pl / c) : "-"
			xb = (who == "new" && bw > 0) ? sprintf("%.2f/%.2f", bw / w, bc / c) : "-"
			printf "%-7s %-6s %9.3f %9.3f %8.0f %8.0f %8.0f %4.1f/%-4.1f %9s %9s\n",
				mb " MB", who, w, c, b / 1e6 / w, b / 1e6 / c, r / 1024, tinf / w, tinf / c, fgpl, xb }'
	done
done
echo "# ratios are wall/cpu: against inferno-flamegraph at ${INFERNO_MBS} MB/s and flamegraph.pl at ${FGPL_15MB_S} s on 15 MB (the issue's figures), and against the base build"
echo "# SVG: $(stat -c %s "$OUT/new.out") bytes; $(cmp -s "$OUT/new.out" "$OUT/base.out" 2>/dev/null && echo 'identical to the base build' || echo 'DIFFERS from the base build (or no base)')"

if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
	for who in base new; do
		bin=$SCORCH
		[ "$who" = base ] && bin=$base
		[ -n "$bin" ] || continue
		valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$who" "$bin" flamegraph \
			"$OUT/fg-15.folded" 2>"$OUT/callgrind.err" >/dev/null
		echo "# callgrind, 15 MB, $who: $(sed -n 's/.*refs: *//p' "$OUT/callgrind.err") instructions"
	done
fi
rm -f "$OUT/base.out" "$OUT/time.txt"
