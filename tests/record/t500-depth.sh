# Stacks that reach the depth limit are marked: a [truncated] frame under
# the process name, where the root end was cut (the kernel walks from the
# leaf). The deep workload recurses DEPTH frames, then spins.
# Uses lib.sh's $WL and probes.
. "${0%/*}/lib.sh"

kmax=$(cat /proc/sys/kernel/perf_event_max_stack 2>/dev/null || echo 127)

# spin_lines FILE: the distinct "fields marker" of the lines whose leaf is
# spin (user-space samples: no kernel frames to count).
spin_lines() { awk -F';' '$NF ~ /^spin [0-9]+$/ { print NF, $2 }' "$1" | sort -u; }

for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		for n in "stacks deeper than the limit are marked at the root end" \
			"stacks within the limit are whole and unmarked" "--max-stack N cuts at N" \
			"--max-stack 2 caps kernel and user frames together (fp)" \
			"--max-stack 2 caps kernel and user frames together (dwarf)" \
			"--max-stack counts inlined functions as frames (dwarf)"; do
			skip_or_fail "record $be: $n" "$why"
		done
		continue
	fi
	# 73 frames more than the limit: every spin stack is cut, holds the
	# limit's frames exactly, and is marked right under the process name.
	# (bpf: its stack map holds 127 frames even where the sysctl allows more.)
	# The kernel's limit binds the frame-pointer walk (--call-graph fp);
	# DWARF unwinding, the default, has its own (t110-unwind.sh).
	lim=$kmax
	[ $be = bpf ] && [ "$lim" -gt 127 ] && lim=127
	"$SCORCH" record -q --backend $be --call-graph fp -F 499 -o "$TMPDIR/deep.folded" -- "$WL/deep" $((lim + 73)) 0.3 \
		2>"$TMPDIR/deep.err"
	got=$(spin_lines "$TMPDIR/deep.folded")
	if [ "$got" = "$((lim + 2)) [truncated]" ] && ! grep -q ';main;' "$TMPDIR/deep.folded"; then
		ok "record $be: stacks deeper than the limit are marked at the root end"
	else
		not_ok "record $be: stacks deeper than the limit are marked at the root end" \
			"fields/marker of spin lines: $got (want $((lim + 2)) [truncated])" "$(cat "$TMPDIR/deep.err")"
	fi
	# 50 frames: the whole stack, from libc's start through main.
	"$SCORCH" record -q --backend $be -F 499 -o "$TMPDIR/shallow.folded" -- "$WL/deep" 50 0.3 2>"$TMPDIR/deep.err"
	if [ -s "$TMPDIR/shallow.folded" ] && ! grep -q 'truncated' "$TMPDIR/shallow.folded" &&
		[ "$(grep -c ';spin ' "$TMPDIR/shallow.folded")" = "$(grep -c ';main;recurse;.*;spin ' "$TMPDIR/shallow.folded")" ]; then
		ok "record $be: stacks within the limit are whole and unmarked"
	else
		not_ok "record $be: stacks within the limit are whole and unmarked" "$(head -c 300 "$TMPDIR/shallow.folded")"
	fi
	# --max-stack 40 on 100 frames of recursion: cut at 40.
	"$SCORCH" record -q --backend $be --max-stack 40 -F 499 -o "$TMPDIR/m40.folded" -- "$WL/deep" 100 0.3 \
		2>"$TMPDIR/deep.err"
	got=$(spin_lines "$TMPDIR/m40.folded")
	if [ "$got" = "42 [truncated]" ]; then
		ok "record $be: --max-stack N cuts at N"
	else
		not_ok "record $be: --max-stack N cuts at N" "fields/marker of spin lines: $got (want 42 [truncated])" \
			"$(cat "$TMPDIR/deep.err")"
	fi
	# Kernel and user frames (system calls) under --max-stack 2: at most
	# two frames below the process name, and one marker, right under it.
	for cg in fp dwarf; do
		"$SCORCH" record -q --backend $be --call-graph $cg --max-stack 2 -F 499 -o "$TMPDIR/m2.folded" \
			-- "$WL/syscalls" 0.3 2>"$TMPDIR/m2.err"
		bad=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); marks = 0; frames = 0
			for (i = 2; i <= n; i++) if (f[i] == "[truncated]") { marks++; if (i != 2) marks += 10 } else frames++
			if (marks > 1 || frames > 2) print }' "$TMPDIR/m2.folded" | head -3)
		if [ -s "$TMPDIR/m2.folded" ] && [ -z "$bad" ] && grep -q '^syscalls;\[truncated\];' "$TMPDIR/m2.folded"; then
			ok "record $be: --max-stack 2 caps kernel and user frames together ($cg)"
		else
			not_ok "record $be: --max-stack 2 caps kernel and user frames together ($cg)" "$bad" \
				"$(head -3 "$TMPDIR/m2.folded")" "$(cat "$TMPDIR/m2.err")"
		fi
	done
	# One address, three functions (tests/workloads/inlined.c: mix inlined
	# into churn inlined into work, as perf script names the address):
	# --max-stack N keeps the N leaf-most names, even within one address.
	bad=
	for n in 1 2 3; do
		"$SCORCH" record -q --backend $be --call-graph dwarf --max-stack $n -F 499 \
			-o "$TMPDIR/in$n.folded" -- "$WL/inlined" 0.3 2>"$TMPDIR/in.err"
		want=$(echo "work;churn;mix" | cut -d';' -f$((4 - n))-)
		# the stacks spinning in mix, and every stack's frames below the marker
		got=$(awk -v want="inlined;[truncated];$want" '{ sub(/ [0-9]+$/, "") }
			$0 ~ /;mix$/ { if ($0 == want) good++; else other++ }
			{ frames = 0; for (i = split($0, f, ";"); i > 1; i--) frames += f[i] != "[truncated]"
			  if (frames > n) over++ }
			END { print good + 0, other + 0, over + 0 }' n=$n "$TMPDIR/in$n.folded")
		set -- $got
		[ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" = 0 ] ||
			bad="$bad --max-stack $n: $1 stacks 'inlined;[truncated];$want', $2 other stacks in mix, $3 over $n frames;"
	done
	if [ -z "$bad" ]; then
		ok "record $be: --max-stack counts inlined functions as frames (dwarf)"
	else
		not_ok "record $be: --max-stack counts inlined functions as frames (dwarf)" "$bad" \
			"$(head -3 "$TMPDIR/in2.folded")" "$(cat "$TMPDIR/in.err")"
	fi
done

# Above the kernel's limit with the kernel's walk: an error that names the
# sysctl (never changed for the user), and nothing runs.
if [ "$perf_ok" = 1 ]; then
	over=$((kmax + 100))
	"$SCORCH" record --call-graph fp --max-stack $over -- "$WL/deep" 10 5 >/dev/null 2>"$TMPDIR/over.err"
	st=$?
	if [ "$st" = 1 ] && grep -q "sysctl kernel.perf_event_max_stack=$over" "$TMPDIR/over.err" &&
		[ "$(cat /proc/sys/kernel/perf_event_max_stack)" = "$kmax" ]; then
		ok "record: --max-stack above the kernel's limit says how to raise it"
	else
		not_ok "record: --max-stack above the kernel's limit says how to raise it" "exit $st" "$(cat "$TMPDIR/over.err")"
	fi
else
	skip_or_fail "record: --max-stack above the kernel's limit says how to raise it" "$perf_why"
fi
expect_exit "record: --max-stack 0 is a usage error" 2 "$SCORCH" record --max-stack 0 -- true

# DWARF unwinding (the default call graph) is not bound by the kernel's
# limit: --max-stack above it is accepted and a 200-frame stack is whole.
if [ "$perf_ok" != 1 ]; then
	skip_or_fail "record: --max-stack above the kernel's limit with DWARF unwinding" "$perf_why"
elif ! "$SCORCH" version | grep -q '+libdw'; then
	not_ok "record: --max-stack above the kernel's limit with DWARF unwinding" "built without libdw (scripts/setup installs libdw-dev)"
else
	"$SCORCH" record -q --backend perf --max-stack $((kmax + 200)) -F 499 -o "$TMPDIR/dw.folded" -- "$WL/deep" 200 0.3 \
		2>"$TMPDIR/dw.err"
	st=$?
	whole=$(grep -c ';main;recurse;.*;spin ' "$TMPDIR/dw.folded")
	cut=$(grep -c 'truncated' "$TMPDIR/dw.folded")
	if [ "$st" = 0 ] && [ "$whole" -gt 0 ] && [ "$cut" = 0 ]; then
		ok "record: --max-stack above the kernel's limit with DWARF unwinding"
	else
		not_ok "record: --max-stack above the kernel's limit with DWARF unwinding" \
			"exit $st, $whole whole spin stacks, $cut truncated" "$(cat "$TMPDIR/dw.err")"
	fi
fi
