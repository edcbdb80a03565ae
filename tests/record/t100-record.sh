# scorch record: both backends against workloads with known hot functions.
# Sampling needs perf_event_open (and BPF for the bpf backend): tests that
# cannot run here are skipped, each with the reason (lib.sh probes).
. "${0%/*}/lib.sh"

# backend_tests BACKEND OK WHY
backend_tests() {
	be=$1
	if [ "$2" != 1 ]; then
		for n in shares callers threads-and-children kernel-frames user-only kernel-only \
			pid-target tid-annotation svg html; do
			skip_or_fail "record $be: $n" "$3"
		done
		return
	fi
	out=$TMPDIR/$be
	mkdir -p "$out"

	# burn_a does twice the work of burn_b: expect 2/3 of the samples
	# under main;burn_a, 1/3 under main;burn_b (wide band: sampling noise
	# and a busy machine).
	"$SCORCH" record -q --backend $be -F 299 -o "$out/burn.folded" -- "$WL/burn" 1.5 2>"$out/err"
	a=$(share "$out/burn.folded" ';main;burn_a(;|$| )')
	b=$(share "$out/burn.folded" ';main;burn_b(;|$| )')
	n=$(total "$out/burn.folded")
	if [ "$n" -ge 150 ] && [ "$a" -ge 52 ] && [ "$a" -le 80 ] && [ "$b" -ge 20 ] && [ "$b" -le 45 ]; then
		ok "record $be: shares"
	else
		not_ok "record $be: shares" "burn_a $a%, burn_b $b% of $n samples (want ~67/33)" \
			"$(sort -k2 -n "$out/burn.folded" | tail -5)" "$(cat "$out/err")"
	fi
	# Every burn_a/burn_b frame is called from main, under the process
	# name: "burn;...;main;burn_X".
	bad=$(grep -E 'burn_[ab]' "$out/burn.folded" | grep -v -E '^burn;([^;]*;)*main;burn_[ab](;| )' | head -3)
	if [ -s "$out/burn.folded" ] && [ -z "$bad" ]; then
		ok "record $be: callers"
	else
		not_ok "record $be: callers" "$bad"
	fi

	# A command is followed into its threads and its forked child (which
	# exits before sampling ends: its maps were captured while it lived).
	"$SCORCH" record -q --backend $be -F 199 -o "$out/spawn.folded" -- "$WL/spawn" 0.6 2>"$out/err"
	p=$(share "$out/spawn.folded" ';main;parent_work;')
	t=$(share "$out/spawn.folded" ';thread_work;')
	c=$(share "$out/spawn.folded" ';main;child_work;')
	if [ "$p" -ge 15 ] && [ "$t" -ge 15 ] && [ "$c" -ge 15 ]; then
		ok "record $be: threads-and-children"
	else
		not_ok "record $be: threads-and-children" "parent $p%, thread $t%, child $c%" \
			"$(sort -k2 -n "$out/spawn.folded" | tail -4)"
	fi

	# Kernel frames under the user frames that made the system calls
	# (libc's write wrapper has no frame pointer, so write_loop itself is
	# often skipped: main is the surest caller).
	"$SCORCH" record -q --backend $be --kernel -F 199 -o "$out/sys.folded" -- "$WL/syscalls" 0.6 2>"$out/err"
	k=$(share "$out/sys.folded" '^syscalls;.*;main;.*_\[k\]')
	if [ "$k" -ge 30 ]; then
		ok "record $be: kernel-frames"
	else
		not_ok "record $be: kernel-frames" "$k% of samples under main;..._[k]" \
			"$(sort -k2 -n "$out/sys.folded" | tail -3)"
	fi
	"$SCORCH" record -q --backend $be --kernel --user-only -F 199 -o "$out/u.folded" -- "$WL/syscalls" 0.3 2>"$out/err"
	if [ -s "$out/u.folded" ] && ! has_kernel_frames "$out/u.folded" && grep -q ';main;' "$out/u.folded"; then
		ok "record $be: user-only"
	else
		not_ok "record $be: user-only" "$(head -3 "$out/u.folded")" "$(cat "$out/err")"
	fi
	"$SCORCH" record -q --backend $be --kernel --kernel-only -F 199 -o "$out/k.folded" -- "$WL/syscalls" 0.3 2>"$out/err"
	if [ -s "$out/k.folded" ] && ! grep -q -E 'write_loop|;main(;| )' "$out/k.folded" &&
		[ "$(grep -c -v -E '^syscalls(;[^;]*_\[k\])* [0-9]+$' "$out/k.folded")" = 0 ]; then
		ok "record $be: kernel-only"
	else
		not_ok "record $be: kernel-only" "$(grep -v -E '^syscalls(;[^;]*_\[k\])* [0-9]+$' "$out/k.folded" | head -3)"
	fi

	# -p: a running process, given with perf's long form --pid, named with --annotate-pid.
	"$WL/burn" 3 &
	bp=$!
	sleep 0.2
	"$SCORCH" record -q --backend $be --pid $bp --annotate-pid -d 1 -F 199 -o "$out/p.folded" 2>"$out/err"
	kill $bp 2>/dev/null
	wait $bp 2>/dev/null
	others=$(grep -c -v "^burn-$bp;" "$out/p.folded")
	a=$(share "$out/p.folded" "^burn-$bp;.*;main;burn_a")
	if [ -s "$out/p.folded" ] && [ "$others" = 0 ] && [ "$a" -ge 45 ]; then
		ok "record $be: pid-target"
	else
		not_ok "record $be: pid-target" "$others lines of other processes, burn_a $a%" \
			"$(head -3 "$out/p.folded")" "$(cat "$out/err")"
	fi

	# --annotate-tid names each thread: the spawn workload has three (two in the
	# parent, one in the child).
	"$SCORCH" record -q --backend $be --annotate-tid -F 199 -o "$out/t.folded" -- "$WL/spawn" 0.3 2>"$out/err"
	nt=$(sed -n 's/^spawn-\([0-9]*\/[0-9]*\);.*/\1/p' "$out/t.folded" | sort -u | wc -l)
	if [ "$nt" -ge 3 ]; then
		ok "record $be: tid-annotation"
	else
		not_ok "record $be: tid-annotation" "$nt distinct PID/TID roots" "$(head -3 "$out/t.folded")"
	fi

	# SVG through the flamegraph renderer, with its options.
	"$SCORCH" record -q --backend $be --inverted --title 'rec <&>' -o "$out/g.svg" -- "$WL/burn" 0.3 2>"$out/err"
	if grep -q '^<svg' "$out/g.svg" 2>/dev/null && grep -q '</svg>' "$out/g.svg" &&
		grep -q 'rec &lt;&amp;&gt;' "$out/g.svg" && grep -q 'burn_a' "$out/g.svg"; then
		ok "record $be: svg"
	else
		not_ok "record $be: svg" "$(head -c 300 "$out/g.svg" 2>&1)" "$(cat "$out/err")"
	fi
	# The HTML viewer, chosen by --format whatever the file name.
	"$SCORCH" record -q --backend $be --format html -o "$out/g.out" -- "$WL/burn" 0.3 2>"$out/err"
	if head -c 20 "$out/g.out" 2>/dev/null | grep -q '<!DOCTYPE html>' && grep -q 'id="scorch-data"' "$out/g.out" &&
		grep -q '"burn_a"' "$out/g.out"; then
		ok "record $be: html"
	else
		not_ok "record $be: html" "$(head -c 300 "$out/g.out" 2>&1)" "$(cat "$out/err")"
	fi
}

