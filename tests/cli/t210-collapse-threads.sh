# scorch collapse perf -j N: the output and every message are those of one
# thread, whatever the split. With several threads the first parse of each
# stack block is done by one chunk only and the others send it their counts
# (src/collapse/perf_chunk.h); a block that needs the line-by-line path
# (a line neither frame nor comment) makes the run start again unshared, so
# that messages stay in input order. Inputs: real captures of the corpus,
# and one with 25 broken blocks after its first third.
. "${0%/*}/../lib.sh"
ct=$TMPDIR/collapse-threads
mkdir -p "$ct"
xz -dc tests/data/corpus/f1-cpuclock-F997.perf.txt.xz >"$ct/f1.txt"
xz -dc tests/data/corpus/f2-two-events.perf.txt.xz >"$ct/f2.txt"
awk -v from="$(($(wc -l <"$ct/f1.txt") / 3))" '
	{ print }
	NR > from && n < 25 && /^\t/ && NR % 499 == 0 { print "not a frame line " n++ }' "$ct/f1.txt" >"$ct/bad.txt"

ct_same() { # name file options...
	name=$1 f=$2
	shift 2
	"$SCORCH" collapse perf -j 1 "$@" "$f" >"$ct/one.out" 2>"$ct/one.err"
	rc1=$?
	bad=
	for j in 2 3 7; do
		"$SCORCH" collapse perf -j $j "$@" "$f" >"$ct/n.out" 2>"$ct/n.err"
		rc=$?
		[ "$rc" = "$rc1" ] || bad="$bad -j$j:exit $rc (one thread: $rc1)"
		cmp -s "$ct/one.out" "$ct/n.out" || bad="$bad -j$j:output"
		cmp -s "$ct/one.err" "$ct/n.err" || bad="$bad -j$j:messages"
	done
	if [ -z "$bad" ] && { [ "$rc1" != 0 ] || [ -s "$ct/one.out" ]; }; then
		ok "$name"
	else
		not_ok "$name" "differs from one thread:$bad" "$(head -3 "$ct/n.err")"
	fi
}

ct_same "cli/collapse threads: capture, as one thread" "$ct/f1.txt"
ct_same "cli/collapse threads: capture --tid, as one thread" "$ct/f1.txt" --tid
ct_same "cli/collapse threads: two events (one filtered), as one thread" "$ct/f2.txt"
ct_same "cli/collapse threads: two events --pid --event-filter page-faults" "$ct/f2.txt" --pid --event-filter page-faults
ct_same "cli/collapse threads: broken blocks, same output and warnings" "$ct/bad.txt"
ct_same "cli/collapse threads: broken blocks --strict, same error" "$ct/bad.txt" --strict
ct_same "cli/collapse threads: broken blocks --tid --kernel" "$ct/bad.txt" --tid --kernel
"$SCORCH" collapse perf -j 1 "$ct/bad.txt" >/dev/null 2>"$ct/one.err"
if [ "$(grep -c 'not a frame line' "$ct/one.err")" -ge 10 ]; then
	ok "cli/collapse threads: the broken blocks are reported (one thread)"
else
	not_ok "cli/collapse threads: the broken blocks are reported (one thread)" "$(head -3 "$ct/one.err")"
fi

# A flame chart drawn from perf script text: every sample is an event, in
# input order (stacks merge only when adjacent), whatever the input's size.
# Before: the block cache added a repeated stack's periods up and counted
# them at its end (a, b, a drew as b then a x2), and an input of 4 MB or
# more was split between threads of which only the first kept its events.
printf 'proc 1 1.0: 1 cpu-clock:\n\tffff a (/x)\n\nproc 1 2.0: 1 cpu-clock:\n\tffff b (/x)\n\nproc 1 3.0: 1 cpu-clock:\n\tffff a (/x)\n\n' >"$ct/aba.txt"
"$SCORCH" flamegraph --dump-frames --flamechart "$ct/aba.txt" 2>&1 | awk -F'\t' '$9 == "a" || $9 == "b" { printf "%s@%s ", $9, $2 }' >"$ct/aba.got"
if [ "$(cat "$ct/aba.got")" = "a@10.0 b@403.3 a@796.7 " ]; then
	ok "cli/collapse threads: flame chart of perf text in sample order"
else
	not_ok "cli/collapse threads: flame chart of perf text in sample order" "frames: $(cat "$ct/aba.got") (want a, b, a left to right)"
fi
xz -dc tests/data/corpus/e-cxx-dwarf.perf.txt.xz >"$ct/e.txt" # 25 MB: split between threads
"$SCORCH" flamegraph --dump-frames --flamechart "$ct/e.txt" 2>/dev/null | sed -n 2p | cut -f1 >"$ct/chart.all"
"$SCORCH" flamegraph --dump-frames "$ct/e.txt" 2>/dev/null | sed -n 2p | cut -f1 >"$ct/graph.all"
if [ -s "$ct/graph.all" ] && cmp -s "$ct/chart.all" "$ct/graph.all"; then
	ok "cli/collapse threads: flame chart of 25 MB of perf text has every sample"
else
	not_ok "cli/collapse threads: flame chart of 25 MB of perf text has every sample" "chart: $(cat "$ct/chart.all"); graph: $(cat "$ct/graph.all")"
fi
