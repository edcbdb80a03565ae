#!/bin/sh
# How much of a diverse system-wide recording the BPF backend counts in the
# kernel (no assertions; prints a table).
#
# SECONDS_EACH (default 60) seconds of `scorch record -a -F 999` (bpf
# backend) per --call-graph mode in MODES (default "fp auto"), while a
# looping `make -j2` of a scratch clone of this repository runs (compilers,
# shells, the linker: many short processes and many distinct stacks). For
# each run: samples, distinct stacks, the share of samples counted in the
# kernel (the rest were sent to user space: whole after a stack-map
# collision, or as user-stack copies for DWARF), the kernel memory of the
# program's maps near the end of sampling (the "memlock" of scorch's BPF map
# file descriptors, /proc/PID/fdinfo), and scorch's own CPU seconds.
#
# With BEFORE=/path/to/another/scorch, each mode runs with that binary
# too, alternately under the same load (before/after in one run).
#
#   bench/record-maps.sh
#   SECONDS_EACH=20 MODES=fp BEFORE=/tmp/scorch-main bench/record-maps.sh
#
# Needs root. On a shared machine the load varies: compare rows of one run.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCORCH=${SCORCH:-$ROOT/scorch}
SECONDS_EACH=${SECONDS_EACH:-60}
MODES=${MODES:-fp auto}
BEFORE=${BEFORE:-}
[ -x "$SCORCH" ] || { echo "no $SCORCH: build first"; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/scorch-bench-maps.XXXX")
git clone -q "$ROOT" "$TMP/clone" || exit 1
setsid sh -c 'echo $$ >"$1/load.pid"; cd "$1/clone" &&
	while :; do make clean >/dev/null 2>&1; make -j2 >/dev/null 2>&1; done' sh "$TMP" &
sleep 1
trap 'kill -- -"$(cat "$TMP/load.pid")" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

# The kernel memory of the BPF maps pid $1 holds open, in KiB.
map_kib() {
	for f in /proc/"$1"/fdinfo/*; do
		grep -q '^map_type:' "$f" 2>/dev/null && sed -n 's/^memlock:[[:space:]]*//p' "$f"
	done | awk '{ s += $1 } END { printf "%.0f", s / 1024 }'
}

# One field of the summary line ($2: a sed expression printing it), or "-".
field() { v=$(sed -n "$2" "$1" | tail -1); echo "${v:--}"; }

run() { # LABEL BINARY MODE
	/usr/bin/time -f '%U %S' -o "$TMP/time" "$2" record --no-progress --backend bpf -a -F 999 \
		--call-graph "$3" -d "$SECONDS_EACH" -o "$TMP/out.folded" 2>"$TMP/err" &
	timer=$!
	sleep $((SECONDS_EACH - 2))
	kib=$(map_kib "$(pgrep -P "$timer" | head -1)")
	wait "$timer"
	e="$TMP/err"
	samples=$(field "$e" 's/.*: \([0-9,]*\) samples in .*/\1/p' | tr -d ,)
	distinct=$(field "$e" 's/.* s, \([0-9,]*\) distinct stacks.*/\1/p')
	share=$(field "$e" 's/.* \([0-9.]*%\) counted in the kernel.*/\1/p')
	whole=$(field "$e" 's/.*, \([0-9,]*\) sent whole after stack-map collisions.*/\1/p')
	lost=$(field "$e" 's/.*, \([0-9,]*\) lost.*/\1/p')
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$TMP/time")
	printf '%-7s %-5s %9s %9s %8s %9s %7s %9s %8s\n' "$1" "$3" "$samples" "$distinct" "$share" "$whole" \
		"$lost" "$kib" "$cpu"
	grep '^scorch: bpf backend' "$e" | sed 's/^/    /'
}

echo "# bpf -a -F 999, ${SECONDS_EACH}s per row, looping make -j2, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-5s %9s %9s %8s %9s %7s %9s %8s\n' binary mode samples distinct "in kern" "whole" lost "map KiB" "cpu s"
for mode in $MODES; do
	[ -n "$BEFORE" ] && run before "$BEFORE" "$mode"
	run after "$SCORCH" "$mode"
done
