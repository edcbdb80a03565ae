# scorch record walks stacks without frame pointers (DWARF unwinding from
# .eh_frame of a copied user stack) by default, on each backend. The
# workload is built -O2 -fomit-frame-pointer (tests/workloads/nofp); the
# expectations come from its source (phases, shares, callers) and from
# perf record --call-graph dwarf + scorch report on the same workload.
. "${0%/*}/lib.sh"

UW=$TMPDIR/unwind-wl
mkdir -p "$UW"
uw_ok=1
cc -O2 -g -fomit-frame-pointer -pthread -o "$UW/unwind" "$WL_SRC/nofp/unwind.c" 2>"$TMPDIR/cc.err" || uw_ok=0
have_libdw=0
grep -q 'elfutils=y' "$BUILD/features" 2>/dev/null && have_libdw=1


# unwind_checks LABEL FILE: the properties every complete recording has.
unwind_checks() {
	label=$1 f=$2
	n=$(total "$f")
	# Stacks reach a thread's start: main under libc's start code, or
	# start_thread for the two threads.
	reach=$(share "$f" '^unwind;(_start;.*__libc_start_call_main;main;|clone3;start_thread;thread_main;)')
	if [ "$n" -ge 80 ] && [ "$reach" -ge 90 ]; then
		ok "$label: stacks reach main or the thread start"
	else
		not_ok "$label: stacks reach main or the thread start" "$reach% of $n samples" \
			"$(grep -v -E '__libc_start_call_main;main;|start_thread;' "$f" | sort -t' ' -k2 -n | tail -3 | cut -c1-200)"
	fi
	# Known proportions under known callers: work_a;leaf_a runs twice as
	# long as work_b;leaf_b.
	a=$(share "$f" ';main;phase_leaves;work_a;leaf_a(;| )')
	b=$(share "$f" ';main;phase_leaves;work_b;leaf_b(;| )')
	if [ "$b" -gt 0 ] && [ $((100 * a / (a + b))) -ge 52 ] && [ $((100 * a / (a + b))) -le 80 ]; then
		ok "$label: leaf shares under their callers"
	else
		not_ok "$label: leaf shares under their callers" "leaf_a $a%, leaf_b $b% (want 2:1)"
	fi
	# Through libc: the comparator under qsort under phase_qsort, and a
	# leaf inside libc's memcmp under phase_memcmp.
	q=$(share "$f" ';main;phase_qsort;[^;]*qsort[^;]*;.*slow_compare')
	m=$(share "$f" ';main;phase_memcmp;[^;]*memcmp[^;]*( |;)')
	if [ "$q" -ge 5 ] && [ "$m" -ge 5 ]; then
		ok "$label: callers through libc (qsort comparator, memcmp leaf)"
	else
		not_ok "$label: callers through libc (qsort comparator, memcmp leaf)" "qsort $q%, memcmp $m%" \
			"$(grep -E 'slow_compare|memcmp' "$f" | head -3 | cut -c1-200)"
	fi
	# 300 recursive frames under main (a frame-pointer walk stops at 127).
	deep=$(awk '/;main;phase_deep;/ { if (gsub(/;recurse/, "") >= 300) d += $NF } END { print d + 0 }' "$f")
	if [ "$deep" -ge 5 ]; then
		ok "$label: recursion deeper than 127 frames reaches main"
	else
		not_ok "$label: recursion deeper than 127 frames reaches main" "$deep samples with 300 recurse frames" \
			"$(grep phase_deep "$f" | head -2 | cut -c1-200)"
	fi
	t=$(share "$f" '^unwind;clone3;start_thread;thread_main;thread_[ab];')
	if [ "$t" -ge 8 ]; then
		ok "$label: threads from their start"
	else
		not_ok "$label: threads from their start" "$t%"
	fi
}

