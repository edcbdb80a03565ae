# scorch flamegraph and scorch diff from the command line: inputs, options,
# errors and exit codes, -o safety, hostile names.
. "${0%/*}/../lib.sh"
fgc=$CONFORMANCE/flamegraph/generated-by-head
fgt=$TMPDIR/fg
mkdir -p "$fgt"

# Well-formed XML check (python3 is on every supported machine).
fg_wellformed() { # NAME FILE
	if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$2" 2>"$fgt/xmlerr"; then
		ok "$1"
	else
		not_ok "$1" "$(head -3 "$fgt/xmlerr")"
	fi
}

printf 'main;a;b 3\nmain;a;c 2\nmain;d 5\n' >"$fgt/small.folded"

expect_exit "flamegraph/stdin" 0 sh -c "\"$SCORCH\" flamegraph <\"$fgt/small.folded\""
expect_grep "flamegraph/stdin draws the frames" "<title>main (10 samples, 100.00%)</title>" "$TMPDIR/out"
fg_wellformed "flamegraph/output is well-formed XML" "$TMPDIR/out"
expect_grep "flamegraph/viewer contract: scorchConfig" '^var scorchConfig = {"nametype": "Function:", "fontsize": 12, "fontwidth": 0.59, "xpad": 10, "inverted": false' "$TMPDIR/out"
expect_grep "flamegraph/svg root keeps onload=init(evt)" 'onload="init(evt)"' "$TMPDIR/out"

# Several files are summed.
expect_exit "flamegraph/two files" 0 "$SCORCH" flamegraph --no-js "$fgt/small.folded" "$fgt/small.folded"
expect_grep "flamegraph/two files are summed" "<title>main (20 samples, 100.00%)</title>" "$TMPDIR/out"
if grep -q '<script' "$TMPDIR/out"; then not_ok "flamegraph/--no-js omits the script"; else ok "flamegraph/--no-js omits the script"; fi

# Compressed input (when built with zlib).
if command -v gzip >/dev/null && "$SCORCH" --version | grep -q '+zlib'; then
	gzip -c "$fgt/small.folded" >"$fgt/small.folded.gz"
	expect_exit "flamegraph/gzip input" 0 "$SCORCH" flamegraph "$fgt/small.folded.gz"
	expect_grep "flamegraph/gzip input is read" "<title>main (10 samples" "$TMPDIR/out"
else
	not_ok "flamegraph/gzip input" "no gzip or no zlib support (scripts/setup installs gzip, zlib1g-dev)"
fi

# Not folded: detected and collapsed. The raw DTrace example must draw the
# frames flamegraph.pl drew from stackcollapse.pl's collapse of it.
if [ -f "$fgc/../example-dtrace-stacks.txt" ]; then
	"$SCORCH" flamegraph --dump-frames "$fgc/../example-dtrace-stacks.txt" 2>"$fgt/err" | sort >"$fgt/b.tsv"
	sort "$fgc/svg-frames/dtrace-default.tsv" >"$fgt/a.tsv"
	test_cmp "flamegraph/non-folded (DTrace) input is detected and collapsed" "$fgt/a.tsv" "$fgt/b.tsv"
else
	not_ok "flamegraph/non-folded input is detected and collapsed" "no $fgc/../example-dtrace-stacks.txt"
fi

# Empty input: exit 2 (as flamegraph.pl), a message, the error SVG on stdout.
: >"$fgt/empty"
expect_exit "flamegraph/empty input exits 2" 2 "$SCORCH" flamegraph "$fgt/empty"
expect_grep "flamegraph/empty input is explained" "no stack counts found" "$TMPDIR/err"
expect_grep "flamegraph/empty input still gives the error SVG" "ERROR: No valid input" "$TMPDIR/out"
printf 'garbage\n\nno count here\n' >"$fgt/bad"
expect_exit "flamegraph/only malformed lines exits 2" 2 "$SCORCH" flamegraph "$fgt/bad"
expect_grep "flamegraph/malformed line named with file:line" "bad:3: ignored line without a sample count" "$TMPDIR/err"
printf 'a;b 1\nbroken line\na;c 2\n' >"$fgt/mixed"
expect_exit "flamegraph/malformed line skipped" 0 "$SCORCH" flamegraph "$fgt/mixed"
expect_grep "flamegraph/malformed line reported" "mixed:2:" "$TMPDIR/err"
expect_grep "flamegraph/other lines drawn" "<title>a (3 samples, 100.00%)</title>" "$TMPDIR/out"

