# Exact counts (issue 30 item 8): whole counts add as 64-bit integers and
# print exactly in every output; a sum past 2^64 - 1 is an error naming the
# line. Expectations come from Perl's bigint arithmetic and `go tool pprof`.
. "${0%/*}/../lib.sh"
ct=$TMPDIR/counts
mkdir -p "$ct"

# 2^53 + 1: the first whole number a double cannot hold.
printf 'a;b 9007199254740992\na;b 1\na;c 3\n' >"$ct/big.folded"
perl -Mbigint -ne '/^(.*) (\d+)$/ and $n{$1} += $2; END { print "$_ $n{$_}\n" for sort keys %n }' \
	"$ct/big.folded" >"$ct/big.want"
expect_exit "counts: collapse of counts past 2^53 exits 0" 0 "$SCORCH" collapse "$ct/big.folded"
test_cmp "counts: collapse adds past 2^53 exactly (as Perl)" "$ct/big.want" "$TMPDIR/out"

printf 'a 18446744073709551615\n' >"$ct/max.folded"
expect_exit "counts: 2^64 - 1 is read" 0 "$SCORCH" collapse "$ct/max.folded"
test_cmp "counts: 2^64 - 1 prints exactly" "$ct/max.folded" "$TMPDIR/out"

cp "$ct/big.folded" "$ct/big2.folded"
perl -Mbigint -ne '/^(.*) (\d+)$/ and $n{$1} += $2; END { print "$_ $n{$_}\n" for sort keys %n }' \
	"$ct/big.folded" "$ct/big2.folded" >"$ct/merge.want"
expect_exit "counts: merge of counts past 2^53 exits 0" 0 "$SCORCH" merge "$ct/big.folded" "$ct/big2.folded"
test_cmp "counts: merge sums exactly" "$ct/merge.want" "$TMPDIR/out"

# One stack's sum past 2^64 - 1: an error naming file and line 3.
printf 'a 18446744073709551615\nb 1\na 1\n' >"$ct/over.folded"
expect_exit "counts: a stack's sum past 2^64 - 1 exits 1" 1 "$SCORCH" collapse "$ct/over.folded"
expect_grep "counts: the overflow names the line" "over.folded:3:" "$TMPDIR/err"
expect_exit "counts: flamegraph refuses it too" 1 "$SCORCH" flamegraph "$ct/over.folded"
printf 'a 1\nb 123456789012345678901\n' >"$ct/huge.folded"
expect_exit "counts: a count past 2^64 - 1 exits 1" 1 "$SCORCH" collapse "$ct/huge.folded"
expect_grep "counts: the huge count names the line" "huge.folded:2:" "$TMPDIR/err"
# Sums over stacks past 2^64 - 1: no graph total can be drawn.
printf 'a 18446744073709551615\nb 1\n' >"$ct/total.folded"
expect_exit "counts: an SVG whose total passes 2^64 - 1 exits 1" 1 "$SCORCH" flamegraph "$ct/total.folded"
expect_grep "counts: ... and says so" "2^64 - 1" "$TMPDIR/err"
printf 'x\n' >"$ct/old.svg"
"$SCORCH" flamegraph -o "$ct/old.svg" "$ct/total.folded" 2>/dev/null
if [ "$(cat "$ct/old.svg")" = x ]; then ok "counts: ... and leaves the old output"; else not_ok "counts: ... and leaves the old output"; fi

# The graphs' totals: the root's and each frame's count, exact.
perl -Mbigint -ne '/ (\d+)$/ and $t += $1; END { $t =~ s/(\d)(?=(\d{3})+$)/$1,/g; print "all ($t samples, 100%)\n" }' \
	"$ct/big.folded" >"$ct/svg.want"
expect_exit "counts: flamegraph of counts past 2^53 exits 0" 0 "$SCORCH" flamegraph "$ct/big.folded"
grep -o 'all ([^)]*)' "$TMPDIR/out" | head -1 >"$ct/svg.got"
test_cmp "counts: the SVG's total is exact" "$ct/svg.want" "$ct/svg.got"
expect_grep "counts: the SVG's frame b is exact" '<title>b (9,007,199,254,740,993 samples' "$TMPDIR/out"

