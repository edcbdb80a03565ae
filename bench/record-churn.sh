#!/bin/bash
# Memory and descriptors of `record -a` under process churn (bench/churn.sh:
# hundreds of short-lived processes a second), for this build and, side by
# side in the same run (both recording the same churn at once), a base
# build: RSS (VmRSS) and open descriptors every STEP seconds, then each
# one's growth over the second half of the run, its CPU (as last read,
# at the last step) and its summary line.
#   bench/record-churn.sh            CHURN_SECONDS=600 CHURN_HZ=999 STEP=30
#   BASE=REV (a commit to build, default main; none: this build only),
#   or BASE_BIN=path (a scorch built already)
#   ARGS='--backend perf' (more record options)
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
SCORCH=${SCORCH:-./scorch}
SECS=${CHURN_SECONDS:-600}
HZ=${CHURN_HZ:-999}
STEP=${STEP:-30}
BASE_BIN=${BASE_BIN:-$(bench_base_build "${BASE:-main}")}
W=$(mktemp -d "${TMPDIR:-/tmp}/scorch-churn.XXXX")
pids=
trap 'kill $churn $pids 2>/dev/null; rm -rf "$W"' EXIT
bench_load
bench/churn.sh $((SECS + 10)) &
churn=$!
names="new"
"$SCORCH" record -a -F "$HZ" -d "$SECS" ${ARGS:-} -o "$W/new.folded" 2>"$W/new.err" &
pids=$!
if [ -n "$BASE_BIN" ]; then
	"$BASE_BIN" record -a -F "$HZ" -d "$SECS" ${ARGS:-} -o "$W/base.folded" 2>"$W/base.err" &
	pids="$pids $!"
	names="new base"
fi
printf '%6s' s; for n in $names; do printf ' %12s %5s' "$n-RSS-KiB" fds; done; echo
t=0
# (the last step before the end: at the end itself the recordings are
# writing their output and freeing what they held)
while [ $((t + STEP)) -lt "$SECS" ]; do
	sleep "$STEP"
	t=$((t + STEP))
	printf '%6d' $t
	for p in $pids; do
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		fds=$(ls "/proc/$p/fd" 2>/dev/null | wc -l)
		printf ' %12s %5s' "${rss:--}" "$fds"
		awk '{ printf "%.1f\n", ($14 + $15) / 100 }' "/proc/$p/stat" >"$W/cpu.$p" 2>/dev/null
	done
	echo
done | tee "$W/table"
for p in $pids; do wait "$p"; done
i=0
set -- $pids
for n in $names; do
	cpu=$(cat "$W/cpu.$1" 2>/dev/null)
	shift
	awk -v c=$((2 + 2 * i)) -v n="$n" '$c ~ /^[0-9]+$/ { v[++k] = $c; f[k] = $(c + 1) } END {
		if (k < 2) exit; h = int((k + 1) / 2)
		printf "%s: RSS %d KiB at %ds -> %d KiB at the end, second half %+.1f%%; fds %d -> %d; CPU %s s\n",
			n, v[1], '"$STEP"', v[k], 100 * (v[k] - v[h]) / v[h], f[1], f[k], cpu }' cpu="${cpu:--}" "$W/table"
	grep -h "distinct" "$W/$n.err" | tail -1
	i=$((i + 1))
done
bench_load