# -o FILE: written on success, untouched on failure.
echo "precious" >"$fgt/keep.svg"
expect_exit "flamegraph/-o with empty input fails" 2 "$SCORCH" flamegraph -o "$fgt/keep.svg" "$fgt/empty"
if [ "$(cat "$fgt/keep.svg")" = precious ]; then ok "flamegraph/-o keeps the old file on failure"; else not_ok "flamegraph/-o keeps the old file on failure"; fi
expect_exit "flamegraph/-o with a missing input fails" 1 "$SCORCH" flamegraph -o "$fgt/keep.svg" "$fgt/nonexistent"
if [ "$(cat "$fgt/keep.svg")" = precious ]; then ok "flamegraph/-o keeps the old file when an input is missing"; else not_ok "flamegraph/-o keeps the old file when an input is missing"; fi
if ls "$fgt"/keep.svg.tmp.* >/dev/null 2>&1; then not_ok "flamegraph/-o leaves no temporary file"; else ok "flamegraph/-o leaves no temporary file"; fi
expect_exit "flamegraph/-o on success" 0 "$SCORCH" flamegraph --output="$fgt/keep.svg" "$fgt/small.folded"
expect_grep "flamegraph/-o wrote the graph" "<title>main (10 samples" "$fgt/keep.svg"

# Options: errors are usage errors (2), --help is 0, prefixes work.
expect_exit "flamegraph/--help exits 0" 0 "$SCORCH" flamegraph --help
expect_grep "flamegraph/--help lists --minwidth" "minwidth" "$TMPDIR/out"
expect_exit "flamegraph/unknown option exits 2" 2 "$SCORCH" flamegraph --frobnicate "$fgt/small.folded"
expect_exit "flamegraph/ambiguous prefix exits 2" 2 "$SCORCH" flamegraph --co=x "$fgt/small.folded"
expect_exit "flamegraph/bad --width exits 2" 2 "$SCORCH" flamegraph --width=abc "$fgt/small.folded"
expect_exit "flamegraph/bad --minwidth exits 2" 2 "$SCORCH" flamegraph --minwidth=1x "$fgt/small.folded"
expect_exit "flamegraph/bad --bgcolors exits 2" 2 "$SCORCH" flamegraph --bgcolors='#12"><' "$fgt/small.folded"
expect_exit "flamegraph/bad --include regex exits 2" 2 "$SCORCH" flamegraph --include='(' "$fgt/small.folded"
expect_exit "flamegraph/unique prefix --inv" 0 "$SCORCH" flamegraph --inv "$fgt/small.folded"
expect_grep "flamegraph/--inv means --inverted" ">Icicle Graph<" "$TMPDIR/out"
expect_exit "flamegraph/single-dash long option" 0 "$SCORCH" flamegraph -title=Hello "$fgt/small.folded"
expect_grep "flamegraph/-title=Hello" ">Hello<" "$TMPDIR/out"
expect_exit "flamegraph/--opt value form" 0 "$SCORCH" flamegraph --countname ms "$fgt/small.folded"
expect_grep "flamegraph/--countname ms" "<title>main (10 ms, 100.00%)</title>" "$TMPDIR/out"
expect_exit "flamegraph/unknown palette still draws" 0 "$SCORCH" flamegraph --colors=nosuch "$fgt/small.folded"
expect_grep "flamegraph/unknown palette warns" "unknown palette 'nosuch'" "$TMPDIR/err"
expect_grep "flamegraph/unknown palette is black (flamegraph.pl)" 'fill="rgb(0,0,0)"' "$TMPDIR/out"

