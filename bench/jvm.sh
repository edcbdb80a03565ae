#!/bin/sh
# What recording a JVM costs it (no assertions; prints a table).
#
# A Java-heavy load (tests/workloads/java/Phases.java: two threads of
# compiled code; its main thread counts the phases it runs) for SECONDS_EACH,
# run alone and under each recorder at 99 and 999 Hz, in turn (REPS
# rounds; medians):
#   scorch     scorch record (the JIT's names asked of the JVM every second
#              through the attach protocol, src/runtime/runtime_watch.c)
#   native     scorch record of a JVM started with
#              -XX:+DisableAttachMechanism: the same sampling, no JIT names
#              (scorch gives up after its first tries; the JVM prints a
#              thread dump for each SIGQUIT, 6 in all)
#   perf       perf record -g (frame pointers; writes perf.data, no names)
# Columns: the workload's throughput (phases per wall second, and per CPU
# second of the JVM, from /usr/bin/time) and its ratio to the run alone,
# the JVM's CPU seconds, the recorder's own CPU seconds (its user + system
# less the JVM's: /usr/bin/time counts children), samples, and bytes per
# sample (scorch: copied from the kernel; perf: perf.data's size).
#
#   bench/jvm.sh
#   SECONDS_EACH=10 REPS=5 BACKEND=perf bench/jvm.sh
#
# Needs root. The machine this was written on is shared by several
# engineers: compare ratios of runs taken side by side, and repeat.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCORCH=${SCORCH:-$ROOT/scorch}
SECONDS_EACH=${SECONDS_EACH:-8}
REPS=${REPS:-3}
BACKEND=${BACKEND:-bpf}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. bench/lib.sh
javac -d "$TMP" tests/workloads/java/Phases.java || exit 1
bench_load

# run MODE HZ: one run; appends "wall/s cpu/s jvm_cpu rec_cpu samples bytes/sample" to $TMP/MODE.HZ
run() {
	mode=$1 hz=$2 flags=""
	[ "$mode" = native ] && flags=-XX:+DisableAttachMechanism
	set -- /usr/bin/time -f '%e %U %S' -o "$TMP/jvm.time" java $flags -cp "$TMP" Phases "$TMP/times" "$SECONDS_EACH"
	: >"$TMP/err"
	case $mode in
	alone) "$@" >/dev/null 2>&1 ;;
	scorch | native)
		/usr/bin/time -f '%U %S' -o "$TMP/rec.time" "$SCORCH" record --backend "$BACKEND" -F "$hz" \
			-o "$TMP/out.folded" -- "$@" >/dev/null 2>"$TMP/err" ;;
	perf)
		/usr/bin/time -f '%U %S' -o "$TMP/rec.time" perf record -g -F "$hz" -o "$TMP/perf.data" -- "$@" \
			>/dev/null 2>"$TMP/err" ;;
	esac
	calls=$(awk '$1 == "Calls" { print $2 }' "$TMP/times")
	read -r wall user sys <"$TMP/jvm.time"
	jcpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rcpu=- n=- bps=-
	if [ "$mode" != alone ]; then
		rcpu=$(awk -v j="$jcpu" '{ printf "%.2f", $1 + $2 - j }' "$TMP/rec.time")
	fi
	case $mode in
	scorch | native)
		n=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/out.folded")
		kib=$(sed -n 's/.*, \([0-9.]*\) KiB copied per sample.*/\1/p' "$TMP/err")
		bps=$(awk -v k="${kib:-0}" 'BEGIN { printf "%.0f", k * 1024 }') ;;
	perf)
		n=$(sed -n 's/.*perf.data (\([0-9]*\) samples).*/\1/p' "$TMP/err")
		bps=$(awk -v s="$(stat -c %s "$TMP/perf.data")" -v n="${n:-0}" 'BEGIN { if (n) printf "%.0f", s / n }') ;;
	esac
	awk -v c="$calls" -v w="$wall" -v j="$jcpu" -v r="$rcpu" -v n="$n" -v b="$bps" \
		'BEGIN { printf "%.1f %.1f %s %s %s %s\n", c / w, c / j, j, r, n, b }' >>"$TMP/$mode.$hz"
}

for r in $(seq "$REPS"); do
	for hz in 99 999; do
		for mode in alone scorch native perf; do
			run $mode $hz
		done
	done
done

# the median of column COL of FILE
med() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "backend $BACKEND, $SECONDS_EACH s a run, medians of $REPS"
printf '%-7s %-4s %10s %6s %10s %6s %8s %8s %8s %9s\n' recorder Hz "calls/s" ratio "calls/cpu" ratio "jvm cpu" "rec cpu" samples "B/sample"
for hz in 99 999; do
	a_w=$(med "$TMP/alone.$hz" 1) a_c=$(med "$TMP/alone.$hz" 2)
	for mode in alone scorch native perf; do
		f=$TMP/$mode.$hz
		w=$(med "$f" 1) c=$(med "$f" 2)
		awk -v m=$mode -v hz=$hz -v w="$w" -v c="$c" -v aw="$a_w" -v ac="$a_c" -v j="$(med "$f" 3)" \
			-v r="$(med "$f" 4)" -v n="$(med "$f" 5)" -v b="$(med "$f" 6)" \
			'BEGIN { printf "%-7s %-4s %10.1f %6.3f %10.1f %6.3f %8s %8s %8s %9s\n", m, hz, w, w / aw, c, c / ac, j, r, n, b }'
	done
done
bench_load
