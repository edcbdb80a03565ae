#!/bin/sh
# Benchmark: the HTML viewer's heat map on a 10-minute, 2-CPU, 999 Hz
# capture (about 1.2M samples). No capture of that kind is in the corpus,
# so the input is SYNTHESIZED perf script text (bench/synth_timed.c: 24
# processes in bursts, a "pause" every 7 s, ~60k distinct stacks, 750 MB).
# Prints scorch's time and peak RSS to write the HTML (flamegraph -o
# FILE.html: the sequential perf path, with the time cells), the file size,
# then in headless chromium (bench/time_measure.js) the open time and the
# range-redraw times; for reference, the same input drawn without time
# (collapsed first, so the HTML has no heat map). Goal (issue 31): open
# under 1 s with the heat map, a range redrawn under 100 ms. The machine
# is shared: the load average is printed.
#   bench/time.sh                 600 s, 999 Hz, 2 CPUs
#   SECONDS_=60 bench/time.sh     a shorter capture
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
OUT=${BENCH_OUT:-bench/out/time}
SECS=${SECONDS_:-600}
mkdir -p "$OUT"
if [ ! -d tests/browser/node_modules/playwright-core ] || [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
	echo "# skipped: needs chromium and tests/browser/node_modules (scripts/setup)"
	exit 0
fi
cc -O2 -o "$OUT/synth_timed" bench/synth_timed.c
cc -O2 -o "$OUT/timeit" bench/timeit.c
in=$OUT/synth-$SECS.txt
[ -s "$in" ] || "$OUT/synth_timed" "$SECS" 999 2 >"$in"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg); input $(wc -c <"$in") bytes, $(grep -c ' cpu-clock' "$in") samples"
"$OUT/timeit" "$OUT/t-html" "$SCORCH" flamegraph -o "$OUT/time.html" "$in"
read -r wall user sys rss <"$OUT/t-html"
echo "scorch flamegraph -o time.html: wall ${wall}s cpu $(echo "$user $sys" | awk '{print $1+$2}')s peak RSS $((rss / 1024)) MiB"
"$SCORCH" collapse perf "$in" >"$OUT/synth.folded"
"$SCORCH" flamegraph -o "$OUT/plain.html" "$OUT/synth.folded"
echo "with time:    $(node bench/time_measure.js "$OUT/time.html")"
echo "without time: $(node bench/html_measure.js "$OUT/plain.html" fn_399 'fn_1[0-9]')"