# --include / --exclude filter whole stacks.
"$SCORCH" flamegraph --dump-frames --include=';a;' "$fgt/small.folded" >"$fgt/inc.tsv"
if grep -q '^d (' "$fgt/inc.tsv" || ! grep -q '^b (3 samples' "$fgt/inc.tsv"; then
	not_ok "flamegraph/--include keeps only matching stacks" "$(cat "$fgt/inc.tsv")"
else ok "flamegraph/--include keeps only matching stacks"; fi
"$SCORCH" flamegraph --dump-frames --exclude='c$' "$fgt/small.folded" >"$fgt/exc.tsv"
if grep -q '^c (' "$fgt/exc.tsv" || ! grep -q '^all (8 samples' "$fgt/exc.tsv"; then
	not_ok "flamegraph/--exclude drops matching stacks" "$(cat "$fgt/exc.tsv")"
else ok "flamegraph/--exclude drops matching stacks"; fi
expect_exit "flamegraph/--include matching nothing is empty input" 2 "$SCORCH" flamegraph --include=nomatch "$fgt/small.folded"

# --cp: palette.map written, then reused (a changed map changes the picture).
mkdir -p "$fgt/cp" && (cd "$fgt/cp" && "$SCORCH" flamegraph --cp "$fgt/small.folded" >"$fgt/cp1.svg")
expect_grep "flamegraph/--cp writes palette.map" '^main->rgb(' "$fgt/cp/palette.map"
sed 's/^main->.*/main->rgb(1,2,3)/' "$fgt/cp/palette.map" >"$fgt/cp/pm" && mv "$fgt/cp/pm" "$fgt/cp/palette.map"
(cd "$fgt/cp" && "$SCORCH" flamegraph --cp "$fgt/small.folded" >"$fgt/cp2.svg")
expect_grep "flamegraph/--cp reads palette.map" 'fill="rgb(1,2,3)"' "$fgt/cp2.svg"

# Hostile names: markup, quotes, ]]>, control characters, invalid UTF-8.
printf 'main;<script>alert(1)</script>;x 5\nmain;]]></script><svg onload=alert(1)>;y 5\nmain;a"b'"'"'c&d 5\nmain;ctl\001\033[31mred\177 5\nmain;bad\377\376utf8\300\257 5\nmain;long<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<&&&&&&&&&&&&&&&&&&&&&&&& 50\n' >"$fgt/hostile.folded"
expect_exit "flamegraph/hostile names" 0 "$SCORCH" flamegraph --title='<b>"T"</b>&' --subtitle=']]>' --notes='--><script>' --nametype='</script>' --countname='<i>' "$fgt/hostile.folded"
cp "$TMPDIR/out" "$fgt/hostile.svg"
fg_wellformed "flamegraph/hostile names give well-formed XML" "$fgt/hostile.svg"
if python3 - "$fgt/hostile.svg" <<'PY'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
names = {e.tagName for e in d.getElementsByTagName('*')}
bad = names - {'svg', 'defs', 'linearGradient', 'stop', 'style', 'script', 'rect', 'text', 'g', 'title'}
scripts = d.getElementsByTagName('script')
handlers = [a for e in d.getElementsByTagName('*') for a in e.attributes.keys() if a.startswith('on') and a != 'onload']
sys.exit(1 if bad or len(scripts) != 1 or handlers else 0)
PY
then ok "flamegraph/hostile names create no elements, scripts or handlers"; else not_ok "flamegraph/hostile names create no elements, scripts or handlers"; fi
expect_grep "flamegraph/markup in names is escaped" '&lt;script&gt;alert(1)&lt;/script&gt;' "$fgt/hostile.svg"
expect_grep "flamegraph/title is escaped" '&lt;b&gt;"T"&lt;/b&gt;&amp;' "$fgt/hostile.svg"
"$SCORCH" flamegraph --dump-frames "$fgt/hostile.folded" >"$fgt/hostile.tsv"
if grep -q "$(printf '\033')" "$fgt/hostile.svg"; then not_ok "flamegraph/control characters replaced"; else ok "flamegraph/control characters replaced"; fi
if python3 -c 'import sys; open(sys.argv[1], encoding="utf-8", errors="strict").read()' "$fgt/hostile.svg" 2>/dev/null; then ok "flamegraph/output is valid UTF-8"; else not_ok "flamegraph/output is valid UTF-8"; fi
# nameattr values are escaped too, and cannot add handlers or javascript: links.
printf 'main\ttitle=<x>"\tclass=c"><script>\thref=javascript:alert(1)\tg_extra=onclick="evil()" data-k="v>"\n' >"$fgt/na.txt"
expect_exit "flamegraph/--nameattr" 0 "$SCORCH" flamegraph --nameattr="$fgt/na.txt" "$fgt/small.folded"
cp "$TMPDIR/out" "$fgt/na.svg"
fg_wellformed "flamegraph/--nameattr output is well-formed" "$fgt/na.svg"
expect_grep "flamegraph/--nameattr class escaped" 'class="c&quot;&gt;&lt;script&gt;"' "$fgt/na.svg"
if grep -q 'onclick\|javascript:' "$fgt/na.svg"; then not_ok "flamegraph/--nameattr drops handlers and javascript: links"; else ok "flamegraph/--nameattr drops handlers and javascript: links"; fi
printf 'main no tab\n' >"$fgt/na-bad.txt"
expect_exit "flamegraph/--nameattr line without a tab" 1 "$SCORCH" flamegraph --nameattr="$fgt/na-bad.txt" "$fgt/small.folded"
expect_grep "flamegraph/--nameattr error names file:line" "na-bad.txt:1:" "$TMPDIR/err"