# unwind_tests BACKEND OK WHY
unwind_tests() {
	be=$1
	names="stacks reach main or the thread start|leaf shares under their callers|callers through libc (qsort comparator, memcmp leaf)|recursion deeper than 127 frames reaches main|threads from their start|agrees with perf --call-graph dwarf|a stock Debian binary (xz) reaches main|fp still loses callers of code without frame pointers|the summary suggests --call-graph dwarf after fp, not after auto"
	why=$3
	[ "$uw_ok" = 1 ] || why="no C compiler for the workload"
	[ "$have_libdw" = 1 ] || why="built without elfutils (no DWARF unwinder)"
	if [ "$2" != 1 ] || [ "$uw_ok" != 1 ] || [ "$have_libdw" != 1 ]; then
		echo "$names" | tr '|' '\n' | while read -r n; do skip_or_fail "record $be (no flag): $n" "$why"; done
		return
	fi
	out=$TMPDIR/unwind-$be
	mkdir -p "$out"
	# No --call-graph flag: auto is the default.
	"$SCORCH" record --backend $be -F 499 -o "$out/u.folded" -- "$UW/unwind" 0.5 2>"$out/auto.err"
	unwind_checks "record $be (no flag)" "$out/u.folded"

	# The same workload under perf record --call-graph dwarf, through
	# scorch report: each hot function's share agrees within 12 points
	# (perf's report stops at 127 frames: leaves, not callers, compared),
	# and perf does not reach main more often.
	if command -v perf >/dev/null 2>&1 &&
		perf record -q -F 499 --call-graph dwarf,16384 -o "$out/perf.data" -- "$UW/unwind" 0.5 >/dev/null 2>&1 &&
		"$SCORCH" report -i "$out/perf.data" >"$out/perf.folded" 2>/dev/null; then
		bad=""
		for ph in ';leaf_a;' ';leaf_b;' ';slow_compare' 'phase_memcmp;' ';deep_leaf;' ';thread_[ab];'; do
			x=$(share "$out/u.folded" "^unwind;.*$ph")
			y=$(share "$out/perf.folded" "^unwind;.*$ph")
			d=$((x - y))
			[ $d -lt 0 ] && d=$((-d))
			[ $d -le 12 ] || bad="$bad $ph: scorch $x% perf $y%;"
		done
		xr=$(share "$out/u.folded" '^unwind;(_start;.*main;|clone3;start_thread;)')
		yr=$(share "$out/perf.folded" '^unwind;(_start;.*main;|clone3;start_thread;)')
		[ $((yr - xr)) -le 5 ] || bad="$bad complete stacks: scorch $xr% perf $yr%"
		if [ -z "$bad" ]; then
			ok "record $be (no flag): agrees with perf --call-graph dwarf"
		else
			not_ok "record $be (no flag): agrees with perf --call-graph dwarf" "$bad"
		fi
	else
		not_ok "record $be (no flag): agrees with perf --call-graph dwarf" "perf record --call-graph dwarf did not run"
	fi

	# A stock Debian binary built without frame pointers: xz (and its
	# liblzma). At least 95% of its samples reach main (libc's
	# __libc_start_call_main is main's caller; xz's own symbols are
	# stripped).
	if command -v xz >/dev/null 2>&1; then
		awk 'BEGIN { srand(7); for (i = 0; i < 120000; i++) printf "%d %x\n", rand() * 1e9, rand() * 1e12 }' \
			>"$out/x.txt"
		"$SCORCH" record --backend $be -F 499 -o "$out/xz.folded" -- xz -6 -T1 -c "$out/x.txt" \
			>/dev/null 2>"$out/err"
		r=$(awk '/^xz;/ { t += $NF; if ($0 ~ /;__libc_start_call_main;/) m += $NF }
			END { if (t) printf "%d\n", 100 * m / t; else print 0 }' "$out/xz.folded")
		if [ "$r" -ge 95 ]; then
			ok "record $be (no flag): a stock Debian binary (xz) reaches main"
		else
			not_ok "record $be (no flag): a stock Debian binary (xz) reaches main" "$r%" "$(cat "$out/err")"
		fi
	else
		not_ok "record $be (no flag): a stock Debian binary (xz) reaches main" "no xz (scripts/setup installs xz-utils)"
	fi

	# Frame pointers alone cannot: the same workload loses main.
	"$SCORCH" record --backend $be --call-graph fp -F 499 -o "$out/fp.folded" -- "$UW/unwind" 0.2 2>"$out/err"
	fpr=$(share "$out/fp.folded" ';main;phase_')
	if [ "$fpr" -le 30 ] && grep -q "reached a thread's start (frame pointers" "$out/err"; then
		ok "record $be (no flag): fp still loses callers of code without frame pointers"
	else
		not_ok "record $be (no flag): fp still loses callers of code without frame pointers" "$fpr% under main" "$(cat "$out/err")"
	fi
	# ... and the summary says what would find them; auto, which found
	# them, says nothing of the kind.
	hint="reached a thread's start (frame pointers; --call-graph dwarf unwinds code built without them);"
	if grep -q -F "$hint" "$out/err" && ! grep -q -e '--call-graph dwarf' "$out/auto.err" &&
		grep -q "reached a thread's start (DWARF)" "$out/auto.err"; then
		ok "record $be (no flag): the summary suggests --call-graph dwarf after fp, not after auto"
	else
		not_ok "record $be (no flag): the summary suggests --call-graph dwarf after fp, not after auto" \
			"$(cat "$out/err" "$out/auto.err")"
	fi
}

unwind_tests perf "$perf_ok" "$perf_why"
unwind_tests bpf "$bpf_ok" "$bpf_why"

# A command that runs programs one after the other: each program's samples
# are named and symbolised as that program (its exec is merged with the
# samples in time order, whatever CPU each landed on).
for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	if [ "$be_ok" != 1 ] || [ "$uw_ok" != 1 ]; then
		skip_or_fail "record $be: each program run by a shell is named as itself" "$be_why"
		continue
	fi
	bad=0
	for i in 1 2 3; do
		"$SCORCH" record -q --backend $be -F 999 -o "$TMPDIR/sh.folded" -- \
			sh -c "'$WL/burn' 0.3; '$UW/unwind' 0.2" 2>/dev/null
		# Frames of burn or unwind never sit under sh's name.
		grep -q -E '^sh;.*(burn_|main;phase_|thread_main)' "$TMPDIR/sh.folded" && bad=$((bad + 1))
		grep -q -E '^burn;.*main;burn_a' "$TMPDIR/sh.folded" || bad=$((bad + 1))
	done
	if [ "$bad" = 0 ]; then
		ok "record $be: each program run by a shell is named as itself"
	else
		not_ok "record $be: each program run by a shell is named as itself" "$bad of 3 runs wrong" \
			"$(grep '^sh;' "$TMPDIR/sh.folded" | head -3 | cut -c1-200)"
	fi
done

expect_exit "record: --call-graph bogus is a usage error" 2 "$SCORCH" record --call-graph lbr -- true
expect_exit "record: --call-graph dwarf,0 is a usage error" 2 "$SCORCH" record --call-graph dwarf,0 -- true
expect_exit "record: --call-graph dwarf,70000 is a usage error" 2 "$SCORCH" record --call-graph dwarf,70000 -- true

# JIT code named in /tmp/perf-PID.map (no unwind tables there): the frame
# is named from the map, and the walk goes on along the frame-pointer
# chain to libc's start code.
for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	if [ "$be_ok" != 1 ] || [ "$(uname -m)" != x86_64 ]; then
		skip_or_fail "record $be: JIT frames from /tmp/perf-PID.map" "${be_why:-x86-64 only}"
		continue
	fi
	"$SCORCH" record -q --backend $be --annotate-pid -F 499 -o "$TMPDIR/jit.folded" -- \
		"$BUILD/workloads/report_jit" 0.5 2>"$TMPDIR/jit.err"
	jp=$(sed -n 's/^report_jit-\([0-9]*\);.*/\1/p' "$TMPDIR/jit.folded" | head -1)
	[ -n "$jp" ] && rm -f "/tmp/perf-$jp.map"
	j=$(share "$TMPDIR/jit.folded" '^report_jit-[0-9]+;.*__libc_start_call_main;(main;)?jitted_spin( |;)')
	if [ "$j" -ge 80 ]; then
		ok "record $be: JIT frames from /tmp/perf-PID.map"
	else
		not_ok "record $be: JIT frames from /tmp/perf-PID.map" "$j%" "$(head -3 "$TMPDIR/jit.folded")" \
			"$(cat "$TMPDIR/jit.err")"
	fi
done
