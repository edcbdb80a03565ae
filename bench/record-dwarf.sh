#!/bin/sh
# What DWARF unwinding costs scorch record (no assertions; prints tables).
#
# 1. Slowdown of a CPU-bound workload with a fixed amount of work
#    (tests/workloads/burn.c -n ROUNDS, built -O2 -fomit-frame-pointer; it
#    prints its own wall and CPU seconds) under scorch record with
#    --call-graph fp, auto (the default) and dwarf on each backend, and
#    under perf record -g and perf record --call-graph dwarf, at 99 and
#    999 Hz. Median of REPS runs, relative to the median unprofiled run.
#    The workload's CPU time counts the sampling interrupts it absorbs (and
#    the BPF program); scorch's own CPU time (unwinding) is a separate
#    column, as is perf's (writing perf.data; perf report's unwinding comes
#    later and is not counted).
# 2. Bytes moved from the kernel per sample.
# 3. End of sampling to SVG written, FINISH_SECONDS (default 30) of -a at
#    999 Hz with the demo workload running, per backend, default options;
#    FINISH_LOAD=build runs a looping `make -j2` of a scratch clone of this
#    repository instead (many short processes: compilers, shells, the
#    linker), which is what per-process unwinding costs show on.
# 4. With PERF_DATA=FILE (a `perf record -a --call-graph dwarf` capture),
#    the CPU time record's collector takes per sample on it
#    (build/bench/record_replay: unwinding included, no sampling).
# 5. Bursts: `-e page-faults` (every fault sampled) with DWARF on the
#    faults workload (FAULT_ROUNDS rounds of 1,536 faults each, default
#    40 and 400), per backend: samples, lost and refused copies (bpf).
#
#   bench/record-dwarf.sh
#   REPS=5 ROUNDS=4000 FINISH_SECONDS=10 bench/record-dwarf.sh
#   OVERHEAD=0 FINISH_LOAD=build PERF_DATA=sys.data bench/record-dwarf.sh
#   OVERHEAD=0 FINISH=0 bench/record-dwarf.sh      (page-fault bursts only)
#
# Needs root. The machine this was written on is shared by several
# engineers: read CPU seconds rather than wall time, and repeat.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCORCH=${SCORCH:-$ROOT/scorch}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-3000}
FINISH_SECONDS=${FINISH_SECONDS:-30}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/scorch-bench-dwarf.XXXX")
trap 'rm -rf "$TMP"' EXIT
cc -O2 -g -fomit-frame-pointer -o "$TMP/burn" tests/workloads/burn.c || exit 1
cc -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o "$TMP/demo" tests/workloads/demo.c || exit 1
[ -x "$SCORCH" ] || { echo "no $SCORCH: build first"; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_case CMD...: prints "wall cpu profiler-cpu bytes/sample" medians;
# CMD leaves the workload's "wall cpu" line in $TMP/line, its own CPU
# seconds in $TMP/pcpu and bytes per sample in $TMP/bps.
run_case() {
	: >"$TMP/times"
	i=0
	while [ $i -lt "$REPS" ]; do
		echo 0 >"$TMP/pcpu"
		echo - >"$TMP/bps"
		"$@" >/dev/null 2>"$TMP/err" || { echo "failed: $(head -2 "$TMP/err")" >&2; return 1; }
		echo "$(tail -1 "$TMP/line") $(cat "$TMP/pcpu") $(cat "$TMP/bps")" >>"$TMP/times"
		i=$((i + 1))
	done
	echo "$(cut -d' ' -f1 "$TMP/times" | median) $(cut -d' ' -f2 "$TMP/times" | median)" \
		"$(cut -d' ' -f3 "$TMP/times" | median) $(cut -d' ' -f4 "$TMP/times" | tail -1)"
}

baseline() { "$TMP/burn" -n "$ROUNDS" >"$TMP/line"; }
# /usr/bin/time's user+sys of the profiler minus the workload's CPU.
under_scorch() { # BACKEND MODE HZ
	/usr/bin/time -f '%U %S' -o "$TMP/ptime" "$SCORCH" record --no-progress --backend "$1" --call-graph "$2" \
		-F "$3" -o "$TMP/prof.folded" -- sh -c "\"$TMP/burn\" -n $ROUNDS >\"$TMP/line\"" 2>"$TMP/serr" || return 1
	awk -v w="$(tail -1 "$TMP/line" | cut -d' ' -f2)" '{ printf "%.3f\n", $1 + $2 - w }' "$TMP/ptime" >"$TMP/pcpu"
	sed -n 's/.*, \([0-9.]*\) KiB copied per sample.*/\1/p' "$TMP/serr" | awk '{ printf "%.0f\n", $1 * 1024 }' >"$TMP/bps"
	[ -s "$TMP/bps" ] || echo - >"$TMP/bps"
}
under_perf() { # CALLGRAPH HZ
	/usr/bin/time -f '%U %S' -o "$TMP/ptime" perf record -q --call-graph "$1" -F "$2" -o "$TMP/perf.data" \
		-- sh -c "\"$TMP/burn\" -n $ROUNDS >\"$TMP/line\"" 2>/dev/null || return 1
	awk -v w="$(tail -1 "$TMP/line" | cut -d' ' -f2)" '{ printf "%.3f\n", $1 + $2 - w }' "$TMP/ptime" >"$TMP/pcpu"
	n=$(perf script -F ip -i "$TMP/perf.data" 2>/dev/null | grep -c -v '^ *$' || true)
	n=$(perf report -i "$TMP/perf.data" --stdio 2>/dev/null | sed -n 's/^# Samples: \([0-9]*\).*/\1/p' | head -1)
	[ -n "$n" ] && [ "$n" -gt 0 ] && echo $(($(wc -c <"$TMP/perf.data") / n)) >"$TMP/bps"
}

if [ "${OVERHEAD:-1}" != 0 ]; then
echo "# record overhead: burn -n $ROUNDS (-O2 -fomit-frame-pointer), median of $REPS runs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
base=$(run_case baseline) || exit 1
set -- $base
bw=$1 bc=$2
printf '%-40s %7s %7s %8s %8s %9s %10s\n' profiler "wall s" "cpu s" "wall +%" "cpu +%" "prof cpu" "bytes/smp"
printf '%-40s %7.3f %7.3f %8s %8s %9s %10s\n' none "$bw" "$bc" - - - -
row() {
	label=$1
	shift
	r=$(run_case "$@") || { printf '%-40s failed\n' "$label"; return; }
	echo "$r $bw $bc" | awk -v l="$label" '{ printf "%-40s %7.3f %7.3f %7.1f%% %7.1f%% %9.3f %10s\n", l, $1, $2,
		($1 / $5 - 1) * 100, ($2 / $6 - 1) * 100, $3, $4 }'
}
for hz in 99 999; do
	for be in perf bpf; do
		for mode in fp auto dwarf; do
			row "scorch --backend $be --call-graph $mode $hz" under_scorch $be $mode $hz
		done
	done
	row "perf record -g $hz" under_perf fp $hz
	row "perf record --call-graph dwarf $hz" under_perf dwarf $hz
