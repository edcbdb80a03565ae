#!/bin/bash
# Memory and CPU of `record --every 10s -a` over a long run under process
# churn (bench/churn.sh: hundreds of short-lived processes a second), one
# agent per rate in SOAK_HZ (default "19 99"), all at once under the same
# churn, each into a directory store of its own: RSS (VmRSS, which varies
# with where in its interval the sample falls) and CPU sampled every
# minute. The issue asks for 30 minutes; SOAK_MINUTES sets it (default 30).
# Prints each minute, then per rate the growth from minute 2 to the last
# (the first minute includes start-up) and the CPU per hour; then the
# intervals stored and whether they meet end to start.
#   bench/fleet-soak.sh       SOAK_MINUTES=N SOAK_HZ="19 99" SOAK_KEEP=DIR
# SOAK_KEEP copies the directory stores there at the end (to put the same
# intervals into another store: bench/fleet-reput.sh), with each agent's
# stderr (errHZ), which has a line per cut of what it holds when
# SCORCH_CUT_STATS is set (src/record/recorder_cut.c).
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
SCORCH=${SCORCH:-./scorch}
MIN=${SOAK_MINUTES:-30}
RATES=${SOAK_HZ:-19 99}
W=$(mktemp -d "${TMPDIR:-/tmp}/scorch-soak.XXXX")
pids=
trap 'kill $churn $pids 2>/dev/null; rm -rf "$W"' EXIT
bench_load
bench/churn.sh $((MIN * 60 + 30)) &
churn=$!
for hz in $RATES; do
	"$SCORCH" record --every 10s -a -F "$hz" -d $((MIN * 60)) --to "$W/store$hz" --keep 1h --host soak$hz \
		2>"$W/err$hz" &
	pids="$pids $!"
done
printf '%6s' minute; for hz in $RATES; do printf ' %10s %8s' "RSS@${hz}Hz" "CPU-s"; done; echo
for m in $(seq 1 $((MIN - 1))); do
	sleep 60
	printf '%6d' "$m"
	for p in $pids; do
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		cpu=$(awk '{ printf "%.1f", ($14 + $15) / 100 }' "/proc/$p/stat" 2>/dev/null)
		printf ' %10s %8s' "${rss:--}" "${cpu:--}"
	done
	echo
done | tee "$W/rss"
for p in $pids; do wait "$p"; done
i=0
for hz in $RATES; do
	awk -v c=$((2 + 2 * i)) -v hz="$hz" '$c ~ /^[0-9]+$/ { n++; if (n == 2) a = $c; b = $c; cpu = $(c + 1) } END {
		printf "%s Hz: RSS from minute 2 to %d: %d -> %d KiB (%+.1f%%); CPU %.1f s in %d min = %.0f s per hour\n",
			hz, n, a, b, 100 * (b - a) / a, cpu, n, cpu * 60 / n }' "$W/rss"
	tail -1 "$W/err$hz"
	cat "$W/store$hz"/*/*/index.tsv | sort -n | awk -F'\t' -v hz="$hz" 'NR > 1 && $1 != end { gaps++ } { end = $2 } END {
		printf "%s Hz: %d intervals stored, %d gaps between them\n", hz, NR, gaps + 0 }'
	i=$((i + 1))
done
if [ -n "${SOAK_KEEP:-}" ]; then
	mkdir -p "$SOAK_KEEP"
	for hz in $RATES; do cp -a "$W/store$hz" "$W/err$hz" "$SOAK_KEEP/"; done
fi
bench_load
