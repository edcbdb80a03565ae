#!/bin/sh
# Benchmark: scorch report (perf.data -> folded stacks) against the two
# perf-based routes on the same capture:
#   - perf script | stackcollapse-perf.pl: perf script is timed here; the
#     Perl collapser is not installed, so its time is estimated from the
#     issue's figures for this machine kind (17-29 MB/s of perf script text);
#     the route's time is perf script + collapser (the issue's framing);
#   - perf report -g folded (comm-sorted, counts), timed here.
# Also perf script | scorch collapse perf, for reference. Prints wall time,
# user+sys CPU, peak RSS (/usr/bin/time) and the ratios.
#   bench/report.sh [PERF.DATA]     default: bench/out/report-big.data,
#                                   recorded if absent (about 3 minutes,
#                                   niced: perf record -F 4999 -a -g while
#                                   the report_mt workload runs)
#   RUNS=1 bench/report.sh
#   BASE=/path/to/older/scorch bench/report.sh   also times that build's
#                                   report in the same run, for the ratio
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
OUT=${BENCH_OUT:-bench/out}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
data=${1:-$OUT/report-big.data}
TIME=/usr/bin/time

if [ ! -s "$data" ]; then
	W=${BUILD:-build}/workloads/report_mt
	echo "# recording $data (system-wide, 200 s, niced)" >&2
	nice -n 19 perf record -q -F 4999 -a -g -o "$data" -- nice -n 19 "$W" 200 >/dev/null 2>&1
fi
bytes=$(stat -L -c %s "$data")
echo "# input: $data: $bytes bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared)"

# run LABEL CMD...: median wall of RUNS runs; sets wall, cpu, rss
run() {
	label=$1
	shift
	: >"$OUT/report.walls"
	for i in $(seq "$RUNS"); do
		$TIME -f '%e %U %S %M' -o "$OUT/report.time" sh -c '"$@"' sh "$@"
		read -r w u s m <"$OUT/report.time"
		echo "$w $u $s $m" >>"$OUT/report.walls"
	done
	set -- $(sort -n "$OUT/report.walls" | awk -v n="$RUNS" 'NR == int((n + 1) / 2)')
	wall=$1 cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u + s }') rss=$4
	printf '%-44s %7.2f s wall %7s s cpu %8d KB peak\n' "$label" "$wall" "$cpu" "$rss"
}

run "scorch report" "$SCORCH" report -q -o "$OUT/report.scorch.folded" "$data"
t_scorch=$wall c_scorch=$cpu
"$SCORCH" report -q --stats "$data" 2>&1 >/dev/null | sed 's/^/# /' || true
if [ -n "${BASE:-}" ]; then
	run "base scorch report ($BASE)" "$BASE" report -q -o "$OUT/report.base.folded" "$data"
	awk -v b="$wall" -v s="$t_scorch" -v cb="$cpu" -v cs="$c_scorch" \
		'BEGIN { printf "# base / this build: %.2fx wall, %.2fx cpu\n", b / s, cb / cs }'
	cmp -s "$OUT/report.base.folded" "$OUT/report.scorch.folded" &&
		echo "# output identical to the base build's" || echo "# output differs from the base build's"
fi

run "perf script > text" sh -c "perf script -i '$data' > '$OUT/report.perf.txt' 2>/dev/null"
t_script=$wall c_script=$cpu
text=$(stat -c %s "$OUT/report.perf.txt")
echo "# perf script text: $text bytes ($(awk -v b="$text" -v s="$t_script" 'BEGIN { printf "%.0f", b / s / 1e6 }') MB/s here; the issue measured 87 MB/s)"

run "perf report -g folded" sh -c "perf report -i '$data' --stdio --no-children -s comm -g folded,0,caller,count -q > '$OUT/report.perf-report.txt' 2>/dev/null"
t_report=$wall c_report=$cpu

run "perf script | scorch collapse perf" sh -c "perf script -i '$data' 2>/dev/null | '$SCORCH' collapse perf > '$OUT/report.collapse.folded'"
t_pipe=$wall

awk -v ts="$t_scorch" -v tsc="$t_script" -v tr="$t_report" -v tp="$t_pipe" -v b="$text" \
	-v cs="$c_scorch" -v csc="$c_script" -v cr="$c_report" 'BEGIN {
	fast = tsc + b / 29e6; slow = tsc + b / 17e6
	printf "perf script | stackcollapse-perf.pl (estimated: perf script here + %.1f-%.1f s of Perl at 29-17 MB/s): %.2f-%.2f s\n", b / 29e6, b / 17e6, fast, slow
	printf "speed-up of scorch report (wall): %.1f-%.1fx over perf script | stackcollapse-perf.pl, %.1fx over perf report -g folded, %.1fx over perf script | scorch collapse perf\n", fast / ts, slow / ts, tr / ts, tp / ts
	# on a loaded machine CPU time is the steadier measure (the Perl figures
	# are idle-machine throughput, i.e. CPU-bound time)
	printf "speed-up of scorch report (cpu): %.1f-%.1fx over perf script | stackcollapse-perf.pl, %.1fx over perf report -g folded\n", (csc + b / 29e6) / cs, (csc + b / 17e6) / cs, cr / cs
	printf "at the issue figure for perf script (87 MB/s): %.1f-%.1fx (wall), %.1f-%.1fx (cpu)\n", (b / 87e6 + b / 29e6) / ts, (b / 87e6 + b / 17e6) / ts, (b / 87e6 + b / 29e6) / cs, (b / 87e6 + b / 17e6) / cs
}'
if cmp -s "$OUT/report.scorch.folded" "$OUT/report.collapse.folded"; then
	echo "# scorch report output is identical to perf script | scorch collapse perf"
else
	echo "# scorch report output differs from perf script | scorch collapse perf in $(diff "$OUT/report.scorch.folded" "$OUT/report.collapse.folded" | grep -c '^[<>]') lines"
fi
rm -f "$OUT/report.perf.txt"