done

fi
if [ "${FINISH:-1}" != 0 ]; then
echo
FINISH_LOAD=${FINISH_LOAD:-demo}
if [ "$FINISH_LOAD" = build ]; then
	git clone -q "$ROOT" "$TMP/clone" || exit 1
	# The load in its own session, so that it ends with every child.
	load() { setsid sh -c 'echo $$ >"$1/load.pid"; cd "$1/clone" &&
		while :; do make clean >/dev/null 2>&1; make -j2 >/dev/null 2>&1; done' sh "$TMP" & }
	unload() { kill -- -"$(cat "$TMP/load.pid")" 2>/dev/null; }
else
	load() { "$TMP/demo" $((FINISH_SECONDS + 2)) >/dev/null & }
	unload() { wait; }
fi
echo "# end of sampling -> SVG written: ${FINISH_SECONDS}s of -a at 999 Hz, load: $FINISH_LOAD"
for be in perf bpf; do
	load
	sleep 2
	SCORCH_PHASES=1 /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$SCORCH" record --no-progress --backend $be -a -F 999 \
		-d "$FINISH_SECONDS" -o "$TMP/all-$be.svg" 2>"$TMP/err"
	unload
	line=$(grep 'output written' "$TMP/err")
	set -- $(cat "$TMP/rss")
	printf '%-5s peak RSS %s KiB, scorch CPU %.2f s: %s\n' $be "$1" "$(awk -v u="$2" -v s="$3" 'BEGIN { print u + s }')" \
		"$(echo "$line" | sed 's/^scorch: //')"
	# Where the time after sampling went (phases of 1 ms or more).
	awk '/^scorch: phase / && !/ 0\.000 s wall +0\.000 s CPU/ { sub(/^scorch: phase /, "      "); print }' "$TMP/err"
done
fi

echo
echo "# -e page-faults --call-graph dwarf bursts (tests/workloads/faults.c), load $(cut -d' ' -f1-3 /proc/loadavg)"
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$TMP/faults" tests/workloads/faults.c || exit 1
for rounds in ${FAULT_ROUNDS:-40 400}; do
	for be in perf bpf; do
		/usr/bin/time -f '%U %S' -o "$TMP/ptime" "$SCORCH" record --no-progress --backend $be --call-graph dwarf \
			-e page-faults -o "$TMP/pf.folded" -- "$TMP/faults" "$rounds" 2>"$TMP/err"
		n=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/pf.folded")
		lost=$(sed -n 's/.*, \([0-9,]*\) lost.*/\1/p' "$TMP/err" | tr -d ,)
		refused=$(sed -n 's/.*, \([0-9,]*\) stack copies refused.*/\1/p' "$TMP/err" | tr -d ,)
		printf '%-5s %4s rounds: %7s samples, %7s lost, %7s copies refused, scorch CPU %s s\n' $be "$rounds" "$n" \
			"${lost:-0}" "${refused:-0}" "$(awk '{ print $1 + $2 }' "$TMP/ptime")"
	done
done

if [ -n "${PERF_DATA:-}" ]; then
	echo
	echo "# record's collector on $PERF_DATA (DWARF unwinding included)"
	make -s build/bench/record_replay >/dev/null && build/bench/record_replay "$PERF_DATA"
fi
