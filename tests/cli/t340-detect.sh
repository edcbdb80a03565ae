# Format detection that one line cannot fool (issue 30 item 9): folded
# input is recognised from most of its first lines, so a first line with a
# trailing space or a '# comment' is one bad line (skipped, as flamegraph.pl
# skips it), and collapse and flamegraph read every input alike. The
# expected stacks come from flamegraph.pl's own line pattern, in Perl.
. "${0%/*}/../lib.sh"
dt=$TMPDIR/detect
mkdir -p "$dt"

# flamegraph.pl's reading of folded text: the lines matching its pattern.
dt_perl_fold() {
	perl -ne 'chomp; my ($s, $c) = /^(.*)\s+?(\d+(?:\.\d*)?)$/; $n{$s} += $c if defined $c;
		END { print "$_ $n{$_}\n" for sort keys %n }' "$1"
}

printf 'a;b 1 \na;c 2\na;b 3\nd 4\n' >"$dt/trailing.folded"
printf '# made by hand\na;b 1\na;c 2\na;b 3\n' >"$dt/comment.folded"
printf 'a;b 1\n\tnot a stack\na;c 2\nno count here\nd 4\n' >"$dt/noisy.folded"
for f in trailing comment noisy; do
	dt_perl_fold "$dt/$f.folded" >"$dt/$f.want"
	expect_exit "detect: collapse of $f first line exits 0" 0 "$SCORCH" collapse "$dt/$f.folded"
	test_cmp "detect: collapse of $f reads it as folded (as flamegraph.pl)" "$dt/$f.want" "$TMPDIR/out"
	expect_exit "detect: flamegraph of $f exits 0" 0 "$SCORCH" flamegraph -o "$dt/$f.svg" "$dt/$f.folded"
	"$SCORCH" flamegraph -o "$dt/$f.via.svg" "$dt/$f.want" 2>/dev/null
	test_cmp "detect: flamegraph of $f draws what collapse read" "$dt/$f.via.svg" "$dt/$f.svg"
done

# perf text whose only event has no blank line after it folds to nothing
# (as stackcollapse-perf.pl): named, exit 0 as the script; detected, an error.
f=$CONFORMANCE/inferno/tests/data/collapse-perf/single-event.txt
expect_exit "detect: collapse perf of input that folds to nothing exits 0 (as the script)" 0 "$SCORCH" collapse perf "$f"
expect_exit "detect: detected input that folds to nothing exits 1" 1 "$SCORCH" collapse "$f"
expect_grep "detect: ... saying no stacks were found" "no stacks found (read as perf" "$TMPDIR/err"
if [ ! -s "$TMPDIR/out" ]; then ok "detect: ... and writes nothing"; else not_ok "detect: ... and writes nothing"; fi
: >"$dt/empty.txt"
expect_exit "detect: empty input still exits 0" 0 "$SCORCH" collapse "$dt/empty.txt"
