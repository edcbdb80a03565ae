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
# The last three columns are the samples taken in zlib's C code (deflate
# in the sample's own native stack, under c_leaf): the share with another
# phase's Python frames (wrong), with c_leaf's callers only (newer frames
# left out: perf, read after the sample) and with no Python frames
# (dropped: perf, the frames had changed before they were read). The
# workload's phases are 10 ms of CPU (SLICE): short, so that the frames
# change ~100 times a second.
#
# BASE may be an older scorch with Python frames too, to compare the
# columns (e.g. perf's frames before they were checked against the
# sample).
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
SLICE=${SLICE:-0.01}
REPS=${REPS:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

printf '%-6s %-5s %-8s %12s %12s %10s %9s %8s %6s %6s %6s\n' backend Hz scorch "workload s" "scorch s" samples "B/sample" \
	"Python" wrong cut none
for be in bpf perf; do
	for hz in 99 999; do
		for which in base new; do
			bin=$BASE
			[ $which = new ] && bin=$SCORCH
			r=0
			while [ $r -lt "$REPS" ]; do
				/usr/bin/time -f '%U %S' -o "$TMP/time" "$bin" record --backend $be -F $hz \
					-o "$TMP/out.folded" -- /usr/bin/time -f '%U %S' -o "$TMP/wltime" \
					"$PY" tests/workloads/python/phases.py "$TMP/times" "$SECONDS_EACH" "$SLICE" 2>"$TMP/err"
				wl=$(awk '{ printf "%.2f", $1 + $2 }' "$TMP/wltime")
				sc=$(awk -v w="$wl" '{ printf "%.2f", $1 + $2 - w }' "$TMP/time")
				n=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/out.folded")
				kib=$(sed -n 's/.*, \([0-9.]*\) KiB copied per sample.*/\1/p' "$TMP/err")
				bps=$(awk -v k="${kib:-0}" 'BEGIN { printf "%.0f", k * 1024 }')
				py=$(sed -n 's/.*), \([0-9.]*%\) of their samples with Python frames.*/\1/p' "$TMP/err")
				zl=$(awk '/;deflate/ { z += $NF
					if ($0 ~ /(caller_[xy]|deep|recurse|py_handler_[ab]|deep_leaf|thread_[a-z]*) \(phases\.py\)/) w += $NF
					else if ($0 ~ /;c_leaf \(phases\.py\);/) r += $NF
					else if ($0 ~ /\.py\)/) p += $NF
					else n += $NF }
					END { if (z) printf "%.3f %.3f %.3f", w / z, p / z, n / z; else print "- - -" }' "$TMP/out.folded")
				printf '%-6s %-5s %-8s %12s %12s %10s %9s %8s %6s %6s %6s\n' $be $hz $which "$wl" "$sc" "$n" "$bps" \
					"${py:--}" $zl
				r=$((r + 1))
			done
		done
	done
done