expect_exit "counts: speedscope of counts past 2^53 exits 0" 0 "$SCORCH" flamegraph --format speedscope "$ct/big.folded"
expect_grep "counts: speedscope's endValue is exact" '"endValue":9007199254740996,' "$TMPDIR/out"
expect_grep "counts: speedscope's weights are exact" '"weights":\[9007199254740993,3\]' "$TMPDIR/out"

expect_exit "counts: HTML of counts past 2^53 exits 0" 0 "$SCORCH" flamegraph --format html -o "$ct/big.html" "$ct/big.folded"

if command -v go >/dev/null 2>&1; then
	expect_exit "counts: pprof of counts past 2^53 exits 0" 0 "$SCORCH" flamegraph --format pprof -o "$ct/big.pb.gz" "$ct/big.folded"
	PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$ct/big.pb.gz" 2>"$TMPDIR/pprof.err" >"$ct/pprof.raw"
	expect_grep "counts: pprof's value is exact (go tool pprof -raw)" '^ *9007199254740993: ' "$ct/pprof.raw"
else
	not_ok "counts: go tool pprof is needed"
fi

# Flame charts keep the same exact counts, sample by sample.
printf 'a;b 9007199254740993\na;c 1\na;b 18014398509481985\n' >"$ct/chart.folded"
perl -Mbigint -ne '/ (\d+)$/ and $t += $1; END { $t =~ s/(\d)(?=(\d{3})+$)/$1,/g; print "<title>all ($t samples, 100%)</title>\n" }' \
	"$ct/chart.folded" >"$ct/chart.want"
expect_exit "counts: a flame chart of counts past 2^53 exits 0" 0 "$SCORCH" flamegraph --flamechart --minwidth 0 "$ct/chart.folded"
grep -o '<title>all ([^<]*</title>' "$TMPDIR/out" >"$ct/chart.got"
test_cmp "counts: the flame chart's total is exact" "$ct/chart.want" "$ct/chart.got"
expect_grep "counts: the flame chart's first b is exact" '<title>b (9,007,199,254,740,993 samples' "$TMPDIR/out"
expect_grep "counts: ... its c" '<title>c (1 samples' "$TMPDIR/out"
expect_grep "counts: ... its second b" '<title>b (18,014,398,509,481,985 samples' "$TMPDIR/out"

# perf script periods are 64-bit integers too (stackcollapse-perf.pl adds
# them as Perl integers).
{
	printf 'prog 1 [000] 1.000001: 9007199254740993 cpu-clock:\n\t401000 main (/bin/prog)\n\n'
	printf 'prog 1 [000] 1.000002: 2 cpu-clock:\n\t401000 main (/bin/prog)\n\n'
	printf 'prog 1 [000] 1.000003: 18446744073709551615 cpu-clock:\n\t401000 other (/bin/prog)\n\n'
} >"$ct/periods.perf"
printf 'prog;main %s\nprog;other 18446744073709551615\n' "$(perl -Mbigint -e 'print 9007199254740993 + 2')" >"$ct/periods.want"
expect_exit "counts: collapse of perf periods past 2^53 exits 0" 0 "$SCORCH" collapse perf "$ct/periods.perf"
test_cmp "counts: perf periods add exactly (as Perl)" "$ct/periods.want" "$TMPDIR/out"
head -6 "$ct/periods.perf" >"$ct/chart.perf"
expect_exit "counts: a perf flame chart of them exits 0" 0 "$SCORCH" flamegraph --flamechart --minwidth 0 "$ct/chart.perf"
expect_grep "counts: ... its main (both samples, adjacent) is exact" '<title>main (9,007,199,254,740,995 samples' "$TMPDIR/out"
{
	printf 'prog 1 [000] 1.000001: 18446744073709551616 cpu-clock:\n\t401000 main (/bin/prog)\n\n'
} >"$ct/period-over.perf"
expect_exit "counts: a perf period past 2^64 - 1 exits 1" 1 "$SCORCH" collapse perf "$ct/period-over.perf"
expect_grep "counts: ... naming the input" "period-over.perf: the counts of one stack pass 2^64 - 1" "$TMPDIR/err"
printf 'prog 1 [000] 1.000004: 1 cpu-clock:\n\t401000 other (/bin/prog)\n\n' >>"$ct/periods.perf"
expect_exit "counts: perf periods of one stack summing past 2^64 - 1 exit 1" 1 "$SCORCH" collapse perf "$ct/periods.perf"
