#!/bin/bash
# Bytes the stores keep per host per day, measured as growth over a long
# run rather than extrapolated from the first minute (when every stack is
# new): `record --every 10s -a` at each rate in BYTES_HZ (default "19 99"),
# all at once, for BYTES_MINUTES (default 12) while bench/churn.sh starts
# hundreds of short-lived processes a second and a steady workload (a
# Python loop) runs beside it, each agent into a directory store and a
# ClickHouse database of its own on two private servers
# (tests/fleet/clickhouse.sh): one as Debian configures it (parts
# compressed with lz4), one with zstd (the <compression> its config.xml
# leaves commented out), fed the same intervals.
# Each minute: the directory tree's bytes (every file: intervals, index,
# tables) and ClickHouse's (active parts after OPTIMIZE ... FINAL). The
# figure is the growth from minute BYTES_WARM (default 3) to the last, per
# hour and per day, beside the first minute's bytes times 1,440 (what the
# earlier figures did).
#   bench/fleet-bytes.sh      BYTES_MINUTES=N BYTES_HZ="19 99" BYTES_KEEP=DIR
# BYTES_KEEP copies the directory stores there at the end (to re-encode
# the same intervals with another build).
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
. tests/fleet/clickhouse.sh
SCORCH=${SCORCH:-./scorch}
MIN=${BYTES_MINUTES:-12}
RATES=${BYTES_HZ:-19 99}
WARM=${BYTES_WARM:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/scorch-bytes.XXXX")
pids= churn= steady=
trap 'kill $churn $steady $pids 2>/dev/null; ch_stop; CH_PID=$ZSTD_PID; ch_stop; rm -rf "$W"' EXIT
CH_COMPRESSION=zstd ch_start "$W/chz" || exit 1
ZSTD_PORT=$CH_PORT ZSTD_PID=$CH_PID
ch_start "$W/ch" || exit 1
LZ4_PORT=$CH_PORT
BASE=clickhouse://127.0.0.1:$LZ4_PORT
bench_load
cores=$(nproc)

ch_bytes() { # port database: bytes of its active parts after merging
	local CH_PORT=$1 b t
	for t in scorch_samples scorch_stacks; do ch_sql "OPTIMIZE TABLE $2.$t FINAL" >/dev/null; done
	b=$(ch_sql "SELECT sum(bytes) FROM system.parts WHERE database = '$2' AND active")
	echo "${b:-0}"
}
dir_bytes() { # directory: bytes of its files
	find "$1" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

bench/churn.sh $((MIN * 60 + 30)) &
churn=$!
python3 -c '
import hashlib, json, time
end = time.time() + '$((MIN * 60 + 30))'
def walk(d, n):
    return {str(i): walk(d - 1, n) for i in range(n)} if d else "x" * 40
while time.time() < end:
    s = json.dumps(walk(4, 6))
    hashlib.sha256(json.loads(json.dumps(s)).encode()).hexdigest()
' &
steady=$!
for hz in $RATES; do
	"$SCORCH" record --every 10s -a -F "$hz" -d $((MIN * 60)) --to "$W/dir$hz" \
		--to "$BASE/bytes$hz" --to "clickhouse://127.0.0.1:$ZSTD_PORT/bytes$hz" \
		--spool "$W/spool$hz" --host "h$hz" 2>"$W/err$hz" &
	pids="$pids $!"
done
printf '%6s' minute; for hz in $RATES; do printf ' %12s %12s %12s' "dir@${hz}Hz" "CH@${hz}Hz" "CHzstd@${hz}Hz"; done; echo
for m in $(seq 1 "$MIN"); do
	sleep 60
	printf '%6d' "$m"
	for hz in $RATES; do
		printf ' %12s %12s %12s' "$(dir_bytes "$W/dir$hz")" "$(ch_bytes "$LZ4_PORT" "bytes$hz")" "$(ch_bytes "$ZSTD_PORT" "bytes$hz")"
	done
	echo
done | tee "$W/bytes"
for p in $pids; do wait "$p"; done
for hz in $RATES; do
	tb=$(find "$W/dir$hz" -name stacks.zst -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	ib=$(find "$W/dir$hz" -name '*-*.zst' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	pb=$(find "$W/dir$hz" -name '*.pb.gz' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	parts="SELECT table, sum(bytes) FROM system.parts WHERE database = 'bytes$hz' AND active GROUP BY table ORDER BY table"
	echo "$hz Hz: directory: stack tables $tb bytes, interval files $ib (pprof intervals $pb); ClickHouse (lz4):" \
		"$(CH_PORT=$LZ4_PORT ch_sql "$parts" | tr '\t\n' '= ')(zstd): $(CH_PORT=$ZSTD_PORT ch_sql "$parts" | tr '\t\n' '= ')"
done
i=0
for hz in $RATES; do
	tail -1 "$W/err$hz"
	n=$(cat "$W/dir$hz"/*/*/index.tsv | wc -l)
	for col in 2 3 4; do
		awk -v c=$((col + 3 * i)) -v hz="$hz" -v warm="$WARM" -v cores="$cores" -v n="$n" \
			-v what="$(case $col in 2) echo directory ;; 3) echo 'ClickHouse (lz4)' ;; *) echo 'ClickHouse (zstd)' ;; esac)" '
		$1 == 1 { first = $c } $1 == warm { w = $c } { last = $c; m = $1 } END {
			h = (last - w) / (m - warm) * 60
			printf "%s Hz, %s: %d intervals; minute 1 %.2f MB (x 1,440: %.0f MB/day); minutes %d-%d +%.2f MB: %.1f MB/host/hour, %.0f MB/host/day, %.0f MB/core/day\n",
				hz, what, n, first / 1e6, first * 1440 / 1e6, warm, m, (last - w) / 1e6, h / 1e6, h * 24 / 1e6, h * 24 / 1e6 / cores }' "$W/bytes"
	done
	i=$((i + 1))
done
if [ -n "${BYTES_KEEP:-}" ]; then
	mkdir -p "$BYTES_KEEP"
	for hz in $RATES; do cp -a "$W/dir$hz" "$BYTES_KEEP/"; done
fi
bench_load
