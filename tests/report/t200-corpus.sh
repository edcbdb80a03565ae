# scorch report on the real captures of tests/data/corpus (perf 6.1 on
# this machine kind). Oracles:
#   - perf script run here on the same file, folded by scorch collapse perf
#     (identical output expected: a, c, f1, f2 with several options);
#   - the shipped perf script text (e: DWARF; perf script here reproduces
#     it except for one [vdso] sample of the capture machine's kernel: share
#     of the weight), perf script here for b (identical), and the
#     shipped stackcollapse-perf.pl outputs (refs/): share of the weight on
#     identical stacks, printed in the test name.
# The workload binaries go into a private build-id cache and the capture
# kernel's kallsyms under a private HOME, as the corpus README describes.

. "${0%/*}/lib.sh"
corpus_setup

corpus_names="a-fp-mt c-kernel f1-cpuclock-F997 f2-two-events"
if [ -n "$corpus_why" ]; then
	for n in $corpus_names script-pid e-cxx-dwarf b-sys-gcc refs; do skip_or_fail "report corpus: $n" "$corpus_why"; done
else
	for c in $corpus_names; do
		xz -dc "$C/$c.data.xz" >"$K/$c.data"
		HOME=$H perf script -i "$K/$c.data" >"$K/$c.txt" 2>/dev/null
		opts="default --pid --tid --kernel --all"
		[ -n "${SCORCH_SANITIZED:-}" ] && opts="default --all"
		[ "$c" = f2-two-events ] && opts="default --event-filter=page-faults --event-filter=cpu-clock"
		bad=""
		for opt in $opts; do
			o=$opt
			[ "$o" = default ] && o=""
			"$SCORCH" collapse perf $o "$K/$c.txt" >"$K/$c.perf" 2>/dev/null
			HOME=$H "$SCORCH" report -q $o "$K/$c.data" >"$K/$c.ours" 2>"$K/err"
			if ! cmp -s "$K/$c.perf" "$K/$c.ours" || [ ! -s "$K/$c.perf" ]; then
				bad="$bad $opt: $(diff "$K/$c.perf" "$K/$c.ours" | grep -c '^[<>]') lines differ;"
			fi
		done
		if [ -z "$bad" ]; then
			ok "report corpus: $c identical to perf script | collapse perf ($opts)"
		else
			not_ok "report corpus: $c" "$bad"
		fi
		# --script reproduces perf script's text itself
		HOME=$H "$SCORCH" report -q --script "$K/$c.data" >"$K/$c.script" 2>"$K/err"
		if cmp -s "$K/$c.txt" "$K/$c.script"; then
			ok "report corpus: $c --script byte-identical to perf script"
		else
			not_ok "report corpus: $c --script" "$(diff "$K/$c.txt" "$K/$c.script" | head -6)"
		fi
	done

	# --script-pid: folding as perf script -F +pid prints ("comm pid/tid")
	xz -dc "$C/a-fp-mt.data.xz" >"$K/a.data"
	HOME=$H perf script -F +pid -i "$K/a.data" 2>/dev/null | "$SCORCH" collapse perf --tid >"$K/a.pid.perf" 2>/dev/null
	HOME=$H "$SCORCH" report -q --script-pid --tid "$K/a.data" >"$K/a.pid.ours"
	if [ -s "$K/a.pid.perf" ]; then
		test_cmp "report corpus: a-fp-mt --script-pid --tid (as perf script -F +pid | collapse perf --tid)" \
			"$K/a.pid.perf" "$K/a.pid.ours"
	else
		not_ok "report corpus: a-fp-mt --script-pid" "perf script -F +pid gave nothing"
	fi

	# --inline: report's frames through the libdw engine collapse perf
	# --inline uses, asked with the frame's fields, fold as the perf script
	# text does (the workload binaries are in the private build-id cache)
	if "$SCORCH" version | grep -q '+libdw'; then
		for c in a-fp-mt c-kernel; do
			"$SCORCH" collapse perf --inline --all "$K/$c.txt" >"$K/$c.inl.perf" 2>/dev/null
			HOME=$H "$SCORCH" report -q --inline --all "$K/$c.data" >"$K/$c.inl.ours"
			if [ -s "$K/$c.inl.perf" ] && ! cmp -s "$K/$c.inl.perf" "$K/$c.perf"; then
				test_cmp "report corpus: $c --inline --all (as perf script | collapse perf --inline --all)" \
					"$K/$c.inl.perf" "$K/$c.inl.ours"
			else
				not_ok "report corpus: $c --inline" "collapse perf --inline gave nothing new"
			fi
		done
	else
		not_ok "report corpus: --inline" "scorch built without elfutils (scripts/setup installs libdw-dev)"
	fi

	# DWARF capture against the shipped text (perf script here takes ~10 s)
	if [ -n "${SCORCH_SANITIZED:-}" ]; then
		skip "report corpus: e-cxx-dwarf" "large input, not under the sanitizers"
		skip "report corpus: b-sys-gcc" "large input, not under the sanitizers"
	else
		xz -dc "$C/e-cxx-dwarf.data.xz" >"$K/e.data"
		xz -dc "$C/e-cxx-dwarf.perf.txt.xz" | "$SCORCH" collapse perf >"$K/e.perf" 2>/dev/null
		HOME=$H "$SCORCH" report -q "$K/e.data" >"$K/e.ours"
		pct=$(weight_share "$K/e.ours" "$K/e.perf")
		if at_least "$pct" 99; then
			ok "report corpus: e-cxx-dwarf ($pct% of the weight on identical stacks)"
		else
			not_ok "report corpus: e-cxx-dwarf ($pct%, want >= 99)" "$(diff "$K/e.perf" "$K/e.ours" | head -6)"
		fi
		# --script: perf script's text itself, with the inlined frames perf
		# adds to DWARF-unwound stacks (81,460 "(inlined)" lines); samples
		# through [vdso] are left out (the capture machine's vdso unwinds
		# further than this one's)
		HOME=$H "$SCORCH" report -q --script "$K/e.data" | awk -v RS= '!/\(\[vdso\]\)/ { print; print "" }' >"$K/e.script"
		xz -dc "$C/e-cxx-dwarf.perf.txt.xz" | awk -v RS= '!/\(\[vdso\]\)/ { print; print "" }' >"$K/e.txt"
		if [ "$(grep -c '(inlined)$' "$K/e.txt")" -gt 80000 ]; then
			test_cmp "report corpus: e-cxx-dwarf --script as the shipped perf script text, inlined frames included" \
				"$K/e.txt" "$K/e.script"
		else
			not_ok "report corpus: e-cxx-dwarf --script" "the shipped text has no inlined frames"
		fi
		rm -f "$K/e.data"
		# b against perf script run here: its processes' binaries (rustc's
		# toolchain, a burn workload under /tmp) resolve differently from
		# the capture machine, so the shipped text is not the oracle.
		xz -dc "$C/b-sys-gcc.data.xz" >"$K/b.data"
		HOME=$H perf script -i "$K/b.data" 2>/dev/null | "$SCORCH" collapse perf >"$K/b.perf" 2>/dev/null
		HOME=$H "$SCORCH" report -q "$K/b.data" >"$K/b.ours"
		if cmp -s "$K/b.perf" "$K/b.ours" && [ -s "$K/b.perf" ]; then
			ok "report corpus: b-sys-gcc identical to perf script | collapse perf"
		else
			pct=$(weight_share "$K/b.ours" "$K/b.perf")
			not_ok "report corpus: b-sys-gcc ($pct% of the weight on identical stacks, $(diff "$K/b.perf" "$K/b.ours" | grep -c '^[<>]') lines differ)" \
				"$(diff "$K/b.perf" "$K/b.ours" | head -6)"
		fi
		# the idle task (pid 0, tid 0) with --script-pid: the script reads
		# the tid "0" as false and prints comm-?/0, as collapse perf does
		HOME=$H perf script -F +pid -i "$K/b.data" 2>/dev/null | "$SCORCH" collapse perf --tid |
			grep '^swapper-' >"$K/b.swapper.perf"
		HOME=$H "$SCORCH" report -q --script-pid --tid "$K/b.data" | grep '^swapper-' >"$K/b.swapper.ours"
		if grep -q '^swapper-?/0;' "$K/b.swapper.perf"; then
			test_cmp "report corpus: b-sys-gcc --script-pid --tid, swapper 0/0 as perf script -F +pid | collapse perf --tid" \
				"$K/b.swapper.perf" "$K/b.swapper.ours"
		else
			not_ok "report corpus: b-sys-gcc swapper" "perf script -F +pid | collapse perf --tid gave no swapper-?/0 line"
		fi
		# --per-cpu: each CPU's total is the sum of the periods perf script
		# prints for that CPU (a whole-chain cache keyed by the CPU XORed
		# into the address-space version once gave samples of one cc1 the
		# CPU of another's identical chain: 16.5 ms off)
		HOME=$H perf script -F cpu,period -i "$K/b.data" 2>/dev/null | tr -d '[]' |
			awk '{ c[$1 + 0] += $2 } END { for (k in c) printf "CPU %d %.0f\n", k, c[k] }' | sort >"$K/b.cpu.perf"
		HOME=$H "$SCORCH" report -q --per-cpu "$K/b.data" |
			awk '{ split($0, a, ";"); c[a[1]] += $NF } END { for (k in c) printf "%s %.0f\n", k, c[k] }' |
			sort >"$K/b.cpu.ours"
		if [ "$(wc -l <"$K/b.cpu.perf")" -ge 2 ]; then
			test_cmp "report corpus: b-sys-gcc --per-cpu, each CPU's total as perf script's periods for it" \
				"$K/b.cpu.perf" "$K/b.cpu.ours"
		else
			not_ok "report corpus: b-sys-gcc --per-cpu" "perf script -F cpu,period gave $(cat "$K/b.cpu.perf")"
		fi
		rm -f "$K/b.data"
	fi

	# the real stackcollapse-perf.pl outputs shipped with the corpus
	if [ -n "${SCORCH_SANITIZED:-}" ]; then
		skip "report corpus: refs" "not under the sanitizers"
	else
		shares=""
		low=""
		for c in a-fp-mt c-kernel f1-cpuclock-F997; do
			for v in default pid tid kernel all; do
				o="--$v"
				[ "$v" = default ] && o=""
				xz -dc "$C/refs/$c.$v.folded.xz" >"$K/ref"
				HOME=$H "$SCORCH" report -q $o "$K/$c.data" >"$K/ours"
				pct=$(weight_share "$K/ours" "$K/ref")
				at_least "$pct" 99 || low="$low $c.$v=$pct%"
			done
			shares="$shares $c=$pct%"
		done
		if [ -z "$low" ]; then
			ok "report corpus: refs (stackcollapse-perf.pl outputs; --all shares:$shares)"
		else
			not_ok "report corpus: refs below 99%:$low"
		fi
	fi
	rm -f "$K"/*.data "$K"/*.txt
fi