# Differential input: red for growth, blue for reduction.
printf 'main;grow 10 30\nmain;shrink 30 10\nmain;same 5 5\n' >"$fgt/d.folded"
"$SCORCH" flamegraph --dump-frames "$fgt/d.folded" >"$fgt/d.tsv"
expect_grep "flamegraph/differential growth is red" '^grow (30 samples, 66.67%; +44.44%).*rgb(255,0,0)' "$fgt/d.tsv"
expect_grep "flamegraph/differential reduction is blue" '^shrink (10 samples, 22.22%; -44.44%).*rgb(0,0,255)' "$fgt/d.tsv"
"$SCORCH" flamegraph --dump-frames --negate "$fgt/d.folded" >"$fgt/dn.tsv"
expect_grep "flamegraph/--negate swaps the colours" '^grow (30 samples, 66.67%; -44.44%).*rgb(0,0,255)' "$fgt/dn.tsv"

# scorch diff: difffolded.pl's outputs (sorted), then drawn.
if [ -f "$fgc/diff/before.folded" ]; then
	"$SCORCH" diff "$fgc/diff/before.folded" "$fgc/diff/after.folded" >"$fgt/diff.out" 2>"$fgt/err"
	test_cmp "diff/matches difffolded.pl" "$fgc/diff/diff.folded" "$fgt/diff.out"
	"$SCORCH" diff -n "$fgc/diff/before.folded" "$fgc/diff/after.folded" >"$fgt/diffn.out" 2>"$fgt/err"
	test_cmp "diff/-n matches difffolded.pl -n" "$fgc/diff/diff-n.folded" "$fgt/diffn.out"
	"$SCORCH" flamegraph --dump-frames "$fgt/diff.out" >"$fgt/diff.tsv"
	sort "$fgc/svg-frames/diff.tsv" >"$fgt/e.tsv"; sort "$fgt/diff.tsv" >"$fgt/g.tsv"
	test_cmp "diff/drawn as flamegraph.pl draws difffolded output" "$fgt/e.tsv" "$fgt/g.tsv"
else
	not_ok "diff/matches difffolded.pl" "no $fgc/diff/before.folded"
