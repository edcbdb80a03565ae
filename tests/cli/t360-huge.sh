# Huge inputs (issue 30, "100,000-frame stacks and 10 MB lines through
# every reader"): a stack of 100,000 frames and a single 10 MB line, as
# folded text and as perf script text, through collapse (named and
# detected), flamegraph (SVG, HTML, speedscope, pprof), merge and diff.
# Properties, from the inputs themselves: every run completes (bounded by
# timeout: a quadratic walk or a recursion per frame would not), the output
# keeps the frame count, the depth and the counts; under the sanitizer pass
# (tests/run) the same runs show no stack overflow.
. "${0%/*}/../lib.sh"
h=$TMPDIR/huge
mkdir -p "$h"
FRAMES=100000
T="timeout -k 5 300"

perl -e "print join(';', map { \"f\$_\" } 1..$FRAMES), \" 5\\n\"; print \"a;b 1\\n\"" >"$h/deep.folded"
perl -e 'print "x" x (10 * 1024 * 1024), ";y 3\na;b 1\n"' >"$h/wide.folded"
# perf script text: the same stacks, leaf first, then a short sample
perl -e "print \"prog 1234 [000] 100.000001: 5 cpu-clock:\\n\";
	printf \"\\t%x f%d (/usr/lib/libx.so)\\n\", 0x400000 + \$_, \$_ for reverse 1..$FRAMES;
	print \"\\nprog 1234 [000] 100.000002: 1 cpu-clock:\\n\\t401000 main (/usr/bin/prog)\\n\\n\"" >"$h/deep.perf"
perl -e 'print "prog 1234 [000] 100.000001: 3 cpu-clock:\n\t401000 ", "x" x (10 * 1024 * 1024),
	" (/usr/lib/libx.so)\n\t401001 main (/usr/bin/prog)\n\n"' >"$h/wide.perf"

# frames COUNT of the line of a folded file that has the most
deepest() { awk '{ n = split($1, f, ";"); if (n > m) { m = n; c = $NF } } END { print m, c }' "$1"; }

for kind in deep wide; do
	for how in "folded" ""; do
		name="huge: collapse ${how:-(detected)} of the $kind folded input"
		if $T "$SCORCH" collapse $how "$h/$kind.folded" >"$h/out" 2>"$h/err" &&
		   sort "$h/$kind.folded" | cmp -s - "$h/out"; then
			ok "$name"
		else
			not_ok "$name" "$(head -c 300 "$h/err")"
		fi
	done
done

# perf script: one line per stack, the process name on top
expect_exit "huge: collapse of a $FRAMES-frame perf script stack exits 0" 0 $T "$SCORCH" collapse "$h/deep.perf"
if [ "$(deepest "$TMPDIR/out")" = "$((FRAMES + 1)) 5" ]; then
	ok "huge: ... and keeps its $FRAMES frames under the process name"
else
	not_ok "huge: ... and keeps its $FRAMES frames under the process name" "got $(deepest "$TMPDIR/out")"
fi
expect_exit "huge: collapse of a 10 MB perf script frame exits 0" 0 $T "$SCORCH" collapse "$h/wide.perf"
if [ "$(awk '{ print length($0) }' "$TMPDIR/out")" = $((10 * 1024 * 1024 + 12)) ]; then
	ok "huge: ... and keeps the frame whole (prog;main;NAME 3)"
else
	not_ok "huge: ... and keeps the frame whole (prog;main;NAME 3)" "$(head -c 100 "$TMPDIR/out")"
fi

# Other readers' stack formats: the same stack, leaf first
perl -e "print \"\\n\"; printf \"  lib\\\`f%d\\n\", \$_ for reverse 1..$FRAMES; print \"  7\\n\\n\"" >"$h/deep.dtrace"
perl -e "print \"Attaching 1 probe...\\n\\n\\@[\\n\"; printf \"    f%d+1\\n\", \$_ for reverse 1..$FRAMES; print \"]: 7\\n\"" >"$h/deep.bpftrace"
perl -e "printf \"#%d 0x%x in f%d () from /lib/x.so\\n\", $FRAMES - \$_, 0x400000 + \$_, \$_ for reverse 1..$FRAMES; print \"\\n\"" >"$h/deep.gdb"
perl -e "my \$n = $FRAMES; print '{\"nodes\":[';
	for my \$i (1..\$n) { print ',' if \$i > 1; printf '{\"id\":%d,\"callFrame\":{\"functionName\":\"f%d\",\"url\":\"a.js\",\"lineNumber\":1},\"hitCount\":0%s}', \$i, \$i, \$i < \$n ? sprintf(',\"children\":[%d]', \$i + 1) : '' }
	print '],\"startTime\":0,\"endTime\":7,\"samples\":[' . \$n . '],\"timeDeltas\":[1]}', \"\\n\"" >"$h/deep.cpuprofile"