backend_tests perf "$perf_ok" "$perf_why"
backend_tests bpf "$bpf_ok" "$bpf_why"

# One-entry stack maps and counts hold one stack and one key: the program
# sends the other samples whole, and the shares stay right.
if [ "$bpf_ok" = 1 ]; then
	"$SCORCH" record --backend bpf --call-graph fp --stack-map-size 1 -F 299 -o "$TMPDIR/spill.folded" -- "$WL/burn" 1 \
		2>"$TMPDIR/spill.err"
	a=$(share "$TMPDIR/spill.folded" ';main;burn_a(;|$| )')
	b=$(share "$TMPDIR/spill.folded" ';main;burn_b(;|$| )')
	if grep -q '([1-9][0-9]* sent whole' "$TMPDIR/spill.err" &&
		! grep -q 'Missed' "$TMPDIR/spill.folded" && [ "$a" -ge 52 ] && [ "$a" -le 80 ] &&
		[ "$b" -ge 20 ] && [ "$b" -le 45 ]; then
		ok "record bpf: stacks the maps cannot hold are sent whole"
	else
		not_ok "record bpf: stacks the maps cannot hold are sent whole" "burn_a $a%, burn_b $b%" \
			"$(cat "$TMPDIR/spill.err")" "$(sort -k2 -n "$TMPDIR/spill.folded" | tail -3)"
	fi
