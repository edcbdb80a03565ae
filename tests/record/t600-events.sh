# scorch record -e EVENT: software events and tracepoints counted per stack.
# Uses lib.sh's probes ($WL, $perf_ok, $bpf_ok, share, total).
. "${0%/*}/lib.sh"

cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -g \
	-o "$WL/faults" "$WL_SRC/faults.c" 2>"$TMPDIR/cc.err"
for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "record $be: -e page-faults shares 2:1" "$why"
		skip_or_fail "record $be: -e page-faults graph in page faults, mem palette" "$why"
		skip_or_fail "record $be: -e page-faults -c 10 samples every 10th fault" "$why"
		continue
	fi
	# fault_a touches 2 x 512 fresh pages a round, fault_b 512: every
	# fault is a sample (-c 1), so the shares are 2/3 and 1/3 of all
	# faults, within 0.05 (the loader and libc fault a few pages too;
	# frame pointers: small samples, so the ring buffer keeps up with a
	# sample per fault, where DWARF's 16 KiB stack copies are lost in
	# bursts, unevenly, on a slow sanitized build).
	"$SCORCH" record --backend $be --call-graph fp -e page-faults -o "$TMPDIR/pf.folded" -- "$WL/faults" 20 \
		2>"$TMPDIR/pf.err"
	n=$(total "$TMPDIR/pf.folded")
	a=$(awk '{ t += $NF; if ($0 ~ /;main;fault_a;touch_pages(;|$| )/) m += $NF }
		END { if (t) printf "%.3f\n", m / t; else print 0 }' "$TMPDIR/pf.folded")
	b=$(awk '{ t += $NF; if ($0 ~ /;main;fault_b;touch_pages(;|$| )/) m += $NF }
		END { if (t) printf "%.3f\n", m / t; else print 0 }' "$TMPDIR/pf.folded")
	lost=$(sed -n 's/.* \([0-9]*\) lost.*/\1/p' "$TMPDIR/pf.err")
	if [ "$n" -ge 5000 ] && awk -v a="$a" -v b="$b" \
		'BEGIN { exit !(a >= 0.667 - 0.05 && a <= 0.667 + 0.05 && b >= 0.333 - 0.05 && b <= 0.333 + 0.05) }' &&
		grep -q "page-faults every event" "$TMPDIR/pf.err"; then
		ok "record $be: -e page-faults shares 2:1"
	else
		not_ok "record $be: -e page-faults shares 2:1" "fault_a $a, fault_b $b of $n faults, ${lost:-0} lost" \
			"$(sort -k2 -n "$TMPDIR/pf.folded" | tail -4)" "$(cat "$TMPDIR/pf.err")"
	fi
	# -c 10: a sample every 10th fault. The workload faults 20 x 1536
	# pages (and the loader a few dozen more): about 3072 samples
	# (frame pointers: small samples, none lost).
	"$SCORCH" record --backend $be --call-graph fp -e page-faults -c 10 -o "$TMPDIR/pf10.folded" \
		-- "$WL/faults" 20 2>"$TMPDIR/pf10.err"
	n10=$(total "$TMPDIR/pf10.folded")
	if [ "$n10" -ge 3000 ] && [ "$n10" -le 3300 ] && grep -q 'every 10 events' "$TMPDIR/pf10.err"; then
		ok "record $be: -e page-faults -c 10 samples every 10th fault"
	else
		not_ok "record $be: -e page-faults -c 10 samples every 10th fault" "$n10 samples (want ~3072)" \
			"$(cat "$TMPDIR/pf10.err")"
	fi
	# The graph says what it counts and uses the memory palette (mem,
	# flamegraph.pl's: red 0, where the default's frames are 205..255).
	"$SCORCH" record -q --backend $be -e page-faults -o "$TMPDIR/pf.svg" -- "$WL/faults" 2 2>"$TMPDIR/pf.err"
	reds=$(grep -o 'fill="rgb([1-9][0-9]*,' "$TMPDIR/pf.svg" | wc -l)
	greens=$(grep -c 'fill="rgb(0,' "$TMPDIR/pf.svg")
	if grep -q '<title>all ([0-9,]* page faults, 100%)' "$TMPDIR/pf.svg" &&
		grep -q 'page-faults every event' "$TMPDIR/pf.svg" && [ "$reds" = 0 ] && [ "$greens" -ge 5 ]; then
		ok "record $be: -e page-faults graph in page faults, mem palette"
	else
		not_ok "record $be: -e page-faults graph in page faults, mem palette" \
			"$reds red frames, $greens mem-palette frames" \
			"$(grep -o '<title>[^<]*</title>' "$TMPDIR/pf.svg" | head -3)" "$(cat "$TMPDIR/pf.err")"
	fi
done

# Tracepoints: perf backend (a BPF perf_event program cannot attach to
# one: the bpf backend says so and falls back). write_loop is the only
# writer in the syscalls workload; -c 100 samples every 100th write.
tp=/sys/kernel/tracing/events/syscalls/sys_enter_write/id
if [ "$perf_ok" != 1 ]; then
	skip_or_fail "record: -e syscalls:sys_enter_write -c 100" "$perf_why"
	skip_or_fail "record bpf: a tracepoint falls back to perf with a notice" "$perf_why"
elif [ -d /sys/kernel/tracing/events ] && [ ! -e "$tp" ]; then
	# a kernel built without syscall tracepoints (CONFIG_FTRACE_SYSCALLS):
	# the machine's, not scorch's (an unmounted tracefs is no reason: record
	# mounts it, t590-tracefs.sh)
	skip "record: -e syscalls:sys_enter_write -c 100" "no $tp in this kernel"
	skip "record bpf: a tracepoint falls back to perf with a notice" "no $tp in this kernel"
else
	"$SCORCH" record --backend perf -e syscalls:sys_enter_write -c 100 -o "$TMPDIR/tp.folded" \
		-- "$WL/syscalls" 0.3 2>"$TMPDIR/tp.err"
	n=$(total "$TMPDIR/tp.folded")
	w=$(share "$TMPDIR/tp.folded" ';main;write_loop;')
	if [ "$n" -ge 20 ] && [ "$w" -ge 95 ] && grep -q 'sys_enter_write every 100 events' "$TMPDIR/tp.err"; then
		ok "record: -e syscalls:sys_enter_write -c 100"
	else
		not_ok "record: -e syscalls:sys_enter_write -c 100" "$w% of $n samples under main;write_loop" \
			"$(sort -k2 -n "$TMPDIR/tp.folded" | tail -3)" "$(cat "$TMPDIR/tp.err")"
	fi
	if [ "$bpf_ok" = 1 ]; then
		"$SCORCH" record -e syscalls:sys_enter_write -c 100 -o "$TMPDIR/tp2.folded" \
			-- "$WL/syscalls" 0.2 2>"$TMPDIR/tp2.err"
		if grep -q 'tracepoint .* perf backend only' "$TMPDIR/tp2.err" && grep -q 'perf backend' "$TMPDIR/tp2.err" &&
			[ "$(share "$TMPDIR/tp2.folded" ';main;write_loop;')" -ge 95 ]; then
			ok "record bpf: a tracepoint falls back to perf with a notice"
		else
			not_ok "record bpf: a tracepoint falls back to perf with a notice" "$(cat "$TMPDIR/tp2.err")"
		fi
	else
		skip_or_fail "record bpf: a tracepoint falls back to perf with a notice" "$bpf_why"
	fi
fi

# Bad event names and -c without a counted event: usage errors (exit 2).
"$SCORCH" record -e no-such-event -- true 2>"$TMPDIR/e.err"
rc1=$?
"$SCORCH" record -e 'sched/x:y' -- true 2>>"$TMPDIR/e.err"
rc2=$?
"$SCORCH" record -c 5 -- true 2>>"$TMPDIR/e.err"
rc3=$?
if [ "$rc1" = 2 ] && [ "$rc2" = 2 ] && [ "$rc3" = 2 ] && grep -q 'no-such-event: unknown event' "$TMPDIR/e.err" &&
	grep -q 'not a tracepoint name' "$TMPDIR/e.err" && grep -q -- '-c counts' "$TMPDIR/e.err"; then
	ok "record: bad -e names and -c alone are usage errors"
else
	not_ok "record: bad -e names and -c alone are usage errors" "$rc1 $rc2 $rc3" "$(cat "$TMPDIR/e.err")"
fi
