# record --off-cpu on the bpf backend when its program does not see a
# thread's switch-in. sched_switch runs in the context of the task leaving
# the CPU, and a kernel may run no program there (on the machine these
# tests were written on, none runs in its sandbox supervisor's threads: perf
# sees none of their switch-outs either). The thread's block must still be
# counted under its stack, ended at the thread's next switch-out less the
# CPU time it used since, and said in the summary; the old program
# overwrote it at that switch-out (lost, unsaid) and counted the threads
# that then exited as blocked up to the end.
# The fault is injected: SCORCH_TEST_UNSEEN_SWITCH_IN=3 makes the program
# ignore the switch-in of every block that began on a multiple of 3 us (a
# third of them), in the test-hooks build only ($BUILD/test-hooks/scorch,
# the Makefile's; the release's program has no such hook). Uses lib.sh's
# probes, workloads and helpers.
. "${0%/*}/lib.sh"
offcpu_workloads
un_names="blocking wall"
if [ "$bpf_ok" != 1 ] || [ "$oc_ok" != 1 ]; then
	un_why=$bpf_why
	[ "$oc_ok" = 1 ] || un_why="fail: the off-CPU workloads do not build (scripts/setup installs build-essential)"
	for n in $un_names; do skip_or_fail "record bpf --off-cpu, switch-ins unseen: $n" "$un_why"; done
else
	un=$TMPDIR/offcpu-unseen
	mkdir -p "$un"
	SCORCH_TEST_UNSEEN_SWITCH_IN=3 "$BUILD/test-hooks/scorch" record --backend bpf --off-cpu -o "$un/b.folded" -- "$WL/blocking" \
		>"$un/b.out" 2>"$un/b.err"
	f=$un/b.folded
	unseen=$(grep -o -E '[0-9,]+ blocks? whose switch-in was not seen' "$un/b.err" | tr -d ,)
	unseen=${unseen%% *}
	blocks=$(grep -o 'S+D: [0-9,]* blocks' "$un/b.err" | tr -d , | awk '{ print $2 }')
	s=$(us "$f" ';sleep_wait;') p=$(us "$f" ';pipe_wait;') c=$(us "$f" ';cond_wait;')
	mshares=$(awk '{ t = $2 + $4 + $6; if (t) printf "%.3f %.3f %.3f", $2 / t, $4 / t, $6 / t }' "$un/b.out")
	shares=$(awk -v s="$s" -v p="$p" -v c="$c" 'BEGIN { t = s + p + c; if (t) printf "%.3f %.3f %.3f", s / t, p / t, c / t }')
	ob=$(us "$f" ';only_blocks;') wall=$(measured "$un/b.out" only_blocks_wall)
	set -- $shares $mshares
	# A sixth at least said unseen (a third expected), the poll thread's
	# ten 50 ms blocks all there, the shares as the workload measured.
	if [ -n "$unseen" ] && [ -n "$blocks" ] && [ "$unseen" -ge $((blocks / 6)) ] && [ -n "$wall" ] &&
		near "$ob" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 }')" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 * 0.05 }')" &&
		[ $# = 6 ] && near "$1" "$4" 0.05 && near "$2" "$5" 0.05 && near "$3" "$6" 0.05 &&
		! grep -q 'still blocked at the end' "$un/b.err"; then
		ok "record bpf --off-cpu, switch-ins unseen: blocking"
	else
		not_ok "record bpf --off-cpu, switch-ins unseen: blocking" \
			"only_blocks $ob us (wall ${wall:-?} s); shares $shares (measured $mshares); ${unseen:-no} unseen of ${blocks:-?}" \
			"$(cat "$un/b.err")"
	fi
	# --wall on the half-computing workload: a block whose switch-in is
	# unseen ends before the 5 ms of computing that follow it, so the
	# on-CPU share stays what the workload measured (within 0.05; were the
	# computing counted as blocked, a third of it would move), and the three
	# kinds still add up to its wall time (within 10%).
	SCORCH_TEST_UNSEEN_SWITCH_IN=3 "$BUILD/test-hooks/scorch" record --backend bpf --wall -F 997 -o "$un/w.folded" -- "$WL/halfsleep" \
		>"$un/w.out" 2>"$un/w.err"
	f=$un/w.folded
	on=$(us "$f" '\[on-cpu\]') off=$(us "$f" '\[off-cpu\]') run=$(us "$f" '\[runnable\]')
	mc=$(measured "$un/w.out" cpu) msl=$(measured "$un/w.out" sleep) mb=$(measured "$un/w.out" busy) wall=$(measured "$un/w.out" wall)
	want=$(awk -v c="$mc" -v s="$msl" 'BEGIN { if (c + s) printf "%.3f", c / (c + s) }')
	got=$(awk -v a="$on" -v b="$off" 'BEGIN { if (a + b) printf "%.3f", a / (a + b) }')
	if [ -n "$want" ] && [ -n "$got" ] && [ -n "$wall" ] && on_share_ok "$got" "$mc" "$mb" "$msl" 0.05 &&
		near $((on + off + run)) "$(awk -v w="$wall" 'BEGIN { print w * 1e6 }')" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 * 0.1 }')" &&
		grep -q 'whose switch-in was not seen' "$un/w.err"; then
		ok "record bpf --off-cpu, switch-ins unseen: wall"
	else
		not_ok "record bpf --off-cpu, switch-ins unseen: wall" \
			"on-CPU share $got (measured $want, cpu $mc s, busy $mb s, sleep $msl s); on $on + off $off + runnable $run us, wall ${wall:-?} s" "$(cat "$un/w.err")"
	fi
fi
