# scorch record's familiar flags: perf record's and bcc profile's spellings.
# Uses lib.sh's workloads and probes ($WL, $perf_ok, $bpf_ok).
. "${0%/*}/lib.sh"

for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		for n in "-C: only samples of that CPU" "-U and -K" "--tid, -L and -t agree" \
			"-g and -f are accepted"; do
			skip_or_fail "record $be: $n" "$why"
		done
		continue
	fi
	# -C N: every stack has a "CPU N" root (--per-cpu) and N is the one
	# asked for; busy processes on every CPU make the others likely.
	last=$(($(getconf _NPROCESSORS_CONF) - 1))
	"$WL/burn" 2 &
	b1=$!
	"$WL/burn" 2 &
	b2=$!
	"$SCORCH" record -q --backend $be -a -C "$last" --per-cpu -d 0.6 -F 299 -o "$TMPDIR/cpu.folded" \
		2>"$TMPDIR/cpu.err"
	kill $b1 $b2 2>/dev/null
	wait $b1 $b2 2>/dev/null
	others=$(grep -c -v "^CPU $last;" "$TMPDIR/cpu.folded")
	if [ -s "$TMPDIR/cpu.folded" ] && [ "$others" = 0 ]; then
		ok "record $be: -C: only samples of that CPU"
	else
		not_ok "record $be: -C: only samples of that CPU" "$others lines of other CPUs" \
			"$(head -3 "$TMPDIR/cpu.folded")" "$(cat "$TMPDIR/cpu.err")"
	fi
	# bcc's -U (user stacks only) and -K (kernel stacks only).
	"$SCORCH" record -q --backend $be --kernel -U -F 199 -o "$TMPDIR/U.folded" -- "$WL/syscalls" 0.3 2>/dev/null
	"$SCORCH" record -q --backend $be --kernel -K -F 199 -o "$TMPDIR/K.folded" -- "$WL/syscalls" 0.3 2>/dev/null
	if [ -s "$TMPDIR/U.folded" ] && ! has_kernel_frames "$TMPDIR/U.folded" && grep -q ';main' "$TMPDIR/U.folded" &&
		[ -s "$TMPDIR/K.folded" ] && ! grep -q ';main' "$TMPDIR/K.folded" && grep -q '_\[k\]' "$TMPDIR/K.folded"; then
		ok "record $be: -U and -K"
	else
		not_ok "record $be: -U and -K" "$(head -2 "$TMPDIR/U.folded")" "$(head -2 "$TMPDIR/K.folded")"
	fi
	# perf's --tid and bcc's -L mean -t: only that thread, with the
	# workload's own name.
	res=""
	for f in --tid -L -t; do
		"$WL/burn" 2 &
		bp=$!
		sleep 0.1
		rm -f "$TMPDIR/L.folded" # a failed run must not leave the last one's stacks
		"$SCORCH" record -q --backend $be $f $bp -d 0.5 -F 199 --annotate-pid -o "$TMPDIR/L.folded" 2>/dev/null
		kill $bp 2>/dev/null
		wait $bp 2>/dev/null
		res="$res $f:$(grep -c -v "^burn-$bp;" "$TMPDIR/L.folded"):$(grep -c ';main;burn_' "$TMPDIR/L.folded")"
	done
	if echo "$res" | grep -q -E '^( -?-?[a-zL]+:0:[1-9][0-9]*){3}$'; then
		ok "record $be: --tid, -L and -t agree"
	else
		not_ok "record $be: --tid, -L and -t agree" "option:lines of others:burn lines =$res"
	fi
	# -g (perf) and -f (bcc) change nothing: the folded stacks still come.
	"$SCORCH" record -q --backend $be -g -f -F 499 -- "$WL/burn" 0.2 >"$TMPDIR/gf.folded" 2>"$TMPDIR/gf.err"
	st=$?
	if [ "$st" = 0 ] && grep -q '^burn;.*main;burn_a ' "$TMPDIR/gf.folded"; then
		ok "record $be: -g and -f are accepted"
	else
		not_ok "record $be: -g and -f are accepted" "exit $st" "$(cat "$TMPDIR/gf.err")"
	fi
done

# bcc's --stack-storage-size is --stack-map-size: with one entry, samples are sent whole.
if [ "$bpf_ok" = 1 ]; then
	"$SCORCH" record --backend bpf --call-graph fp --stack-storage-size 1 -F 299 -o "$TMPDIR/sss.folded" -- "$WL/burn" 0.5 \
		2>"$TMPDIR/sss.err"
	expect_grep "record bpf: --stack-storage-size sizes the stack map" '([1-9][0-9]* sent whole' \
		"$TMPDIR/sss.err"
else
	skip_or_fail "record bpf: --stack-storage-size sizes the stack map" "$bpf_why"
fi

expect_exit "record: -f with -o FILE.svg is a usage error" 2 "$SCORCH" record -f -o "$TMPDIR/f.svg" -- true
expect_exit "record: -C of a CPU that does not exist is a usage error" 2 "$SCORCH" record -C 99999 -- true
expect_exit "record: -C with a bad list is a usage error" 2 "$SCORCH" record -C 1-x -- true
expect_exit "record: --pid needs a PID (it is -p, not an annotation)" 2 "$SCORCH" record --pid -- true

# A recorded graph counts samples and says so in its tooltips.
if [ "$perf_ok" = 1 ] || [ "$bpf_ok" = 1 ]; then
	"$SCORCH" record -q -F 499 -o "$TMPDIR/unit.svg" -- "$WL/burn" 0.2 2>"$TMPDIR/unit.err"
	got=$(grep -o '<title>[^<]*</title>' "$TMPDIR/unit.svg" | sed -n '2s/.*(\([0-9,.]*\) \([^,]*\), .*/\2/p')
	if [ "$got" = samples ]; then
		ok "record: a graph's tooltips count samples"
	else
		not_ok "record: a graph's tooltips count samples" "unit '$got'" "$(cat "$TMPDIR/unit.err")"
	fi
else
	skip_or_fail "record: a graph's tooltips count samples" "$perf_why"
fi
