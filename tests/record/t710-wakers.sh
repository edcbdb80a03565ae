# scorch record --wakers (BPF backend): who woke each blocked thread.
# Uses lib.sh's probes, workload and helpers
# ($WL/blocking, us, near, oc_ok).
#
# In the blocking workload the pipe reader (pipe_wait) is woken by the
# feeder thread's write(2), the condition-variable waiter (cond_wait) by
# pthread_cond_signal, and the sleepers by a timer interrupt: each blocked
# stack gets a "--" frame and the waker's stack above it, from where it
# woke the thread (try_to_wake_up) down to its process name.
. "${0%/*}/lib.sh"
offcpu_workloads
wk_names="pipe-reader-woken-by-write cond-waiter-woken-by-signal sleeper-woken-by-interrupt no-stack-lost-when-they-fit-the-maps chain-palette"
if [ "$bpf_ok" != 1 ] || [ "$oc_ok" != 1 ]; then
	why=$bpf_why
	[ "$oc_ok" = 1 ] || why="no C compiler for the workloads"
	for n in $wk_names; do skip_or_fail "record bpf --wakers: $n" "$why"; done
else
	out=$TMPDIR/wakers
	mkdir -p "$out"
	"$SCORCH" record --backend bpf --wakers -o "$out/w.folded" -- "$WL/blocking" >"$out/w.out" 2>"$out/w.err"
	f=$out/w.folded
	# >= 90% of each wait's time under the waker expected (a few blocks
	# end otherwise: a signal, or the last round's wake-up at exit).
	check_waker() { # NAME WAIT WAKER-PATTERN
		all=$(us "$f" ";$2;") woke=$(us "$f" ";$2;.*;--;$3")
		if [ "$all" -ge 50000 ] && [ "$woke" -ge $((all * 9 / 10)) ]; then
			ok "record bpf --wakers: $1"
		else
			not_ok "record bpf --wakers: $1" "$woke of $all us under the waker expected" \
				"$(grep ";$2;" "$f" | sort -k2 -n | tail -3 | cut -c1-400)" "$(cat "$out/w.err")"
		fi
	}
	check_waker pipe-reader-woken-by-write pipe_wait \
		'try_to_wake_up;.*pipe_write;vfs_write;.*write;([^;]*;)*blocking [0-9]*$'
	check_waker cond-waiter-woken-by-signal cond_wait \
		'try_to_wake_up;.*futex_wake;.*pthread_cond_signal[^;]*;([^;]*;)*blocking [0-9]*$'
	check_waker sleeper-woken-by-interrupt sleep_wait \
		'try_to_wake_up;hrtimer_wakeup;.*;\[interrupt\] [0-9]*$'

	# Stacks that fit the maps are all kept: with room for 1,024 per size
	# class, no block loses its stack or its waker's. (With one stack per
	# hash bucket, as a stack-trace map keeps them, and a frame-pointer
	# walk stored for every block's copied user stack, 500-750 of ~1,730
	# blocks lost a stack here, and at the default size now and then one
	# frequent stack shared a bucket with another and lost all its blocks.)
	"$SCORCH" record --backend bpf --wakers --stack-map-size 1024 -o "$out/w1k.folded" -- "$WL/blocking" \
		>"$out/w1k.out" 2>"$out/w1k.err"
	f=$out/w1k.folded
	if grep -q ' lost' "$out/w1k.err"; then
		not_ok "record bpf --wakers: no stack lost when they fit the maps" "$(cat "$out/w1k.err")"
	else
		check_waker no-stack-lost-when-they-fit-the-maps sleep_wait \
			'try_to_wake_up;hrtimer_wakeup;.*;\[interrupt\] [0-9]*$'
	fi

	# The chain palette, flamegraph.pl's: the blocked part blue (rgb(r, r,
	# b), b > r), the waker's frames aqua (rgb(r, g, g), g > r), the "--"
	# separators grey; the title says Off-Wake Time (the command may be
	# cut: the tests run from a long folder).
	"$SCORCH" record -q --backend bpf --wakers -o "$out/w.svg" -- "$WL/blocking" 5 >/dev/null 2>"$out/svg.err"
	kinds=$(grep -o 'fill="rgb([0-9]*,[0-9]*,[0-9]*)"' "$out/w.svg" | sed 's/.*(\(.*\)).*/\1/' |
		awk -F, '{ if ($1 == $2 && $3 > $1) b++; else if ($2 == $3 && $2 > $1) a++; else o++ }
			END { print b + 0, a + 0, o + 0 }')
	set -- $kinds
	if grep -q '>Off-Wake Time · scorch record: ' "$out/w.svg" && grep -q 'with wakers' "$out/w.svg" &&
		[ "$1" -ge 5 ] && [ "$2" -ge 5 ]; then
		ok "record bpf --wakers: chain-palette"
	else
		not_ok "record bpf --wakers: chain-palette" "blue $1, aqua $2, other $3 frames" \
			"$(grep -o '>[^<]*Off-Wake[^<]*<' "$out/w.svg" | head -2)" "$(cat "$out/svg.err")"
	fi
fi
expect_exit "record --wakers: not with --wall" 2 "$SCORCH" record --wakers --wall -- true
expect_exit "record --wakers: not on the perf backend" 2 "$SCORCH" record --backend perf --wakers -- true
