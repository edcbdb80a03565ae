# scorch record --off-cpu and --wall: blocked time per stack.
# Uses lib.sh's probes and helpers ($WL, $perf_ok, $bpf_ok, us, near).
# The workloads are built like distribution binaries (-O2, no frame
# pointers): DWARF unwinding finds their callers. Each prints what it
# measured itself, the independent expectation the graphs are held to.
#
# A backend joins these tests by its name in OFFCPU_BACKENDS.
. "${0%/*}/lib.sh"
OFFCPU_BACKENDS="perf bpf"
# sampling_started PID: wait (up to 20 s) until scorch PID samples: its
# BPF links or perf events are open (loading the bpf backend's programs
# takes over a second on a loaded machine: a workload started a fixed 1 s
# after scorch was half over before the program saw it), then a little
# more for what opens after them (the side band).
sampling_started() {
	i=0
	while [ $i -lt 200 ] && ! ls -l "/proc/$1/fd" 2>/dev/null | grep -q -E 'anon_inode:(bpf_link|\[perf_event\])'; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
}

offcpu_workloads

offcpu_tests() {
	be=$1 okv=$2 why=$3
	names="shares full-chains total-is-wall min-block max-block state-D state-S graph wall wall-colours wall-contended pid-target all-cpus"
	if [ "$okv" != 1 ] || [ "$oc_ok" != 1 ]; then
		[ "$oc_ok" = 1 ] || why="no C compiler for the workloads"
		for n in $names; do skip_or_fail "record $be --off-cpu: $n" "$why"; done
		return
	fi
	out=$TMPDIR/offcpu-$be
	mkdir -p "$out"

	# sleep_wait : pipe_wait : cond_wait block 6:3:1 (6, 3 and 1 threads,
	# each blocked nearly all the time). Held to the nominal shares and to
	# the workload's own clock readings around each wait, within 0.05.
	"$SCORCH" record --backend $be --off-cpu -o "$out/b.folded" -- "$WL/blocking" >"$out/b.out" 2>"$out/b.err"
	f=$out/b.folded
	s=$(us "$f" ';sleep_wait;') p=$(us "$f" ';pipe_wait;') c=$(us "$f" ';cond_wait;')
	ms=$(measured "$out/b.out" sleep_wait) mp=$(measured "$out/b.out" pipe_wait)
	mc=$(measured "$out/b.out" cond_wait)
	shares=$(awk -v s="$s" -v p="$p" -v c="$c" 'BEGIN { t = s + p + c; if (t) printf "%.3f %.3f %.3f", s / t, p / t, c / t }')
	mshares=$(awk -v s="$ms" -v p="$mp" -v c="$mc" 'BEGIN { t = s + p + c; if (t) printf "%.3f %.3f %.3f", s / t, p / t, c / t }')
	set -- $shares $mshares
	if [ $# = 6 ] && near "$1" 0.6 0.05 && near "$2" 0.3 0.05 && near "$3" 0.1 0.05 &&
		near "$1" "$4" 0.05 && near "$2" "$5" 0.05 && near "$3" "$6" 0.05; then
		ok "record $be --off-cpu: shares"
	else
		not_ok "record $be --off-cpu: shares" "sleep/pipe/cond: $shares (want 0.6/0.3/0.1; the workload measured $mshares)" \
			"$(sort -k2 -n "$f" | tail -5 | cut -c1-300)" "$(cat "$out/b.err")"
	fi
	# Every stack of the workload goes down to main or start_thread
	# (through libc's nanosleep, read, pthread_cond_wait, poll, vfork).
	# A new thread switched out before it calls its function (preempted on
	# a loaded machine) has start_thread as its leaf: also a whole chain.
	# So is a block of the dynamic loader before main (_start, _dl_start:
	# seen in a fresh clone, a page fault waiting for ld.so.cache's page
	# to be read in).
	bad=$(cut -d' ' -f1 "$f" | grep '^blocking;' | grep -v -E ';(main|start_thread)(;|$)|^blocking;_start;_dl_start(;|$)' |
		head -3 | cut -c1-300)
	nfun=$(grep -c -E '^blocking;clone3;start_thread;(sleeper|reader|waiter|idle)_main;(sleep|pipe|cond)_wait|only_blocks' "$f")
	if [ -z "$bad" ] && [ "$nfun" -ge 4 ]; then
		ok "record $be --off-cpu: full-chains"
	else
		not_ok "record $be --off-cpu: full-chains" "$nfun stacks of the waiting threads; broken:" "$bad"
	fi
	# The thread that only blocks (poll, 10 x 50 ms): its off-CPU time is
	# its wall time, within 5%.
	ob=$(us "$f" ';only_blocks;') wall=$(measured "$out/b.out" only_blocks_wall)
	if [ -n "$wall" ] && near "$ob" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 }')" \
		"$(awk -v w="$wall" 'BEGIN { print w * 1e6 * 0.05 }')"; then
		ok "record $be --off-cpu: total-is-wall"
	else
		not_ok "record $be --off-cpu: total-is-wall" "only_blocks: $ob us off-CPU, wall ${wall:-?} s" \
			"$(grep only_blocks "$f" | cut -c1-300)" "$(cat "$out/b.err")"
	fi

	# --min-block 25000: the 50 ms polls stay (90% of their time at
	# least), the 4 ms waits go, but for those a loaded machine stretched
	# to 25 ms or more (2 cores shared by a dozen runnable tasks leave a
	# thread waiting that long now and then; up to 16% of their time was
	# seen): they keep under a third of the time the workload measured.
	"$SCORCH" record --backend $be --off-cpu --min-block 25000 -o "$out/min.folded" -- "$WL/blocking" \
		>"$out/min.out" 2>"$out/min.err"
	ob=$(us "$out/min.folded" ';only_blocks;') short=$(us "$out/min.folded" ';(sleep|pipe|cond)_wait;')
	all=$(awk '{ printf "%d", ($2 + $4 + $6) * 1e6 }' "$out/min.out")
	wall=$(awk '{ printf "%d", $8 * 1e6 }' "$out/min.out")
	if [ "$ob" -ge $((wall * 9 / 10)) ] && [ "$short" -le $((all / 3)) ] &&
		grep -q 'blocks filtered out' "$out/min.err" && grep -q "off-CPU S+D ≥ 25000 us" "$out/min.err"; then
		ok "record $be --off-cpu: min-block"
	else
		not_ok "record $be --off-cpu: min-block" "only_blocks $ob us (wall $wall us); the 4 ms waits $short us of $all us" \
			"$(cat "$out/min.err")"
	fi
	# --max-block 25000: the 4 ms waits stay, the 50 ms polls go.
	"$SCORCH" record --backend $be --off-cpu --max-block 25000 -o "$out/max.folded" -- "$WL/blocking" \
		>"$out/max.out" 2>"$out/max.err"
	ob=$(us "$out/max.folded" ';only_blocks;') s=$(us "$out/max.folded" ';sleep_wait;')
	if [ "$s" -ge 300000 ] && [ "$ob" = 0 ]; then
		ok "record $be --off-cpu: max-block"
	else
		not_ok "record $be --off-cpu: max-block" "sleep_wait $s us, only_blocks $ob us" "$(cat "$out/max.err")"
	fi
	# --state D: only the vfork parent's uninterruptible wait (and nothing
	# of the sleeping threads); --state S: everything but it. libc's vfork
	# is __vfork in its symbol table; a DWARF-unwound frame there is
	# expanded as perf script prints it ("__libc_vfork+0x8 (inlined)",
	# addr2line's name, with libc's debug file).
	"$SCORCH" record --backend $be --off-cpu --state D -o "$out/d.folded" -- "$WL/blocking" \
		>"$out/d.out" 2>"$out/d.err"
	d=$(us "$out/d.folded" ';vfork_wait;(__vfork|__libc_vfork);') all=$(total "$out/d.folded")
	if [ "$d" -ge 50000 ] && [ "$(us "$out/d.folded" '(sleep_wait|pipe_wait|cond_wait|only_blocks);')" = 0 ] &&
		[ "$d" -ge $((all * 9 / 10)) ]; then
		ok "record $be --off-cpu: state-D"
	else
		not_ok "record $be --off-cpu: state-D" "__vfork $d us of $all" "$(sort -k2 -n "$out/d.folded" | tail -3 | cut -c1-300)"
	fi
	"$SCORCH" record --backend $be --off-cpu --state S -o "$out/s.folded" -- "$WL/blocking" \
		>"$out/s.out" 2>"$out/s.err"
	if [ "$(us "$out/s.folded" ';(__vfork|__libc_vfork);')" = 0 ] && [ "$(us "$out/s.folded" ';sleep_wait;')" -ge 300000 ] &&
		grep -q 'off-CPU S:' "$out/s.err"; then
		ok "record $be --off-cpu: state-S"
	else
		not_ok "record $be --off-cpu: state-S" "$(grep -E "__vfork|__libc_vfork" "$out/s.folded" | head -2 | cut -c1-300)" "$(cat "$out/s.err")"
	fi

	# The graph: its title, unit (us) and io palette (flamegraph.pl's:
	# rgb(r,r,b) with r 80..140, b 190..245).
	"$SCORCH" record -q --backend $be --off-cpu -o "$out/b.svg" -- "$WL/blocking" 20 >/dev/null 2>"$out/svg.err"
	fills=$(grep -o 'fill="rgb([0-9]*,[0-9]*,[0-9]*)"' "$out/b.svg" | sed 's/.*(\(.*\)).*/\1/' |
		awk -F, '{ n++; if (!($1 == $2 && $1 >= 80 && $1 <= 140 && $3 >= 190)) bad++ } END { print n + 0, bad + 0 }')
	if grep -q '<title>all ([0-9,]* us, 100%)' "$out/b.svg" &&
		grep -q '>Off-CPU Time · scorch record: /' "$out/b.svg" &&
		grep -q 'off-CPU S+D · [0-9.]* s · [0-9,]* blocks' "$out/b.svg" && [ "${fills#* }" = 0 ] && [ "${fills% *}" -ge 10 ]; then
		ok "record $be --off-cpu: graph"
	else
		not_ok "record $be --off-cpu: graph" "fills (all, not io): $fills" \
			"$(grep -o '<title>all[^<]*<\|>[^<]*Off-CPU[^<]*<\|off-CPU S+D[^<]*<' "$out/b.svg" | head -3)" "$(cat "$out/svg.err")"
	fi

	# --wall: half compute (5 ms of CPU), half nanosleep (5 ms, longer on a
	# loaded machine): [on-cpu] time is the workload's CPU time and
	# [off-cpu] its sleep, in the shares it measured (on_share_ok), within 0.05; the
	# on-CPU time is under compute, the off-CPU time under sleep_half.
	"$SCORCH" record --backend $be --wall -F 997 -o "$out/w.folded" -- "$WL/halfsleep" >"$out/w.out" 2>"$out/w.err"
	f=$out/w.folded
	on=$(us "$f" '\[on-cpu\]') off=$(us "$f" '\[off-cpu\]') run=$(us "$f" '\[runnable\]') t=$(total "$f")
	onc=$(us "$f" ';compute;.*\[on-cpu\]') offs=$(us "$f" ';sleep_half;.*\[off-cpu\]')
	mc=$(measured "$out/w.out" cpu) msl=$(measured "$out/w.out" sleep) mb=$(measured "$out/w.out" busy)
	want=$(awk -v c="$mc" -v s="$msl" 'BEGIN { if (c + s) printf "%.3f", c / (c + s) }')
	got=$(awk -v a="$on" -v b="$off" 'BEGIN { if (a + b) printf "%.3f", a / (a + b) }')
	if [ -n "$want" ] && [ -n "$got" ] && [ $((on + off + run)) = "$t" ] && on_share_ok "$got" "$mc" "$mb" "$msl" 0.05 &&
		[ "$onc" -ge $((on * 9 / 10)) ] && [ "$offs" -ge $((off * 9 / 10)) ]; then
		ok "record $be --off-cpu: wall"
	else
		not_ok "record $be --off-cpu: wall" "on-CPU share $got (the workload measured $want: cpu $mc s, busy $mb s, sleep $msl s);" \
			"on $on us ($onc under compute), off $off us ($offs under sleep_half), all $t us" "$(cat "$out/w.err")"
	fi
	# --wall's graph tells the kinds apart by colour too: its leaf frames
	# [on-cpu] in flamegraph.pl's red palette (r 200-255, g = b), [off-cpu]
	# in its io palette (r = g 80-140, b 190-245), [runnable] in its purple
	# (r = b); every other frame in the hot palette (r 205-255, b < 55).
	"$SCORCH" record -q --backend $be --wall -F 997 -o "$out/w.svg" -- "$WL/halfsleep" 20 >/dev/null 2>"$out/wsvg.err"
	kinds=$(grep -o '<title>[^<]*</title><rect [^>]*fill="rgb([0-9]*,[0-9]*,[0-9]*)"' "$out/w.svg" |
		sed 's/<title>\([^<]*\) ([^<]*<\/title>.*fill="rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))"/\1 \2 \3 \4/' |
		awk '{ b = $NF; g = $(NF - 1); r = $(NF - 2); k = $1 }
			k == "[on-cpu]" { on++; if (!(r >= 200 && g == b)) bad++; next }
			k == "[off-cpu]" { off++; if (!(r == g && r >= 80 && r <= 140 && b >= 190)) bad++; next }
			k == "[runnable]" { if (!(r == b && r >= 190)) bad++; next }
			{ other++; if (!(r >= 205 && b <= 55)) bad++ }
			END { printf "%d %d %d %d", on, off, other, bad }')
	set -- $kinds
	if [ $# = 4 ] && [ "$1" -ge 1 ] && [ "$2" -ge 1 ] && [ "$3" -ge 5 ] && [ "$4" = 0 ]; then
		ok "record $be --off-cpu: wall-colours"
	else
		not_ok "record $be --off-cpu: wall-colours" "[on-cpu] frames, [off-cpu] frames, others, wrong colours: $kinds" \
			"$(grep -o '<title>\[[a-z-]*\][^<]*</title><rect [^>]*fill="[^"]*"' "$out/w.svg" | head -4)" "$(cat "$out/wsvg.err")"
	fi
	# --wall under contention: the workload and a busy loop share CPU 0
	# (both pinned), so it waits for the CPU after each sleep and is
	# preempted while computing. Its [on-cpu] + [off-cpu] + [runnable]
	# time is its wall time (as it measured it) within 10%, and some of it
	# is [runnable].
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	"$SCORCH" record --backend $be --wall -F 997 -o "$out/c.folded" -- taskset -c 0 "$WL/halfsleep" 60 \
		>"$out/c.out" 2>"$out/c.err"
	kill $hog
	wait $hog 2>/dev/null
	f=$out/c.folded
	on=$(us "$f" '\[on-cpu\]') off=$(us "$f" '\[off-cpu\]') run=$(us "$f" '\[runnable\]') t=$(total "$f")
	wall=$(measured "$out/c.out" wall)
	if [ -n "$wall" ] && [ "$run" -gt 0 ] && [ $((on + off + run)) = "$t" ] &&
		near "$t" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 }')" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 * 0.1 }')"; then
		ok "record $be --off-cpu: wall-contended"
	else
		not_ok "record $be --off-cpu: wall-contended" "on $on + off $off + runnable $run us = $t us (all $t us);" \
			"the workload measured wall ${wall:-?} s: $(cat "$out/c.out")" "$(tail -1 "$out/c.err")"
	fi

	# -p: the workload's process and its vfork children alone (it runs
	# while sampling attaches: its first waits may be missed, the shares
	# hold), until it exits. A child vforked while the events are being
	# opened may come without its fork record: no name (":TID").
	"$WL/blocking" 400 >"$out/p.out" &
	bp=$!
	# (Attaching while it creates its 14 threads: -p must follow every
	# one, also those created while its events are being opened.)
	"$SCORCH" record --backend $be --off-cpu --annotate-pid -p $bp -o "$out/p.folded" 2>"$out/p.err"
	wait $bp
	others=$(grep -c -v -E "^(blocking|:[0-9]+)-[0-9]+;" "$out/p.folded")
	shares=$(awk -v pre="^blocking-$bp;" '$0 ~ pre { n = $NF; if ($0 ~ /;sleep_wait;/) s += n; else if ($0 ~ /;pipe_wait;/) p += n;
		else if ($0 ~ /;cond_wait;/) c += n }
		END { t = s + p + c; if (t) printf "%.3f %.3f %.3f", s / t, p / t, c / t }' "$out/p.folded")
	set -- $shares
	if [ "$others" = 0 ] && [ $# = 3 ] && near "$1" 0.6 0.05 && near "$2" 0.3 0.05 && near "$3" 0.1 0.05; then
		ok "record $be --off-cpu: pid-target"
	else
		not_ok "record $be --off-cpu: pid-target" "$others lines of other processes; sleep/pipe/cond $shares" \
			"$(head -3 "$out/p.folded" | cut -c1-200)" "$(cat "$out/p.err")"
	fi
	# -a: the whole system for 3 s; the workload, started once sampling
	# has begun, is one process among others, with the same shares and its
	# poll thread's wall time; unless the run says it lost some (records, or stacks to
	# stack-map collisions, which a busy system's thousands of stacks
	# cause on bpf): the shares must still hold.
	"$SCORCH" record --backend $be --off-cpu --annotate-pid -a -d 3 -o "$out/a.folded" 2>"$out/a.err" &
	sp=$!
	sampling_started $sp
	"$WL/blocking" >"$out/a.out" &
	bp=$!
	wait $bp
	wait $sp
	shares=$(awk -v pre="^blocking-$bp;" '$0 ~ pre { n = $NF; if ($0 ~ /;sleep_wait;/) s += n; else if ($0 ~ /;pipe_wait;/) p += n;
		else if ($0 ~ /;cond_wait;/) c += n }
		END { t = s + p + c; if (t) printf "%.3f %.3f %.3f", s / t, p / t, c / t }' "$out/a.folded")
	ob=$(us "$out/a.folded" "^blocking-$bp;.*;only_blocks;") wall=$(measured "$out/a.out" only_blocks_wall)
	procs=$(cut -d';' -f1 "$out/a.folded" | sort -u | wc -l)
	set -- $shares
	losses=$(grep -c -E ', [0-9]+ (lost|with a stack lost|blocks dropped)' "$out/a.err")
	if [ $# = 3 ] && near "$1" 0.6 0.05 && near "$2" 0.3 0.05 && near "$3" 0.1 0.05 && [ -n "$wall" ] &&
		{ [ "$losses" != 0 ] ||
			near "$ob" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 }')" "$(awk -v w="$wall" 'BEGIN { print w * 1e6 * 0.05 }')"; } &&
		[ "$procs" -ge 2 ]; then
		ok "record $be --off-cpu: all-cpus"
	else
		not_ok "record $be --off-cpu: all-cpus" "sleep/pipe/cond $shares; only_blocks $ob us, wall ${wall:-?} s; $procs processes" \
			"the workload measured: $(cat "$out/a.out")" \
			"$(tail -1 "$out/a.err")"
	fi
}

for be in $OFFCPU_BACKENDS; do
	eval "offcpu_tests $be \"\$${be}_ok\" \"\$${be}_why\""
done

# Usage errors (exit 2, before anything is recorded).
expect_exit "record --off-cpu: --min-block without --off-cpu" 2 "$SCORCH" record --min-block 10 -- true
expect_exit "record --off-cpu: --state X" 2 "$SCORCH" record --off-cpu --state X -- true
expect_exit "record --off-cpu: --state SDx" 2 "$SCORCH" record --off-cpu --state SDx -- true
expect_exit "record --off-cpu: --min-block 0" 2 "$SCORCH" record --off-cpu --min-block 0 -- true
expect_exit "record --off-cpu: --min-block above --max-block" 2 "$SCORCH" record --off-cpu --min-block 10 --max-block 5 -- true
expect_exit "record --off-cpu: with -F" 2 "$SCORCH" record --off-cpu -F 99 -- true
expect_exit "record --off-cpu: with -e" 2 "$SCORCH" record --off-cpu -e page-faults -- true
expect_exit "record --wall: with -e cycles" 2 "$SCORCH" record --wall -e cycles -- true
expect_exit "record --off-cpu: with --flamechart" 2 "$SCORCH" record --off-cpu --flamechart -o "$TMPDIR/x.svg" -- true
