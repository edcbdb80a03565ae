#!/bin/sh
# Benchmark: the HTML viewer (-o FILE.html) on profiles of about 100k, 1M
# and 4M frames: the corpus's reference collapses (tests/data/corpus,
# six captures, ~104k frames together) copied under 1, 10 and 39 distinct
# root frames ("copy-N"). For each: scorch's time and peak RSS to write the
# HTML, the file size and bytes per frame, then in headless chromium
# (bench/html_measure.js) the time to first draw, zoom, reset and search,
# the JS heap and the browser's peak RSS; side by side, scorch's SVG of the
# same input (default --minwidth 0.1, so fewer frames; and for the smallest
# size with --minwidth 0, every frame) loaded the same way.
# Goal (issue 10): 1M frames open under 1 s, zoom and search under 50 ms,
# under 300 MB. The machine is shared: the load average is printed.
#   bench/html.sh                  all three sizes
#   SIZES="1" bench/html.sh        only ~100k frames
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
CORPUS=${CORPUS:-tests/data/corpus}
OUT=${BENCH_OUT:-bench/out/html}
SIZES=${SIZES:-1 10 39}
mkdir -p "$OUT"
if [ ! -d tests/browser/node_modules/playwright-core ] || [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
	echo "# skipped: needs chromium and tests/browser/node_modules (scripts/setup)"
	exit 0
fi
base=$OUT/corpus.folded
if [ ! -s "$base" ]; then
	for c in a-fp-mt b-sys-gcc c-kernel e-cxx-dwarf f1-cpuclock-F997 f2-two-events; do
		xz -dc "$CORPUS/refs/$c.default.folded.xz"
	done >"$base"
fi
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg); nproc $(nproc)"
for n in $SIZES; do
	input=$OUT/copies-$n.folded
	[ -s "$input" ] || for k in $(seq "$n"); do sed "s/^/copy-$k;/" "$base"; done >"$input"
	# the SVG with every frame too (--minwidth 0), for the smallest size
	variants="html svg"
	[ "$n" = "${SIZES%% *}" ] && variants="html svg svg-all"
	for v in $variants; do
		fmt=${v%-all}
		args=""
		[ "$v" = svg-all ] && args="--minwidth 0"
		f=$OUT/copies-$n-$v.$fmt
		# shellcheck disable=SC2086
		/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.txt" "$SCORCH" flamegraph $args -o "$f" "$input"
		read -r secs kb usr sys <"$OUT/time.txt"
		echo "# copies=$n $v: scorch ${secs}s wall (${usr}s user, ${sys}s sys), peak RSS $((kb / 1024)) MiB"
		if [ "$fmt" = html ]; then
			node bench/html_measure.js "$f" cc1 'malloc|free' || echo "# html measure failed"
		else
			timeout 600 node bench/html_measure.js "$f" || echo "# svg measure failed or timed out"
		fi
	done
done
