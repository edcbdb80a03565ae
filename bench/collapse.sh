#!/bin/sh
# Benchmark: scorch collapse perf on the ~1.15 GB perf script text that
# bench/make-large.sh builds (the corpus captures a, b, c, e of tests/data/corpus
# repeated), with 1 and 2 threads; beside it `perf script` producing text
# from a bench perf.data, and any reference collapser found on PATH.
# The machine is shared: the load average is printed, and user+sys CPU time
# next to wall time (wall ~ CPU / threads on an idle machine).
# Prints MB/s (MB = 10^6 bytes), peak RSS (from /usr/bin/time), and the
# ratios to the issue's anchors on this machine kind: stackcollapse-perf.pl
# 17-29 MB/s, inferno-collapse-perf ~150-190 MB/s, cat > /dev/null ~6.7 GB/s.
#   bench/collapse.sh                  build the input if absent, 3 runs each
#   RUNS=1 bench/collapse.sh
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
CORPUS=${CORPUS:-tests/data/corpus}
OUT=${BENCH_OUT:-bench/out}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
input=$OUT/perf-large.perf.txt

if [ ! -s "$input" ]; then
	echo "# building $input with make-large.sh" >&2
	CORPUS=$CORPUS TMPDIR=$OUT nice sh bench/make-large.sh "$input" >/dev/null
fi
bytes=$(stat -L -c %s "$input")
echo "# input: $input: $bytes bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared)"

mbps() { # bytes seconds
	awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", b / s / 1e6; else print "inf" }'
}

# median of the wall times of RUNS runs of CMD; sets med, rss, cpu
timed() { # label cmd...
	label=$1
	shift
	: >"$OUT/walls"
	rss=0
	cpu=
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.txt" nice "$@" >"$OUT/run.out" 2>"$OUT/run.err" || {
			echo "# $label: failed: $(head -2 "$OUT/run.err")"
			return 1
		}
		read -r secs kb usr sys <"$OUT/time.txt"
		echo "#   $label run $i: ${secs}s wall (${usr}s user, ${sys}s sys), peak RSS $((kb / 1024)) MiB" >&2
		echo "$secs" >>"$OUT/walls"
		[ "$kb" -gt "$rss" ] && rss=$kb
		cpu="$usr+$sys"
		cpus=$(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }')
	done
	med=$(sort -n "$OUT/walls" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
}

timed "cat" cat "$input"
cat_s=$med
printf '%-34s %8s s %7s MB/s  (page cache; anchor ~6700 MB/s)\n' "cat > /dev/null" "$cat_s" "$(mbps "$bytes" "$cat_s")"

for t in 1 2; do
	timed "scorch -j$t" "$SCORCH" collapse perf -j "$t" "$input"
	cp "$OUT/run.out" "$OUT/large.j$t.folded"
	s=$med
	rate=$(mbps "$bytes" "$s")
	printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  cpu %ss  x%s vs perl(23)  x%s vs inferno(170)\n' \
		"scorch collapse perf -j$t" "$s" "$rate" "$((rss / 1024))" "$cpu" \
		"$(awk -v r="$rate" 'BEGIN { printf "%.0f", r / 23 }')" \
		"$(awk -v r="$rate" 'BEGIN { printf "%.1f", r / 170 }')"
	# Under load the wall time says more about the other jobs than about
	# scorch: also give the CPU-time rate (what $t idle cores would do if
	# the threads kept them busy).
	printf '%-34s %8s s %7s MB/s  (user+sys of the last run, spread over %d cores)\n' \
		"  cpu-time rate -j$t" "$cpus" "$(awk -v b="$bytes" -v c="$cpus" -v t="$t" 'BEGIN { printf "%.0f", b / (c / t) / 1e6 }')" "$t"
done
if cmp -s "$OUT/large.j1.folded" "$OUT/large.j2.folded"; then
	echo "# output identical with 1 and 2 threads ($(wc -l <"$OUT/large.j1.folded") stacks)"
else
	echo "# OUTPUT DIFFERS between 1 and 2 threads"
fi

# perf script itself, on the biggest capture's perf.data.
if command -v perf >/dev/null 2>&1 && [ -f "$CORPUS/b-sys-gcc.data.xz" ]; then
	data=$OUT/b-sys-gcc.data
	[ -s "$data" ] || xz -dc "$CORPUS/b-sys-gcc.data.xz" >"$data"
	timed "perf script" perf script -i "$data"
	ps=$med
	pb=$(stat -c %s "$OUT/run.out")
	cp "$OUT/run.out" "$OUT/b-sys-gcc.script.txt"
	printf '%-34s %8s s %7s MB/s of text out  peak RSS %4d MiB  (b-sys-gcc.data)\n' \
		"perf script" "$ps" "$(mbps "$pb" "$ps")" "$((rss / 1024))"
	timed "scorch on that text" "$SCORCH" collapse perf "$OUT/b-sys-gcc.script.txt"
	printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  (same text)\n' \
		"scorch collapse perf (that text)" "$med" "$(mbps "$pb" "$med")" "$((rss / 1024))"
else
	echo "# perf script: absent (no perf on PATH or no b-sys-gcc.data.xz)"
fi

# Reference collapsers, when installed (on the 121 MB b-sys-gcc text).
small=$OUT/b-sys-gcc.perf.txt
[ -s "$small" ] || xz -dc "$CORPUS/b-sys-gcc.perf.txt.xz" >"$small"
sb=$(stat -c %s "$small")
timed "scorch b-sys-gcc" "$SCORCH" collapse perf "$small"
printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  (b-sys-gcc text, %s bytes)\n' \
	"scorch collapse perf (b-sys-gcc)" "$med" "$(mbps "$sb" "$med")" "$((rss / 1024))" "$sb"
for anchor in stackcollapse-perf.pl inferno-collapse-perf; do
	if command -v "$anchor" >/dev/null 2>&1; then
		RUNS=1 timed "$anchor" "$anchor" "$small"
		printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  (b-sys-gcc text)\n' \
			"$anchor" "$med" "$(mbps "$sb" "$med")" "$((rss / 1024))"
	else
		echo "# $anchor: absent from PATH (reference figure on this machine kind: $([ "$anchor" = inferno-collapse-perf ] && echo '~150-190' || echo '17-29') MB/s)"
	fi
done
rm -f "$OUT/run.out" "$OUT/run.err" "$OUT/walls" "$OUT/time.txt"