fi
infd=$CONFORMANCE/inferno/tests/data/diff-folded
if [ -d "$infd" ]; then
	for m in default: normalize:-n strip_hex:-s strip_hex:--strip-hex; do
		"$SCORCH" diff ${m#*:} "$infd/before.txt" "$infd/after.txt" 2>/dev/null | sort >"$fgt/i.out"
		sort "$infd/results/${m%%:*}.txt" >"$fgt/i.exp"
		test_cmp "diff/inferno ${m%%:*} ${m#*:}" "$fgt/i.exp" "$fgt/i.out"
	done
	expect_exit "diff/malformed line is skipped" 0 "$SCORCH" diff "$infd/bad_before.txt" "$infd/after.txt"
	expect_grep "diff/malformed line named" "bad_before.txt:3:" "$TMPDIR/err"
else
	not_ok "diff/inferno cases" "no $infd"
fi
expect_exit "diff/one argument is a usage error" 2 "$SCORCH" diff "$fgt/small.folded"
expect_exit "diff/missing file exits 1" 1 "$SCORCH" diff "$fgt/small.folded" "$fgt/nonexistent"
echo "precious" >"$fgt/keep.diff"
expect_exit "diff/-o with a missing input fails" 1 "$SCORCH" diff -o "$fgt/keep.diff" "$fgt/small.folded" "$fgt/nonexistent"
if [ "$(cat "$fgt/keep.diff")" = precious ]; then ok "diff/-o keeps the old file on failure"; else not_ok "diff/-o keeps the old file on failure"; fi

# --threads=2 (a reader thread scans while the profile is built): same frames
# and the same messages, with real line numbers, as one thread.
fgep=$fgc/collapse/example-perf-stacks-collapsed-all.txt
if [ -f "$fgep" ]; then
	{ cat "$fgep" "$fgep"; echo "bad line one"; cat "$fgep" "$fgep"; echo "bad line two"; } >"$fgt/big.folded"
	fg_l1=$(($(wc -l <"$fgep") * 2 + 1))
	fg_l2=$(($(wc -l <"$fgep") * 4 + 2))
	"$SCORCH" flamegraph --dump-frames --threads=1 "$fgt/big.folded" >"$fgt/t1.tsv" 2>"$fgt/t1.err"
	"$SCORCH" flamegraph --dump-frames --threads=2 "$fgt/big.folded" >"$fgt/t2.tsv" 2>"$fgt/t2.err"
	test_cmp "flamegraph/--threads=2 draws what one thread draws" "$fgt/t1.tsv" "$fgt/t2.tsv"
	test_cmp "flamegraph/--threads=2 reports the same lines" "$fgt/t1.err" "$fgt/t2.err"
	expect_grep "flamegraph/--threads=2 line numbers in the first half" "big.folded:$fg_l1: ignored" "$fgt/t2.err"
	expect_grep "flamegraph/--threads=2 line numbers in the second half" "big.folded:$fg_l2: ignored" "$fgt/t2.err"
	"$SCORCH" flamegraph --dump-frames --flamechart --threads=2 "$fgt/big.folded" >"$fgt/c2.tsv" 2>/dev/null
	"$SCORCH" flamegraph --dump-frames --flamechart --threads=1 "$fgt/big.folded" >"$fgt/c1.tsv" 2>/dev/null
	test_cmp "flamegraph/--threads=2 keeps flame-chart order" "$fgt/c1.tsv" "$fgt/c2.tsv"
else
	not_ok "flamegraph/--threads=2" "no $fgep"
fi

# perf script text piped in is detected and collapsed: the same frames as
# drawing stackcollapse-perf.pl's collapse of it.
fgpx=$fgc/../example-perf-stacks.txt.gz
if ! command -v gzip >/dev/null; then
	not_ok "flamegraph/perf script on stdin is collapsed and drawn" "gzip is not installed (scripts/setup installs it)"
elif [ -f "$fgpx" ]; then
	gzip -dc "$fgpx" | "$SCORCH" flamegraph --dump-frames 2>"$fgt/perf.err" | sort >"$fgt/perf.tsv"
	"$SCORCH" flamegraph --dump-frames "$fgc/collapse/example-perf-stacks-collapsed-default.txt" | sort >"$fgt/perf.exp"
	test_cmp "flamegraph/perf script on stdin is collapsed and drawn" "$fgt/perf.exp" "$fgt/perf.tsv"
else
	not_ok "flamegraph/perf script on stdin is collapsed and drawn" "no $fgpx"
fi
expect_exit "flamegraph/--factor=0 is a usage error (flamegraph.pl divides by zero)" 2 "$SCORCH" flamegraph --factor=0 "$fgt/small.folded"
