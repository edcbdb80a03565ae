#!/bin/sh
# Benchmark: scorch collapse perf with 1 and 2 threads on 15 MB, 256 MB and
# ~1.15 GB of perf script text, side by side with a previous scorch
# (BASE_REV, built once into the bench output folder) in the same run.
#
# Input: bench/make-large.sh (the captures a, b, c, e of tests/data/corpus
# repeated, pids shifted per copy; ~1.15 GB), and its first 15 MB and
# 256 MB cut after a blank line (whole samples).
#
# Prints per size, thread count and binary the medians of RUNS runs (in
# each run -j1 and -j2 of both binaries one after the other, so that a
# burst of load falls on all of them) of wall, CPU (user+sys) and sys
# time, the fastest wall, MB/s (MB = 10^6 bytes) by wall and by
# CPU/threads (what idle cores would do), the peak RSS, the ratios to the
# anchors measured on this machine kind (stackcollapse-perf.pl 17-29 MB/s:
# 23 used; inferno-collapse-perf 150-190 MB/s: 170 used; cat > /dev/null
# ~6.7 GB/s), to the base build, and of -j2 to -j1 (then a line per size
# with that ratio by median and by fastest wall). The machine is shared:
# the load average is printed, and on a loaded machine a second thread
# waits for a core, so the CPU figures say more than the wall ones.
#
#   bench/collapse.sh                     3 sizes, 3 runs
#   SIZES="15 256" RUNS=5 bench/collapse.sh
#   BASE_REV=none bench/collapse.sh       without the previous version (BASE= works too;
#                                         default: main before the 2026-11-24 speed work)
#   EXTRA=1 bench/collapse.sh             also perf script and reference collapsers
set -eu
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-./scorch}
CORPUS=${CORPUS:-tests/data/corpus}
OUT=${BENCH_OUT:-bench/out}/collapse
SIZES=${SIZES:-15 256 1150}
RUNS=${RUNS:-3}
BASE_REV=${BASE_REV:-${BASE:-af93b8f}}
mkdir -p "$OUT"
. bench/lib.sh

base=$(bench_base_build "$BASE_REV")
large=$BENCH_DIR/perf-large.perf.txt
if [ ! -s "$large" ]; then
	echo "# building $large with make-large.sh" >&2
	CORPUS=$CORPUS TMPDIR=$BENCH_DIR nice sh bench/make-large.sh "$large" >/dev/null
fi

echo "# scorch collapse perf; $(bench_load); base: ${base:-none}"
printf '%-8s %-3s %-5s %8s %8s %8s %8s %8s %9s %8s %6s %8s %9s %9s\n' size -j binary "wall s" "min s" "cpu s" "sys s" "MB/s" "MB/s cpu" "RSS MiB" "x perl" "x inferno" "x base" "j2/j1"
# one_run WHO BIN T INPUT: append "wall user sys rss" to $OUT/WHO.jT
one_run() {
	if ! "$TIMEIT" "$OUT/time.txt" nice "$2" collapse perf -j "$3" "$4" >"$OUT/$1.j$3.out" 2>"$OUT/run.err"; then
		echo "# $1 -j$3 ($2) failed: $(head -2 "$OUT/run.err")" >&2
		exit 1
	fi
	read -r wall usr sys kb <"$OUT/time.txt"
	echo "#   $1 -j$3 run $i: ${wall}s wall, ${usr}s user, ${sys}s sys, $((kb / 1024)) MiB" >&2
	echo "$wall $usr $sys $kb" >>"$OUT/$1.j$3"
}
# stats FILE: median wall, fastest wall, median cpu, median sys, peak rss (KiB)
stats() {
	med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
	echo "$(awk '{ print $1 }' "$1" | med) $(awk '{ print $1 }' "$1" | sort -n | head -1)" \
		"$(awk '{ print $2 + $3 }' "$1" | med) $(awk '{ print $3 }' "$1" | med)" \
		"$(awk '{ if ($4 > r) r = $4 } END { print r + 0 }' "$1")"
}
for mb in $SIZES; do
	input=$large
	if [ "$mb" != 1150 ]; then
		input=$OUT/perf-$mb.perf.txt
		if [ ! -s "$input" ]; then
			# cut after the last blank line within the first MB
			head -c $((mb * 1000 * 1000)) "$large" | awk '{ buf = buf $0 "\n" } /^$/ { printf "%s", buf; buf = "" }' >"$input"
		fi
	fi
	bytes=$(stat -L -c %s "$input")
	echo "# $mb MB: $input: $bytes bytes; $RUNS runs; $(bench_load)"
	rm -f "$OUT"/base.j[12] "$OUT"/new.j[12]
	for i in $(seq "$RUNS"); do
		for t in 1 2; do
			[ -n "$base" ] && one_run base "$base" "$t" "$input"
			one_run new "$SCORCH" "$t" "$input"
		done
	done
	for t in 1 2; do
		[ -n "$base" ] && ! cmp -s "$OUT/base.j$t.out" "$OUT/new.j$t.out" && echo "# OUTPUT DIFFERS from the base build at -j$t"
		for who in base new; do
			[ "$who" = base ] && [ -z "$base" ] && continue
			read -r w wmin c s r <<EOS
