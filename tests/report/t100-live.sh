# scorch report against perf itself, on fresh captures of tests/workloads/
# report_mt: frame pointers (identical output for every folding option),
# DWARF (>= 99% of the weight on identical stacks), pipe mode, zstd, two
# events, SVG. Needs perf and perf_event_open; skipped (counted) otherwise.

. "${0%/*}/lib.sh"
live_setup

live_names="kallsyms-copy kallsyms-copy-other-boot dwarf-script inline fp-default fp--pid fp--tid fp--kernel fp--all fp-event-filter fp-output-file dwarf pipe-file pipe-stdin zstd two-events two-events-filter svg html jit"
if [ -n "$live_why" ]; then
	for n in $live_names; do skip_or_fail "report live: $n" "$live_why"; done
else
	# frame pointers
	live_fp_data
	for opt in "" --pid --tid --kernel --all; do
		perf_folded "$L/fp.data" $opt >"$L/fp.perf$opt"
		"$SCORCH" report -q $opt "$L/fp.data" >"$L/fp.ours$opt" 2>"$L/err"
		if [ -s "$L/fp.perf$opt" ]; then
			test_cmp "report live: fp-${opt:-default} (identical to perf script | collapse perf)" \
				"$L/fp.perf$opt" "$L/fp.ours$opt"
		else
			not_ok "report live: fp-${opt:-default}" "perf script gave nothing"
		fi
	done
	ev=$(perf evlist -i "$L/fp.data" 2>/dev/null | head -1)
	perf_folded "$L/fp.data" --event-filter="$ev" >"$L/fp.perf-ev"
	"$SCORCH" report -q --event-filter "$ev" "$L/fp.data" >"$L/fp.ours-ev"
	test_cmp "report live: fp-event-filter ($ev)" "$L/fp.perf-ev" "$L/fp.ours-ev"
	"$SCORCH" report -q -o "$L/fp.out" "$L/fp.data"
	test_cmp "report live: fp-output-file (-o FILE equals stdout)" "$L/fp.ours" "$L/fp.out"

	# The kernel's symbols: where the recorded kernel runs, perf record's
	# copy of kallsyms in the build-id cache (HOME/.debug) is read in
	# place of /proc/kallsyms when it begins as /proc/kallsyms does up to
	# the first text symbol (the same kernel at the same offset: a file
	# reads faster than the kernel formats /proc/kallsyms). A copy whose
	# later names are marked shows it was read, frame for frame; one whose
	# first text symbol lies elsewhere (another boot) is not read.
	kid=$(perf buildid-list -k 2>/dev/null)
	KH=$L/khome
	kc="$KH/.debug/[kernel.kallsyms]/$kid"
	mkdir -p "$kc"
	mark_copy() { # AWK-FIRST-TEXT-LINE-EDIT: /proc/kallsyms, later names + "_cc"
		awk -v edit="$1" '!t && ($2 == "T" || $2 == "t") && $1 !~ /^0+$/ { t = 1; if (edit) $1 = "ffffffff00000000"; print; next }
			t && ($2 == "T" || $2 == "t") && NF == 3 { $3 = $3 "_cc" } { print }' /proc/kallsyms >"$kc/kallsyms"
	}
	# (a capture that is sure to hold kernel frames: report_mt's can have
	# none in a short run, as under the sanitizers)
	perf record -q -g -F 1999 -o "$L/k.data" -- dd if=/dev/zero of=/dev/null bs=64k count=20000 >/dev/null 2>&1
	"$SCORCH" report -q "$L/k.data" >"$L/k.ours"
	mark_copy 0
	HOME=$KH "$SCORCH" report -q "$L/k.data" >"$L/fp.cc" 2>"$L/cc.err"
	marked=$(grep -c '_cc[;[ ]' "$L/fp.cc")
	sed 's/_cc\([;[ ]\)/\1/g' "$L/fp.cc" >"$L/fp.cc-unmarked"
	if [ -n "$kid" ] && [ "$marked" -gt 0 ] && cmp -s "$L/fp.cc-unmarked" "$L/k.ours"; then
		ok "report live: kallsyms from the build-id cache's copy of this boot ($marked lines)"
	else
		not_ok "report live: kallsyms from the build-id cache's copy of this boot" \
			"build-id '$kid', $marked marked lines" "$(diff "$L/k.ours" "$L/fp.cc-unmarked" | head -5)" \
			"$(cat "$L/cc.err")"
	fi
	mark_copy 1
	HOME=$KH "$SCORCH" report -q "$L/k.data" >"$L/fp.cc2" 2>"$L/cc.err"
	test_cmp "report live: kallsyms from /proc when the copy's offset differs" "$L/k.ours" "$L/fp.cc2"

	# DWARF: user stacks unwound from the copied stack
	perf record -q --call-graph dwarf -F 499 -o "$L/dw.data" -- "$W" "$secs" >/dev/null 2>&1
	perf_folded "$L/dw.data" >"$L/dw.perf"
	"$SCORCH" report -q "$L/dw.data" >"$L/dw.ours"
	pct=$(weight_share "$L/dw.ours" "$L/dw.perf")
	if [ -s "$L/dw.perf" ] && at_least "$pct" 99; then
		ok "report live: dwarf ($pct% of perf's weight on identical stacks)"
	else
		not_ok "report live: dwarf ($pct% of perf's weight on identical stacks, want >= 99)" \
			"$(diff "$L/dw.perf" "$L/dw.ours" | head -10)"
	fi

	# --script: perf script's own text, unwinding and inline frames included
	perf script -i "$L/dw.data" >"$L/dw.txt" 2>/dev/null
	"$SCORCH" report -q --script "$L/dw.data" >"$L/dw.script"
	test_cmp "report live: dwarf --script (byte-identical to perf script)" "$L/dw.txt" "$L/dw.script"

	# --inline (stackcollapse-perf.pl's addr2line expansion) rewrites
	# frames but never drops or adds weight
	"$SCORCH" report -q --inline "$L/dw.data" >"$L/dw.inline"
	tw=$(awk '{ t += $NF } END { print t + 0 }' "$L/dw.ours")
	ti=$(awk '{ t += $NF } END { print t + 0 }' "$L/dw.inline")
	if [ -s "$L/dw.inline" ] && [ "$tw" = "$ti" ]; then
		ok "report live: --inline keeps the total weight ($ti)"
	else
		not_ok "report live: --inline keeps the total weight ($ti vs $tw)"
	fi

	# pipe mode, from a file and from stdin
	perf record -q -g -F 999 -o - -- "$W" "$secs" >"$L/pipe.data" 2>/dev/null
	perf_folded "$L/pipe.data" >"$L/pipe.perf"
	"$SCORCH" report -q "$L/pipe.data" >"$L/pipe.ours"
	test_cmp "report live: pipe-file" "$L/pipe.perf" "$L/pipe.ours"
	"$SCORCH" report -q - <"$L/pipe.data" >"$L/pipe.stdin"
	test_cmp "report live: pipe-stdin" "$L/pipe.perf" "$L/pipe.stdin"

	# zstd-compressed records
	perf record -q -z -g -F 999 -o "$L/z.data" -- "$W" "$secs" >/dev/null 2>&1
	perf_folded "$L/z.data" >"$L/z.perf"
	"$SCORCH" report -q "$L/z.data" >"$L/z.ours"
	if "$SCORCH" version | grep -q '+zstd\|zstd=y' || [ -s "$L/z.ours" ]; then
		test_cmp "report live: zstd" "$L/z.perf" "$L/z.ours"
	else
		not_ok "report live: zstd" "scorch built without zstd (scripts/setup installs libzstd-dev)"
	fi

	# two events: the first one seen is kept, or the one asked for
	perf record -q -e cpu-clock,page-faults -g -o "$L/two.data" -- "$W" "$secs" >/dev/null 2>&1
	perf_folded "$L/two.data" >"$L/two.perf"
	"$SCORCH" report -q "$L/two.data" >"$L/two.ours"
	test_cmp "report live: two-events" "$L/two.perf" "$L/two.ours"
	perf_folded "$L/two.data" --event-filter=page-faults >"$L/two.perf-pf"
	"$SCORCH" report -q --event-filter page-faults "$L/two.data" >"$L/two.ours-pf"
	test_cmp "report live: two-events-filter (page-faults)" "$L/two.perf-pf" "$L/two.ours-pf"

	# SVG through the flame graph renderer
	if "$SCORCH" report -q -o "$L/fp.svg" --title "report test" "$L/fp.data" 2>"$L/err" &&
		head -c 200 "$L/fp.svg" | grep -q '<svg\|<?xml' && grep -q '>outer' "$L/fp.svg" &&
		grep -q 'report test' "$L/fp.svg"; then
		ok "report live: svg"
	else
		not_ok "report live: svg" "$(head -3 "$L/err")"
	fi
	# the HTML viewer through the same renderer (names and title as JSON)
	if "$SCORCH" report -q -o "$L/fp.html" --title "report <test>" "$L/fp.data" 2>"$L/err" &&
		head -c 20 "$L/fp.html" | grep -q '<!DOCTYPE html>' && grep -q 'id="scorch-data"' "$L/fp.html" &&
		grep -q '"outer' "$L/fp.html" && grep -q 'report \\u003ctest\\u003e' "$L/fp.html"; then
		ok "report live: html"
	else
		not_ok "report live: html" "$(head -3 "$L/err")"
	fi

	# JIT code named in /tmp/perf-PID.map (x86-64 workload)
	J=$BUILD/workloads/report_jit
	if [ "$(uname -m)" != x86_64 ]; then
		skip "report live: jit" "needs x86-64 (the workload's JIT code is x86-64 machine code)"
	elif [ ! -x "$J" ]; then
		not_ok "report live: jit" "workload $J not built (make)"
	else
		perf record -q -g -F 999 -o "$L/jit.data" -- "$J" "$secs" >/dev/null 2>&1
		bad=""
		for opt in "" --jit --all; do
			perf_folded "$L/jit.data" $opt >"$L/jit.perf"
			"$SCORCH" report -q $opt "$L/jit.data" >"$L/jit.ours"
			cmp -s "$L/jit.perf" "$L/jit.ours" || bad="$bad ${opt:-default}"
		done
		if [ -z "$bad" ] && grep -q 'jitted_spin_\[j\]' "$L/jit.ours"; then
			ok "report live: jit (/tmp/perf-PID.map symbols, --jit and --all identical)"
		else
			not_ok "report live: jit (differs:$bad)" "$(head -3 "$L/jit.ours")"
		fi
		for m in $(perf script -i "$L/jit.data" -F pid 2>/dev/null | sort -u); do
			rm -f "/tmp/perf-$m.map"
		done
	fi
fi