else
	skip_or_fail "record bpf: stacks the maps cannot hold are sent whole" "$bpf_why"
fi

# ---- backend-independent behaviour --------------------------------------

# system_wide BACKEND OK WHY
system_wide() {
	be=$1
	if [ "$2" != 1 ]; then
		skip_or_fail "record $be: system-wide with kernel frames and per-CPU roots" "$3"
		skip_or_fail "record $be: process that exits before sampling ends" "$3"
		return
	fi
	# A busy process shows up, and so do kernel frames (the idle task at
	# least), with a CPU frame at the root on request. A second process
	# starts and exits while sampling runs: its frames are still named
	# (its maps were captured while it lived).
	"$WL/burn" 3 &
	bp=$!
	"$SCORCH" record -q --backend $be -a -d 2.5 -F 199 --kernel --per-cpu -o "$TMPDIR/all-$be.folded" \
		2>"$TMPDIR/all.err" &
	rp=$!
	sleep 0.5
	"$WL/spawn" 0.2
	exited_first=0
	kill -0 $rp 2>/dev/null && exited_first=1
	wait $rp
	kill $bp 2>/dev/null
	wait $bp 2>/dev/null
	if grep -q -E '^CPU [0-9]+;burn;.*main;burn_a' "$TMPDIR/all-$be.folded" &&
		grep -q '_\[k\]' "$TMPDIR/all-$be.folded" &&
		[ "$(grep -c -v '^CPU [0-9]*;' "$TMPDIR/all-$be.folded")" = 0 ]; then
		ok "record $be: system-wide with kernel frames and per-CPU roots"
	else
		not_ok "record $be: system-wide with kernel frames and per-CPU roots" \
			"$(head -3 "$TMPDIR/all-$be.folded")" "$(cat "$TMPDIR/all.err")"
	fi
	if [ "$exited_first" = 0 ]; then
		# a loaded machine can run the child past -d: nothing to check,
		# and no fault of scorch's (no timing assertion either way)
		skip "record $be: process that exits before sampling ends" "it outlasted sampling (busy machine)"
	elif grep -q -E '^CPU [0-9]+;spawn;.*main;child_work;spin_for' "$TMPDIR/all-$be.folded" &&
		grep -q -E '^CPU [0-9]+;spawn;.*thread_work;spin_for' "$TMPDIR/all-$be.folded"; then
		ok "record $be: process that exits before sampling ends"
	else
		not_ok "record $be: process that exits before sampling ends" \
			"$(grep spawn "$TMPDIR/all-$be.folded" | head -3)"
	fi
}
system_wide perf "$perf_ok" "$perf_why"
system_wide bpf "$bpf_ok" "$bpf_why"
cp "$TMPDIR/all-perf.folded" "$TMPDIR/all.folded" 2>/dev/null