$(stats "$OUT/$who.j$t")
EOS
			eval "${who}_wall_j$t=\$w ${who}_min_j$t=\$wmin ${who}_cpu_j$t=\$c"
			eval "bw=\${base_wall_j$t:-0} bc=\${base_cpu_j$t:-0}"
			awk -v mb="$mb" -v t="$t" -v who="$who" -v b="$bytes" -v w="$w" -v wmin="$wmin" -v c="$c" -v s="$s" -v r="$r" \
				-v bw="$bw" -v bc="$bc" -v w1="${new_wall_j1:-0}" -v c1="${new_cpu_j1:-0}" 'BEGIN {
				rate = b / 1e6 / w; crate = b / 1e6 / (c / t)
				xb = (who == "new" && bw > 0) ? sprintf("%.2f/%.2f", bw / w, bc / c) : "-"
				j = (who == "new" && t == 2 && w1 > 0) ? sprintf("%.2f/%.2f", w1 / w, c1 / (c / 2)) : "-"
				printf "%-8s %-3s %-5s %8.3f %8.3f %8.3f %8.3f %8.0f %9.0f %8.0f %6.0f %4.1f/%-4.1f %9s %9s\n",
					mb " MB", t, who, w, wmin, c, s, rate, crate, r / 1024, crate / 23, rate / 170, crate / 170, xb, j }'
		done
	done
	awk -v mb="$mb" -v a="$new_wall_j1" -v b="$new_wall_j2" -v c="$new_min_j1" -v d="$new_min_j2" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
		printf "# %s MB: -j2 is %.2fx -j1 by median wall (%.3f s / %.3f s), %.2fx by fastest wall; load now %s\n", mb, a / b, a, b, c / d, l }'
	if cmp -s "$OUT/new.j1.out" "$OUT/new.j2.out"; then
		echo "# output identical with 1 and 2 threads ($(wc -l <"$OUT/new.j1.out") stacks)"
	else
		echo "# OUTPUT DIFFERS between 1 and 2 threads"
	fi
done
echo "# min: fastest wall; x perl: CPU rate / 23 MB/s; x inferno: wall/CPU rate / 170 MB/s; x base: wall/cpu; j2/j1: wall, and (CPU of -j1)/(CPU of -j2 / 2), an upper bound of the idle-machine speed-up (perfectly balanced threads)"

# EXTRA=1: perf script itself on the biggest capture's perf.data, and the
# reference collapsers when installed (as before this table existed).
if [ "${EXTRA:-0}" = 1 ]; then
	mbps() { # bytes seconds
		awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", b / s / 1e6; else print "inf" }'
	}
	# median of the wall times of RUNS runs of CMD; sets med, rss, cpu
	timed() { # label cmd...
		label=$1
		shift
		: >"$OUT/walls"
		rss=0
		cpu=
		for i in $(seq "$RUNS"); do
			/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.txt" nice "$@" >"$OUT/run.out" 2>"$OUT/run.err" || {
				echo "# $label: failed: $(head -2 "$OUT/run.err")"
				return 1
			}
			read -r secs kb usr sys <"$OUT/time.txt"
			echo "#   $label run $i: ${secs}s wall (${usr}s user, ${sys}s sys), peak RSS $((kb / 1024)) MiB" >&2
			echo "$secs" >>"$OUT/walls"
			[ "$kb" -gt "$rss" ] && rss=$kb
			cpu="$usr+$sys"
			cpus=$(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }')
		done
		med=$(sort -n "$OUT/walls" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	}
	# perf script itself, on the biggest capture's perf.data.
	if command -v perf >/dev/null 2>&1 && [ -f "$CORPUS/b-sys-gcc.data.xz" ]; then
		data=$OUT/b-sys-gcc.data
		[ -s "$data" ] || xz -dc "$CORPUS/b-sys-gcc.data.xz" >"$data"
		timed "perf script" perf script -i "$data"
		ps=$med
		pb=$(stat -c %s "$OUT/run.out")
		cp "$OUT/run.out" "$OUT/b-sys-gcc.script.txt"
		printf '%-34s %8s s %7s MB/s of text out  peak RSS %4d MiB  (b-sys-gcc.data)\n' \
			"perf script" "$ps" "$(mbps "$pb" "$ps")" "$((rss / 1024))"
		timed "scorch on that text" "$SCORCH" collapse perf "$OUT/b-sys-gcc.script.txt"
		printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  (same text)\n' \
			"scorch collapse perf (that text)" "$med" "$(mbps "$pb" "$med")" "$((rss / 1024))"
	else
		echo "# perf script: absent (no perf on PATH or no b-sys-gcc.data.xz)"
	fi

	# Reference collapsers, when installed (on the 121 MB b-sys-gcc text).
	small=$OUT/b-sys-gcc.perf.txt
	[ -s "$small" ] || xz -dc "$CORPUS/b-sys-gcc.perf.txt.xz" >"$small"
	sb=$(stat -c %s "$small")
	timed "scorch b-sys-gcc" "$SCORCH" collapse perf "$small"
	printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  (b-sys-gcc text, %s bytes)\n' \
		"scorch collapse perf (b-sys-gcc)" "$med" "$(mbps "$sb" "$med")" "$((rss / 1024))" "$sb"
	for anchor in stackcollapse-perf.pl inferno-collapse-perf; do
		if command -v "$anchor" >/dev/null 2>&1; then
			RUNS=1 timed "$anchor" "$anchor" "$small"
			printf '%-34s %8s s %7s MB/s  peak RSS %4d MiB  (b-sys-gcc text)\n' \
				"$anchor" "$med" "$(mbps "$sb" "$med")" "$((rss / 1024))"
		else
			echo "# $anchor: absent from PATH (reference figure on this machine kind: $([ "$anchor" = inferno-collapse-perf ] && echo '~150-190' || echo '17-29') MB/s)"
		fi
	done
fi
rm -f "$OUT"/base.j[12]* "$OUT"/new.j[12]* "$OUT/time.txt" "$OUT/run.out" "$OUT/run.err" "$OUT/walls"
