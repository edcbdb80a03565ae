#!/bin/sh
# What CPython frames cost scorch record (no assertions; prints a table).
#
# A Python-heavy load (tests/workloads/python/phases.py: two threads, a
# 1,000-deep recursion, a zlib phase) for SECONDS, recorded on each
# backend at 99 and 999 Hz by this scorch (Python frames) and by BASE, a
# scorch without them (native frames only: e.g. a build of the commit
# before record used src/runtime/). Columns: the workload's CPU seconds
# (the python process, from /usr/bin/time), scorch's own CPU seconds (its
# user + system less the workload's: /usr/bin/time counts children), bytes
# read from the kernel per sample (the BPF
# backend's stack copies; the Python frames travel in a map, read once
# per distinct stack), and the share of samples with Python frames.
#
#   BASE=/path/to/old/scorch bench/python.sh
#   SECONDS_EACH=10 REPS=3 BASE=... bench/python.sh
#
# Needs root. The machine this was written on is shared by several
# engineers: read CPU seconds rather than wall time, and repeat.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCORCH=${SCORCH:-$ROOT/scorch}
BASE=${BASE:?set BASE to a scorch without Python frames}
PY=${PY:-/usr/bin/python3.11}
SECONDS_EACH=${SECONDS_EACH:-8}
REPS=${REPS:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

printf '%-6s %-5s %-8s %12s %12s %10s %9s %8s\n' backend Hz scorch "workload s" "scorch s" samples "B/sample" "Python"
for be in bpf perf; do
	for hz in 99 999; do
		for which in base new; do
			bin=$BASE
			[ $which = new ] && bin=$SCORCH
			r=0
			while [ $r -lt "$REPS" ]; do
				/usr/bin/time -f '%U %S' -o "$TMP/time" "$bin" record --backend $be -F $hz \
					-o "$TMP/out.folded" -- /usr/bin/time -f '%U %S' -o "$TMP/wltime" \
					"$PY" tests/workloads/python/phases.py "$TMP/times" "$SECONDS_EACH" 2>"$TMP/err"
				wl=$(awk '{ printf "%.2f", $1 + $2 }' "$TMP/wltime")
				sc=$(awk -v w="$wl" '{ printf "%.2f", $1 + $2 - w }' "$TMP/time")
				n=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/out.folded")
				kib=$(sed -n 's/.*, \([0-9.]*\) KiB copied per sample.*/\1/p' "$TMP/err")
				bps=$(awk -v k="${kib:-0}" 'BEGIN { printf "%.0f", k * 1024 }')
				py=$(sed -n 's/.*), \([0-9.]*%\) of their samples with Python frames.*/\1/p' "$TMP/err")
				printf '%-6s %-5s %-8s %12s %12s %10s %9s %8s\n' $be $hz $which "$wl" "$sc" "$n" "$bps" "${py:--}"
				r=$((r + 1))
			done
		done
	done
done
