#!/bin/sh
# Benchmark: the text collapsers other than perf, on the larger reference
# inputs repeated to tens of MB: the DTrace example (stackcollapse.pl's,
# 1.38 MB) x20, inferno's sample benchmark input (1.46 MB) x10, and a
# generated gdb dump. Prints MB/s (MB = 10^6 bytes, median of RUNS wall
# times) and peak RSS, and the time of any reference collapser found on
# PATH (stackcollapse.pl, inferno-collapse-dtrace, inferno-collapse-sample).
# These parsers are single-threaded: they are not the hot path (perf is).
# Needs: tests/data (in the repository) and, for the sample input only,
# inferno's tests/data/collapse-sample/large.txt.gz, which no test reads and
# the repository does not carry: taken from $SHARED/conformance/inferno
# (default ../shared) when present, else that input is left out.
#   bench/collapse-text.sh          RUNS=1 bench/collapse-text.sh
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
OUT=${BENCH_OUT:-bench/out}
RUNS=${RUNS:-3}
inf=$(tests/data/unpack)/inferno # FlameGraph and inferno test data (tests/data)
large_sample=${SHARED:-../shared}/conformance/inferno/tests/data/collapse-sample/large.txt.gz
mkdir -p "$OUT"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared)"

dtrace=$OUT/dtrace-x20.txt
if [ ! -s "$dtrace" ]; then
	src=$inf/flamegraph/example-dtrace-stacks.txt
	{ cat "$src"; for _ in $(seq 19); do tail -n +4 "$src"; done; } >"$dtrace"
fi
sample=$OUT/sample-x10.txt
if [ ! -s "$sample" ] && [ -f "$large_sample" ]; then
	# one call graph, its thread blocks repeated
	gzip -dc "$large_sample" >"$OUT/sample-1.txt"
	awk '/^Call graph:/{h=1; print; next} /^Total number in stack/{t=1} !h{print; next}
	     h && !t {body = body $0 "\n"; next} t {tail = tail $0 "\n"}
	     END {for (i = 0; i < 10; i++) printf "%s", body; printf "%s", tail}' \
		"$OUT/sample-1.txt" >"$sample"
fi
gdbin=$OUT/gdb-pmp.txt
if [ ! -s "$gdbin" ]; then
	awk 'BEGIN { for (d = 0; d < 20000; d++) { for (t = 1; t <= 4; t++) {
		printf "Thread %d (Thread 0x7f%04x (LWP %d) \"app\"):\n", t, t, 1000 + t;
		for (f = 0; f < 12; f++)
			printf "#%d  0x00007f00%08x in func_%d_%d (arg=0x%x) at src/file%d.c:%d\n",
				f, f * 16, t, (f + d % 3) % 12, f, f, 10 + f;
		print "" } } }' >"$gdbin"
fi

timed() { # label bytes cmd...
	label=$1 bytes=$2
	shift 2
	: >"$OUT/walls"
	rss=0
	for _ in $(seq "$RUNS"); do
		if ! /usr/bin/time -f '%e %M' -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err"; then
			echo "$label: FAILED: $(head -2 "$OUT/err")"
			return
		fi
		read -r wall kb <"$OUT/time"
		echo "$wall" >>"$OUT/walls"
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	med=$(sort -n "$OUT/walls" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	awk -v l="$label" -v b="$bytes" -v s="$med" -v r="$rss" \
		'BEGIN { printf "%-34s %8.3f s %8.0f MB/s  peak RSS %6.1f MB\n", l, s, (s > 0 ? b / s / 1e6 : 0), r / 1024 }'
}

for f in "$dtrace:dtrace" "$sample:sample" "$gdbin:gdb"; do
	in=${f%:*} fmt=${f##*:}
	if [ ! -s "$in" ]; then
		echo "# $fmt: left out (no $large_sample)"
		continue
	fi
	bytes=$(stat -L -c %s "$in")
	echo "# $fmt: $in ($bytes bytes)"
	timed "scorch collapse $fmt" "$bytes" "$SCORCH" collapse "$fmt" "$in"
	case $fmt in
	dtrace) refs="stackcollapse.pl inferno-collapse-dtrace" ;;
	sample) refs="inferno-collapse-sample" ;;
	gdb) refs="stackcollapse-gdb.pl" ;;
	esac
	for r in $refs; do
		if command -v "$r" >/dev/null 2>&1; then
			timed "$r" "$bytes" "$r" "$in"
		else
			echo "$r: not on PATH"
		fi
	done
done