# frames and count of the deepest line (names may hold spaces)
deepest_named() { perl -ne '/^(.*) (\d+)$/ or next; my ($s, $k) = ($1, $2); my $n = ($s =~ tr/;//) + 1; ($m, $c) = ($n, $k) if $n > $m; END { print "$m $c\n" }' "$1"; }
for f in dtrace:7 bpftrace:7 gdb:1 chrome:1; do
	fmt=${f%:*} want=${f#*:}
	src=$h/deep.$fmt
	[ $fmt = chrome ] && src=$h/deep.cpuprofile
	name="huge: collapse $fmt of a $FRAMES-frame stack keeps every frame"
	if $T "$SCORCH" collapse $fmt "$src" >"$h/out" 2>"$h/err" && [ "$(deepest_named "$h/out")" = "$FRAMES $want" ]; then
		ok "$name"
	else
		not_ok "$name" "got $(deepest_named "$h/out")" "$(head -c 300 "$h/err")"
	fi
done

# SVG: one <title> per frame (not pruned: --minwidth 0), the deepest with its count
for src in deep.folded deep.perf; do
	expect_exit "huge: SVG of $src exits 0" 0 $T "$SCORCH" flamegraph --minwidth 0 -o "$h/deep.svg" "$h/$src"
	want=$((FRAMES + 3)) # f1..f100000, a and b (prog and main), and all
	got=$(grep -c '<title>' "$h/deep.svg")
	if [ "$got" = $((want + 1)) ] && grep -q "<title>f$FRAMES (5 samples" "$h/deep.svg"; then
		ok "huge: ... with every frame, f$FRAMES last with its 5 samples"
	else
		not_ok "huge: ... with every frame, f$FRAMES last with its 5 samples" "$got titles, want $((want + 1)) (the document's own too)"
	fi
done
expect_exit "huge: SVG of a 10 MB frame name exits 0" 0 $T "$SCORCH" flamegraph -o "$h/wide.svg" "$h/wide.folded"
expect_grep "huge: ... and its child keeps its count" '<title>y (3 samples' "$h/wide.svg"

# HTML: the data set's frame and row counts
expect_exit "huge: HTML of the $FRAMES-frame stack exits 0" 0 $T "$SCORCH" flamegraph --format html -o "$h/deep.html" "$h/deep.folded"
expect_grep "huge: ... holds every frame and row" "\"frames\":$((FRAMES + 3)),\"rows\":$((FRAMES + 1))" "$h/deep.html"
expect_exit "huge: HTML of a 10 MB frame name exits 0" 0 $T "$SCORCH" flamegraph --format html -o "$h/wide.html" "$h/wide.folded"
if [ "$(wc -c <"$h/wide.html")" -gt $((10 * 1024 * 1024)) ]; then ok "huge: ... with the name in it"; else not_ok "huge: ... with the name in it"; fi

# speedscope: one frame entry per distinct name
expect_exit "huge: speedscope of the $FRAMES-frame stack exits 0" 0 $T "$SCORCH" flamegraph --format speedscope -o "$h/deep.json" "$h/deep.folded"
got=$(grep -o '{"name":"f[0-9]*"' "$h/deep.json" | sort -u | wc -l)
if [ "$got" = $FRAMES ]; then ok "huge: ... names its $FRAMES frames"; else not_ok "huge: ... names its $FRAMES frames" "got $got"; fi
expect_exit "huge: pprof of the $FRAMES-frame stack exits 0" 0 $T "$SCORCH" flamegraph --format pprof -o "$h/deep.pb.gz" "$h/deep.folded"

# merge and diff: counts add, the deep line stays whole
expect_exit "huge: merge of the $FRAMES-frame stack with itself exits 0" 0 $T "$SCORCH" merge "$h/deep.folded" "$h/deep.folded"
if [ "$(deepest "$TMPDIR/out")" = "$FRAMES 10" ]; then ok "huge: ... and adds its counts"; else not_ok "huge: ... and adds its counts" "got $(deepest "$TMPDIR/out")"; fi
expect_exit "huge: merge of the 10 MB line with itself exits 0" 0 $T "$SCORCH" merge "$h/wide.folded" "$h/wide.folded"
expect_grep "huge: ... and adds its counts" "^x*;y 6\$" "$TMPDIR/out"
expect_exit "huge: diff of the $FRAMES-frame stack exits 0" 0 $T "$SCORCH" diff "$h/deep.folded" "$h/deep.folded"
cp "$TMPDIR/out" "$h/diff.folded"
if [ "$(deepest "$h/diff.folded")" = "$FRAMES 5" ]; then ok "huge: ... and keeps it whole"; else not_ok "huge: ... and keeps it whole" "got $(deepest "$h/diff.folded")"; fi
expect_exit "huge: differential SVG of it exits 0" 0 $T "$SCORCH" flamegraph -o "$h/diff.svg" "$h/diff.folded"
expect_grep "huge: ... with its deepest frame" "<title>f$FRAMES (5 samples" "$h/diff.svg"
