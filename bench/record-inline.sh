#!/bin/sh
# Benchmark: what expanding the inlined functions of DWARF-unwound frames
# (perf's, through the libdw engine: src/symbolize/inline_dw.c) costs
# `scorch record`. DURATION (default 10) seconds of `record -a -F 999` (default
# call graph: DWARF for code without frame pointers) while a loop runs
# Debian's gzip -9, xz -3 and python3 (plus PYTHON, default the python3 on
# PATH, which may be one built with DWARF) on libc.so.6; per backend, the
# new build and a base build alternate, with and without --no-inline.
# Prints medians of scorch's CPU seconds (user+sys) and of its peak RSS
# (and the largest), and the samples written. Both vary with what else the
# machine runs: -a samples every process, and each program with debug
# information adds its own. The folded outputs of -a runs differ from
# run to run: no output comparison here (tests/record t112 checks names).
#   bench/record-inline.sh                    base: none (new build only)
#   BASE_REV=main bench/record-inline.sh      base: scorch built at this commit
#   BASE=/path/to/scorch RUNS=5 DURATION=10 BACKENDS="perf bpf" bench/record-inline.sh
# Needs root. The machine is shared: read CPU seconds, not wall time.
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
OUT=$BENCH_DIR/record-inline
mkdir -p "$OUT"
SCORCH=${SCORCH:-./scorch}
RUNS=${RUNS:-3}
DURATION=${DURATION:-10}
BACKENDS=${BACKENDS:-perf bpf}
PYTHON=${PYTHON:-python3}
BASE=${BASE:-$(bench_base_build "${BASE_REV:-none}")}
LIBC=$(ls /usr/lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | head -1)
[ -n "$LIBC" ] || { echo "no libc.so.6 to compress"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (perf_event for every CPU)"; exit 1; }

# The load, in its own session so that it ends with every child.
load() {
	setsid sh -c 'echo $$ >"$1/load.pid"
		while :; do
			gzip -9 -c "$2" >/dev/null
			xz -3 -c "$2" >/dev/null
			/usr/bin/python3 -c "import json; d=[{\"k\": i, \"v\": str(i) * 3} for i in range(60000)]; json.loads(json.dumps(d))"
			"$3" -c "import json; d=[{\"k\": i, \"v\": str(i) * 3} for i in range(60000)]; sorted(d, key=lambda x: x[\"v\"])"
		done' sh "$OUT" "$LIBC" "$PYTHON" >/dev/null 2>&1 &
	sleep 1
}
unload() {
	kill -- -"$(cat "$OUT/load.pid")" 2>/dev/null
	wait 2>/dev/null
}

echo "# record -a -F 999 -d $DURATION under a gzip/xz/python loop ($PYTHON: $(command -v "$PYTHON")); $(bench_load)"
[ -n "$BASE" ] && echo "# base: $BASE"
load
trap 'unload' EXIT INT TERM
for be in $BACKENDS; do
	for opt in default --no-inline; do
		for who in base new; do
			: >"$OUT/$who.cpu"
			: >"$OUT/$who.rss"
			: >"$OUT/$who.samples"
		done
		for i in $(seq "$RUNS"); do
			for who in base new; do
				bin=$SCORCH
				[ "$who" = base ] && bin=$BASE
				[ -n "$bin" ] || continue
				o=
				[ "$opt" = --no-inline ] && o=--no-inline
				if ! "$TIMEIT" "$OUT/time.txt" "$bin" record -q --backend "$be" -a -F 999 -d "$DURATION" $o \
					-o "$OUT/$who.folded" 2>"$OUT/$who.err"; then
					echo "# $who failed: $(head -2 "$OUT/$who.err")"
					continue
				fi
				read -r wall usr sys kb <"$OUT/time.txt"
				awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.3f\n", u + s }' >>"$OUT/$who.cpu"
				echo "$kb" >>"$OUT/$who.rss"
				awk '{ n += $NF } END { print n + 0 }' "$OUT/$who.folded" >>"$OUT/$who.samples"
				echo "#   $be $opt $who run $i: ${wall}s wall, $(tail -1 "$OUT/$who.cpu")s CPU, $((kb / 1024)) MiB, $(tail -1 "$OUT/$who.samples") samples; load $(cut -d' ' -f1 /proc/loadavg)" >&2
			done
		done
		for who in base new; do
			[ -s "$OUT/$who.cpu" ] || continue
			printf '%-5s %-11s %-4s scorch CPU %6.3f s (median of %s: %s)  peak RSS %4d MiB (largest %d)  samples %s\n' \
				"$be" "$opt" "$who" "$(bench_median "$OUT/$who.cpu")" "$RUNS" \
				"$(tr '\n' ' ' <"$OUT/$who.cpu" | sed 's/ $//')" $(($(bench_median "$OUT/$who.rss") / 1024)) \
				$(($(sort -n "$OUT/$who.rss" | tail -1) / 1024)) "$(bench_median "$OUT/$who.samples")"
		done
	done
done