if [ "$perf_ok" = 1 ]; then

	# Flame chart: time order needs the perf backend's timestamps.
	"$SCORCH" record -q --flamechart -o "$TMPDIR/chart.svg" -- "$WL/burn" 0.3 2>"$TMPDIR/chart.err"
	if grep -q 'Flame Chart' "$TMPDIR/chart.svg" 2>/dev/null; then
		ok "record: --flamechart"
	else
		not_ok "record: --flamechart" "$(cat "$TMPDIR/chart.err")"
	fi

	# pprof: a CPU profile (samples/count and cpu/nanoseconds, period
	# 1e9/Hz) that go tool pprof reads back.
	if command -v go >/dev/null 2>&1; then
		"$SCORCH" record -q -F 199 -o "$TMPDIR/rec.pb.gz" -- "$WL/burn" 0.3 2>"$TMPDIR/rec-pprof.err"
		PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$TMPDIR/rec.pb.gz" >"$TMPDIR/rec.raw" 2>&1
		if grep -q '^samples/count\[dflt\] cpu/nanoseconds$' "$TMPDIR/rec.raw" &&
			grep -q '^Period: 5025126$' "$TMPDIR/rec.raw" && grep -q ' burn_a ' "$TMPDIR/rec.raw" &&
			awk '/^ +[0-9]+ +[0-9]+:/ { n++; if ($2 + 0 != int($1 * 1e9 / 199 + 0.5)) bad++ }
				END { exit !(n > 0 && bad == 0) }' "$TMPDIR/rec.raw"; then
			ok "record: pprof output (go tool pprof)"
		else
			not_ok "record: pprof output (go tool pprof)" "$(head -12 "$TMPDIR/rec.raw")" "$(cat "$TMPDIR/rec-pprof.err")"
		fi
		# Mappings: each module's file and build-id (the one readelf
		# reads from the file), and addresses that pprof's own
		# symbolisation (-symbolize=force: the binary's symbols and
		# line tables) turns into the names scorch gave.
		"$SCORCH" record -q -F 499 -o "$TMPDIR/rec-map.pb.gz" -- "$BUILD/workloads/demo" 1 2>"$TMPDIR/rec-map.err"
		. tests/pprof.sh
		demo_id=$(readelf -n "$BUILD/workloads/demo" | sed -n 's/.*Build ID: //p')
		libc=$(readlink -f "$(ldd "$BUILD/workloads/demo" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')")
		libc_id=$(readelf -n "$libc" | sed -n 's/.*Build ID: //p')
		demo=$(readlink -f "$BUILD/workloads/demo")
		pp_mapping_ids "$TMPDIR/rec-map.pb.gz" >"$TMPDIR/rec-map.ids"
		if grep -qx "$demo $demo_id" "$TMPDIR/rec-map.ids" &&
			grep -qx "$libc $libc_id" "$TMPDIR/rec-map.ids"; then
			ok "record: pprof Mappings carry the files and their build-ids"
		else
			not_ok "record: pprof Mappings carry the files and their build-ids" "want demo $demo_id, $libc $libc_id" \
				"$(cat "$TMPDIR/rec-map.ids")" "$(cat "$TMPDIR/rec-map.err")"
		fi
		pp_resymbolize_diff "$TMPDIR/rec-map.pb.gz" "$demo" >"$TMPDIR/rec-map.diff"
		if [ "$(cat "$TMPDIR/rec-map.diff")" != "checked 0" ] && [ "$(wc -l <"$TMPDIR/rec-map.diff")" = 1 ]; then
			ok "record: pprof addresses symbolise again to the same names ($(cat "$TMPDIR/rec-map.diff") locations)"
		else
			not_ok "record: pprof addresses symbolise again to the same names" "$(head -5 "$TMPDIR/rec-map.diff")"
		fi
		# time_nanos and duration_nanos: when and how long it sampled.
		PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$TMPDIR/rec-map.pb.gz" >"$TMPDIR/rec-map.raw" 2>&1
		year=$(date -u +%Y)
		if grep -q "^Time: $year-" "$TMPDIR/rec-map.raw" && grep -q '^Duration: [1-9]' "$TMPDIR/rec-map.raw"; then
			ok "record: pprof Time and Duration"
		else
			not_ok "record: pprof Time and Duration" "$(head -6 "$TMPDIR/rec-map.raw")"
		fi
	else
		for n in "output (go tool pprof)" "Mappings carry the files and their build-ids" \
			"addresses symbolise again to the same names" "Time and Duration"; do
			not_ok "record: pprof $n" "no go (scripts/setup installs Debian's golang-go)"
		done
	fi

	# Folded output: "frames COUNT" lines, sorted, each count positive.
	if [ -s "$TMPDIR/all.folded" ] &&
		[ "$(grep -c -v -E '^[^ ].* [1-9][0-9]*$' "$TMPDIR/all.folded")" = 0 ] &&
		LC_ALL=C sort -c "$TMPDIR/all.folded" 2>/dev/null; then
		ok "record: folded output format"
	else
		not_ok "record: folded output format" "$(head -3 "$TMPDIR/all.folded")"
	fi

	# Ctrl-C ends sampling and the output is still written.
	"$SCORCH" record -q -a -o "$TMPDIR/int.folded" 2>"$TMPDIR/int.err" &
	rp=$!
	sleep 1
	kill -INT $rp
	wait $rp
	st=$?
	if [ "$st" = 0 ] && [ -s "$TMPDIR/int.folded" ]; then
		ok "record: SIGINT writes the output"
	else
		not_ok "record: SIGINT writes the output" "exit $st" "$(cat "$TMPDIR/int.err")"
	fi

	expect_exit "record: command not found exits 127" 127 "$SCORCH" record -q -- /nonexistent/cmd
	if grep -q 'command not found' "$TMPDIR/err"; then
		ok "record: command not found message"
	else
		not_ok "record: command not found message" "$(cat "$TMPDIR/err")"
	fi
	expect_exit "record: no such pid" 1 "$SCORCH" record -q -p 2147483646 -d 0.1
	expect_grep "record: no such pid message" 'no such process' "$TMPDIR/err"
