#!/bin/sh
# Benchmark: scorch report on a --call-graph dwarf capture, where user
# stacks are unwound from each sample's registers and stack copy. Times
# report with --no-inline (unwinding and symbols; perf's inline expansion
# of unwound frames runs addr2line and dominates otherwise) and the
# default, against a base build in alternating runs, and checks that both
# builds print the same output. Prints medians of wall and CPU time and
# peak RSS.
#   bench/report-dwarf.sh [PERF.DATA]  default: bench/out/report-dwarf.data,
#                       recorded if absent (a few seconds: perf record
#                       --call-graph dwarf over a make that compiles a few
#                       of scorch's files with gcc: many short processes
#                       mapping the same libraries)
#   BASE_REV=main bench/report-dwarf.sh      base: scorch built at this commit
#   BASE=/path/to/scorch bench/report-dwarf.sh
#   RUNS=5 bench/report-dwarf.sh
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
OUT=$BENCH_DIR
SCORCH=${SCORCH:-./scorch}
RUNS=${RUNS:-3}
BASE=${BASE:-$(bench_base_build "${BASE_REV:-none}")}
data=${1:-$OUT/report-dwarf.data}

if [ ! -s "$data" ]; then
	src=$OUT/report-dwarf-src
	rm -rf "$src"
	mkdir -p "$src"
	cp -r src "$src/"
	printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard src/profile/*.c src/base/*.c))\nall: $(OBJS)\n%%.o: %%.c\n\tgcc -O2 -Isrc -c $< -o $@\n' >"$src/Makefile"
	echo "# recording $data (perf record --call-graph dwarf: make -j1 of $(ls "$src"/src/profile/*.c "$src"/src/base/*.c | wc -l) files)" >&2
	nice perf record -q --call-graph dwarf -F 999 -o "$data" -- make -s -C "$src" -j1 >/dev/null 2>&1
	rm -rf "$src"
fi
echo "# input: $data: $(stat -L -c %s "$data") bytes; $(bench_load)"
"$SCORCH" report -q --stats "$data" 2>&1 >/dev/null | sed 's/^/# /' || true
for opts in --no-inline ""; do
	bench_median_pair "$RUNS" "${BASE:-}" "$SCORCH" report -q $opts "$data"
	label="scorch report ${opts:-(default)}"
	printf '%-40s %7.3f s wall %7.3f s cpu %8d KB peak\n' "$label" "$new_wall" "$new_cpu" "$new_rss"
	if [ -n "${BASE:-}" ]; then
		printf '%-40s %7.3f s wall %7.3f s cpu %8d KB peak\n' "  base ($BASE)" "$base_wall" "$base_cpu" "$base_rss"
		awk -v b="$base_wall" -v s="$new_wall" -v cb="$base_cpu" -v cs="$new_cpu" \
			'BEGIN { printf "#   base / this build: %.2fx wall, %.2fx cpu\n", b / s, cb / cs }'
		cmp -s "$OUT/base.out" "$OUT/new.out" &&
			echo "#   output identical to the base build's" || echo "#   output DIFFERS from the base build's"
	fi
	rm -f "$OUT/base.out" "$OUT/new.out"
done
