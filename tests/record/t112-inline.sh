# DWARF-unwound user frames are named as perf names them: perf (6.1,
# unwind_entry/append_inlines) expands the inlined functions of the frames
# it unwound with DWARF, and scorch report does the same; record must too.
# A stock Debian gzip (no frame pointers) runs through libc's start code,
# where glibc 2.36's __libc_start_main is the symbol of code whose DWARF
# says __libc_start_main_impl: perf script and report print the latter.
# The expectation is perf record --call-graph dwarf + scorch report on the
# same command.
. "${0%/*}/lib.sh"

# root_chains FILE: the distinct chains from the process name down to
# __libc_start_call_main (the thread start to main's caller).
root_chains() {
	sed -n 's/^\(gzip;.*;__libc_start_call_main\);.*/\1/p' "$1" | sort -u
}

for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	name="record $be --call-graph dwarf: DWARF frames named as perf record --call-graph dwarf + report"
	if [ "$be_ok" != 1 ]; then
		skip_or_fail "$name" "$be_why"
		continue
	fi
	if ! command -v gzip >/dev/null 2>&1 || ! command -v perf >/dev/null 2>&1 ||
		! grep -q 'elfutils=y' "$BUILD/features" 2>/dev/null; then
		not_ok "$name" "needs gzip, perf and a build with elfutils (scripts/setup installs gzip, linux-perf, libdw-dev)"
		continue
	fi
	out=$TMPDIR/inline-$be
	mkdir -p "$out"
	[ -f "$out/../inline.txt" ] ||
		awk 'BEGIN { srand(11); for (i = 0; i < 150000; i++) printf "%d %x\n", rand() * 1e9, rand() * 1e12 }' \
			>"$out/../inline.txt"
	"$SCORCH" record --backend $be --call-graph dwarf -F 499 -o "$out/r.folded" -- \
		gzip -9 -c "$out/../inline.txt" >/dev/null 2>"$out/err"
	if ! perf record -q -F 499 --call-graph dwarf -o "$out/p.data" -- gzip -9 -c "$out/../inline.txt" \
		>/dev/null 2>&1 || ! "$SCORCH" report -i "$out/p.data" >"$out/p.folded" 2>/dev/null; then
		not_ok "$name" "perf record --call-graph dwarf, or scorch report of its capture, failed"
		continue
	fi
	root_chains "$out/r.folded" >"$out/r.chains"
	root_chains "$out/p.folded" >"$out/p.chains"
	if [ -s "$out/p.chains" ] && cmp -s "$out/r.chains" "$out/p.chains"; then
		ok "$name"
	else
		not_ok "$name" "chains from the thread start differ (record, then perf + report):" \
			"$(cat "$out/r.chains")" "$(cat "$out/p.chains")" "$(cat "$out/err")"
	fi
done

# --no-inline (as report's): the same frames without their inlined
# functions, so the same chains as report --no-inline of the perf capture.
for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	name="record $be --no-inline: DWARF frames named as report --no-inline names them"
	out=$TMPDIR/inline-$be
	if [ "$be_ok" != 1 ] || [ ! -f "$out/p.data" ]; then
		skip_or_fail "$name" "${be_why:-no perf capture from the test above}"
		continue
	fi
	"$SCORCH" record --backend $be --call-graph dwarf --no-inline -F 499 -o "$out/rn.folded" -- \
		gzip -9 -c "$out/../inline.txt" >/dev/null 2>"$out/errn"
	"$SCORCH" report --no-inline -i "$out/p.data" >"$out/pn.folded" 2>/dev/null
	root_chains "$out/rn.folded" >"$out/rn.chains"
	root_chains "$out/pn.folded" >"$out/pn.chains"
	if [ -s "$out/pn.chains" ] && cmp -s "$out/rn.chains" "$out/pn.chains" &&
		! cmp -s "$out/rn.chains" "$out/r.chains"; then
		ok "$name"
	else
		not_ok "$name" "chains (record --no-inline, report --no-inline, record):" \
			"$(cat "$out/rn.chains")" "$(cat "$out/pn.chains")" "$(cat "$out/r.chains")" "$(cat "$out/errn")"
	fi
done
