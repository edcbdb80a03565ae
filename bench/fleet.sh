#!/bin/bash
# Fleet store figures (doc/fleet.md), against a private clickhouse-server
# (tests/fleet/clickhouse.sh) on this shared 2-core machine:
#  1. bytes stored in the first FLEET_SECONDS (default 60) at 19 and 99 Hz:
#     `record --every 10s -a` while bench/churn.sh keeps the host busy, into
#     a directory and ClickHouse (its own database per rate, parts merged
#     first), times a day: an upper bound (every stack is new at first;
#     bench/fleet-bytes.sh measures the growth over a longer run); and
#     scorch's CPU over the run, as seconds per hour;
#  2. insert throughput: ten hosts x 360 intervals (an hour at 10 s), each
#     a copy of the largest real 99 Hz interval of step 1 (synthetic: every
#     host has the same stacks), one `scorch store put` process per interval
#     (process start and schema check included), intervals and rows a second;
#  3. query time for that hour of ten hosts (--group-by host), from
#     ClickHouse (summed in the server), from the directory store, and
#     from the same hour laid out as the directory store was before its
#     stack tables (a gzipped pprof per interval: copies of the template,
#     read by the same build).
#   bench/fleet.sh            FLEET_SECONDS=N for step 1's length
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
. tests/fleet/clickhouse.sh
SCORCH=${SCORCH:-./scorch}
SECS=${FLEET_SECONDS:-60}
W=$(mktemp -d "${TMPDIR:-/tmp}/scorch-fleet-bench.XXXX")
trap 'ch_stop; rm -rf "$W"' EXIT
ch_start "$W/ch" || exit 1
BASE=clickhouse://127.0.0.1:$CH_PORT
bench_load
cores=$(nproc)

ch_bytes() { # database: bytes of its active parts after merging
	for t in scorch_samples scorch_stacks; do ch_sql "OPTIMIZE TABLE $1.$t FINAL" >/dev/null; done
	ch_sql "SELECT sum(bytes) FROM system.parts WHERE database = '$1' AND active"
}

for hz in 19 99; do
	bench/churn.sh $((SECS + 15)) &
	churn=$!
	"$TIMEIT" "$W/t$hz" "$SCORCH" record --every 10s -a -F "$hz" -d "$SECS" --to "$W/dir$hz" \
		--to "$BASE/bench$hz" --spool "$W/spool" --host "h$hz" 2>"$W/rec$hz.err"
	kill "$churn" 2>/dev/null
	wait "$churn" 2>/dev/null
	read -r wall user sys rss <"$W/t$hz"
	dir=$(find "$W/dir$hz" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	chb=$(ch_bytes "bench$hz")
	n=$(cat "$W/dir$hz"/*/*/index.tsv | wc -l)
	samples=$("$SCORCH" query --from -1h "$W/dir$hz" | awk '{ s += $NF } END { print s }')
	awk -v hz="$hz" -v s="$SECS" -v d="$dir" -v c="$chb" -v cores="$cores" -v n="$n" -v u="$user" -v y="$sys" \
		-v w="$wall" -v rss="$rss" -v smp="$samples" 'BEGIN {
		day = 86400 / s
		printf "%d Hz, %d s (%d intervals, %d samples), the first minute times a day (an upper bound): directory %.1f MB/host/day (%.1f MB/core/day), ClickHouse %.1f MB/host/day (%.1f MB/core/day)\n", hz, s, n, smp, d * day / 1e6, d * day / 1e6 / cores, c * day / 1e6, c * day / 1e6 / cores
		printf "%d Hz: scorch used %.2f s CPU in %.1f s (%.1f%% of one CPU, %.0f CPU s per hour), peak RSS %d KiB\n", hz, u + y, w, 100 * (u + y) / w, 3600 * (u + y) / w, rss
	}'
done

# 2. an hour of ten hosts, synthetic
tmpl=$(ls -S "$W/dir99"/*/*/*-*.zst | head -1)
"$SCORCH" merge "$tmpl" >"$W/tmpl.folded"
rows=$(wc -l <"$W/tmpl.folded")
T0=1796032800
start=$(date +%s.%N)
for h in 0 1 2 3 4 5 6 7 8 9; do
	for i in $(seq 0 359); do
		s=$((T0 + 10 * i))
		"$SCORCH" store put --to "$BASE/hour" --spool "$W/spool" --host "host$h" --rate 99 \
			--start "@$s" --end "@$((s + 10))" "$W/tmpl.folded" || echo "put failed" >&2
	done
done
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" -v r="$rows" 'BEGIN { t = b - a
	printf "insert: 3600 intervals of %d stacks (one store put process each) in %.1f s: %.1f intervals/s, %.0f rows/s\n", r, t, 3600 / t, 3600 * r / t }'
start=$(date +%s.%N)
for h in 0 1 2 3 4 5 6 7 8 9; do
	for i in $(seq 0 359); do
		s=$((T0 + 10 * i))
		"$SCORCH" store put --to "$W/hour" --host "host$h" --rate 99 --start "@$s" --end "@$((s + 10))" "$W/tmpl.folded"
	done
done
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { t = b - a; printf "insert into the directory store: 3600 intervals in %.1f s: %.1f intervals/s\n", t, 3600 / t }'
echo "ClickHouse holds the hour in $(ch_bytes hour) bytes; the directory in $(du -sb "$W/hour" | cut -f1) bytes"
"$SCORCH" merge "$W/tmpl.folded" -o "$W/tmpl.pb.gz"
day=$(date -u -d "@$T0" +%F)
for h in 0 1 2 3 4 5 6 7 8 9; do
	mkdir -p "$W/hour-pprof/host$h/$day"
	for i in $(seq 0 359); do
		s=$((T0 + 10 * i))
		f=${s}000000000-$((s + 10))000000000.pb.gz
		cp "$W/tmpl.pb.gz" "$W/hour-pprof/host$h/$day/$f"
		printf '%s\t%s\t%s\thost%d\tcpu-clock\t99\tsamples\n' "${s}000000000" "$((s + 10))000000000" "$f" "$h"
	done >"$W/hour-pprof/host$h/$day/index.tsv"
done
echo "the hour as pprof intervals: $(du -sb "$W/hour-pprof" | cut -f1) bytes"

# 3. query time for the hour
for src in "$BASE/hour" "$W/hour" "$W/hour-pprof"; do
	case $src in clickhouse:*) what=ClickHouse ;; *-pprof) what="the directory, pprof intervals" ;; *) what="the directory" ;; esac
	for k in 1 2 3; do
		"$TIMEIT" "$W/q$k" "$SCORCH" query --from "@$T0" --to "@$((T0 + 3600))" --group-by host "$src" -o "$W/q.folded"
	done
	med=$(for k in 1 2 3; do cut -d' ' -f1 "$W/q$k"; done | sort -n | sed -n 2p)
	echo "query of one hour of ten hosts from $what: median of 3 runs $med s wall ($(wc -l <"$W/q.folded") stacks out)"
done
