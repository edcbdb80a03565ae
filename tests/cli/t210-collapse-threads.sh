# scorch collapse perf -j N: the output and every message are those of one
# thread, whatever the split. With several threads the first parse of each
# stack block is done by one chunk only and the others send it their counts
# (src/collapse/perf_chunk.h); a block that needs the line-by-line path
# (a line neither frame nor comment) makes the run start again unshared, so
# that messages stay in input order. Inputs: real captures of the corpus,
# and one with 25 broken blocks after its first third.
# Sourced by tests/cli/run (lib.sh loaded).
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