else
	for n in flamechart folded-format sigint not-found not-found-message no-such-pid \
		no-such-pid-message; do
		skip_or_fail "record: $n" "$perf_why"
	done
fi

expect_exit "record: -F 0 is a usage error" 2 "$SCORCH" record -F 0 -- true
expect_exit "record: two targets is a usage error" 2 "$SCORCH" record -a -p 1 -d 1
expect_exit "record: a bad flame graph option fails before sampling" 2 \
	"$SCORCH" record --width=abc -o "$TMPDIR/never.svg" -- true
expect_exit "record: --user-only with --kernel-only is a usage error" 2 \
	"$SCORCH" record --user-only --kernel-only -- true

# Every `scorch flamegraph` option is accepted by record (forwarded to the
# renderer): cmd/graph_opts.c must accept each option flamegraph's help
# lists, except those about flamegraph's own input and output (and --time,
# record's own: its value "1" is no range; tests/record/t760-time.sh).
missing=""
for o in $("$SCORCH" flamegraph --help | grep -o -E '^ +(-o, )?--[a-z-]+' | sed 's/.*--//' | sort -u); do
	case "$o" in output | help | format | dump-frames | sample-index | time) continue ;; esac
	# --opt=1 for options with a value; a flag rejects "=1" and is then
	# tried alone.
	if "$SCORCH" record "--$o=1" -h >/dev/null 2>"$TMPDIR/opt.err"; then
		continue
	fi
	grep -q "allow an argument" "$TMPDIR/opt.err" && "$SCORCH" record "--$o" -h >/dev/null 2>&1 && continue
	missing="$missing --$o"
done
if [ -z "$missing" ]; then
	ok "record: accepts every flamegraph option"
else
	not_ok "record: accepts every flamegraph option" "missing:$missing"
fi
