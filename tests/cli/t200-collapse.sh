# scorch collapse: the front end (help, --list, format names, detection,
# several files, stdin, compressed input, -o, --strict, exit codes).
. "${0%/*}/../lib.sh"
c2=$TMPDIR/collapse-cli
mkdir -p "$c2"
c2_fg=$CONFORMANCE/flamegraph

printf 'prog 1 1.0: 2 cycles:\n\t1 f (m)\n\t2 main (m)\n\n' >"$c2/a.txt"
printf 'prog 1 2.0: 3 cycles:\n\t1 f (m)\n\t2 main (m)\n\nother 2 3.0: 1 cycles:\n\t3 g (m)\n\n' >"$c2/b.txt"
printf 'prog 1 1.0: 1 cycles:\n\t1 f (m)\nnot a perf line\n\n' >"$c2/bad.txt"

expect_exit "cli/collapse --help exits 0" 0 "$SCORCH" collapse --help
expect_grep "cli/collapse --help prints usage" "usage: scorch collapse FORMAT" "$TMPDIR/out"
expect_grep "cli/collapse --help lists perf options" "--event-filter" "$TMPDIR/out"
expect_exit "cli/collapse --list exits 0" 0 "$SCORCH" collapse --list
expect_grep "cli/collapse --list names perf" "^  perf " "$TMPDIR/out"
expect_grep "cli/collapse --list names folded" "^  folded " "$TMPDIR/out"

expect_exit "cli/collapse unknown format exits 2" 2 "$SCORCH" collapse nosuchformat
expect_grep "cli/collapse unknown format is named" "'nosuchformat' is neither a format (.*) nor a file (no such file)" "$TMPDIR/err"
expect_grep "cli/collapse unknown format lists the formats" "(perf, folded, " "$TMPDIR/err"
expect_exit "cli/collapse unknown option exits 2" 2 "$SCORCH" collapse perf --frobnicate "$c2/a.txt"
expect_exit "cli/collapse bad thread count exits 2" 2 "$SCORCH" collapse perf -j x "$c2/a.txt"
expect_exit "cli/collapse missing file exits 1" 1 "$SCORCH" collapse perf "$c2/missing.txt"
expect_grep "cli/collapse missing file is named" "missing.txt" "$TMPDIR/err"

# Several files are summed (one stream, as the script's <> reads them).
expect_exit "cli/collapse two files exit 0" 0 "$SCORCH" collapse perf "$c2/a.txt" "$c2/b.txt"
printf 'other;g 1\nprog;main;f 5\n' >"$c2/ab.want"
test_cmp "cli/collapse two files are summed" "$c2/ab.want" "$TMPDIR/out"

# A file that ends inside a sample continues into the next file.
printf 'prog 1 1.0: 2 cycles:\n\t1 f (m)\n' >"$c2/open.txt"
printf '\t2 main (m)\n\n' >"$c2/close.txt"
"$SCORCH" collapse perf "$c2/open.txt" "$c2/close.txt" >"$c2/out" 2>"$c2/err"
printf 'prog;main;f 2\n' >"$c2/oc.want"
test_cmp "cli/collapse a sample spans two files" "$c2/oc.want" "$c2/out"

# stdin, "-", and detection without a format name.
"$SCORCH" collapse perf <"$c2/b.txt" >"$c2/out" 2>/dev/null
printf 'other;g 1\nprog;main;f 3\n' >"$c2/b.want"
test_cmp "cli/collapse reads stdin" "$c2/b.want" "$c2/out"
"$SCORCH" collapse perf - <"$c2/b.txt" >"$c2/out" 2>/dev/null
test_cmp "cli/collapse reads - as stdin" "$c2/b.want" "$c2/out"
"$SCORCH" collapse <"$c2/b.txt" >"$c2/out" 2>/dev/null
test_cmp "cli/collapse detects perf on stdin" "$c2/b.want" "$c2/out"
"$SCORCH" collapse "$c2/b.txt" >"$c2/out" 2>/dev/null
test_cmp "cli/collapse detects perf in a file" "$c2/b.want" "$c2/out"
"$SCORCH" collapse -j 3 --pid "$c2_fg/test/perf-dd-stacks-01.txt" >"$c2/out" 2>/dev/null
test_cmp "cli/collapse detects with options before the file" \
	"$c2_fg/test/results/perf-dd-stacks-01-collapsed-pid.txt" "$c2/out"

# Compressed input is read by magic.
if gzip -c "$c2/b.txt" >"$c2/b.txt.gz" 2>/dev/null; then
	"$SCORCH" collapse perf "$c2/b.txt.gz" >"$c2/out" 2>/dev/null
	test_cmp "cli/collapse reads gzip" "$c2/b.want" "$c2/out"
else
	not_ok "cli/collapse reads gzip" "no gzip (scripts/setup installs it)"
fi
if command -v xz >/dev/null 2>&1; then
	xz -c "$c2/b.txt" >"$c2/b.txt.xz"
	"$SCORCH" collapse "$c2/b.txt.xz" >"$c2/out" 2>/dev/null
	test_cmp "cli/collapse detects perf in xz" "$c2/b.want" "$c2/out"
else
	not_ok "cli/collapse detects perf in xz" "no xz (scripts/setup installs xz-utils)"
fi

if command -v zstd >/dev/null 2>&1 && grep -q 'zstd=y' "$BUILD/features" 2>/dev/null; then
	zstd -q -c "$c2/b.txt" >"$c2/b.txt.zst"
	"$SCORCH" collapse "$c2/b.txt.zst" >"$c2/out" 2>/dev/null
	test_cmp "cli/collapse detects perf in zstd" "$c2/b.want" "$c2/out"
else
	not_ok "cli/collapse detects perf in zstd" "no zstd tool or no libzstd in this build (scripts/setup installs zstd, libzstd-dev)"
fi

# -o: written on success, untouched on failure.
expect_exit "cli/collapse -o exits 0" 0 "$SCORCH" collapse perf -o "$c2/o.folded" "$c2/b.txt"
test_cmp "cli/collapse -o writes the file" "$c2/b.want" "$c2/o.folded"
if [ -s "$TMPDIR/out" ]; then not_ok "cli/collapse -o leaves stdout empty"; else ok "cli/collapse -o leaves stdout empty"; fi
printf 'precious\n' >"$c2/keep.folded"
expect_exit "cli/collapse --strict bad line exits 1" 1 "$SCORCH" collapse perf --strict -o "$c2/keep.folded" "$c2/bad.txt"
expect_grep "cli/collapse --strict names file and line" "bad.txt:3: unrecognized perf script line" "$TMPDIR/err"
printf 'precious\n' >"$c2/keep.want"
test_cmp "cli/collapse -o is untouched on failure" "$c2/keep.want" "$c2/keep.folded"
expect_exit "cli/collapse missing input keeps -o" 1 "$SCORCH" collapse perf -o "$c2/keep.folded" "$c2/missing.txt"
test_cmp "cli/collapse -o is untouched when an input is missing" "$c2/keep.want" "$c2/keep.folded"
if ls "$c2" | grep -v -e '\.txt' -e '\.want' -e '\.folded$' -e '^out$' -e '^err$' -e '\.gz$' -e '\.xz$' -e '\.zst$' | grep -q .; then
	not_ok "cli/collapse leaves no temporary files" "$(ls "$c2")"
else
	ok "cli/collapse leaves no temporary files"
fi

# Without --strict a bad line is a warning and the run succeeds.
expect_exit "cli/collapse bad line without --strict exits 0" 0 "$SCORCH" collapse perf "$c2/bad.txt"
expect_grep "cli/collapse bad line is reported with file:line" "warning: .*bad.txt:3: " "$TMPDIR/err"
printf 'prog;f 1\n' >"$c2/bad.want"
test_cmp "cli/collapse bad line is skipped" "$c2/bad.want" "$TMPDIR/out"

# Many bad lines: the first ten one by one, then a count.
{ echo 'prog 1 1.0: 1 cycles:'; i=0; while [ $i -lt 25 ]; do echo "junk $i"; i=$((i + 1)); done; echo; } >"$c2/junk.txt"
"$SCORCH" collapse perf "$c2/junk.txt" >"$c2/out" 2>"$c2/err"
n=$(grep -c 'junk.txt:[0-9]*: skipped' "$c2/err")
if [ "$n" = 10 ] && grep -q '15 more unrecognized perf script lines skipped (25 in all)' "$c2/err"; then
	ok "cli/collapse reports ten bad lines, then a count"
else
	not_ok "cli/collapse reports ten bad lines, then a count" "$n reported" "$(tail -2 "$c2/err")"
fi

# Input that is not perf text at all, forced as perf: warnings, no crash.
printf '\0\1\2 binary \377\376\n\n\n' >"$c2/binary.txt"
expect_exit "cli/collapse perf on binary junk exits 0" 0 "$SCORCH" collapse perf "$c2/binary.txt"
expect_exit "cli/collapse detection failure exits 1" 1 "$SCORCH" collapse "$c2/binary.txt"
expect_grep "cli/collapse detection failure says so" "cannot tell the format" "$TMPDIR/err"

# --inline needs elfutils; --context alone is accepted (and ignored) as the script does.
expect_exit "cli/collapse --context alone exits 0" 0 "$SCORCH" collapse perf --context "$c2/a.txt"
if grep -q 'elfutils=y' "$BUILD/features" 2>/dev/null; then
	expect_exit "cli/collapse --inline exits 0" 0 "$SCORCH" collapse perf --inline "$c2/a.txt"
else
	expect_exit "cli/collapse --inline without elfutils exits 1" 1 "$SCORCH" collapse perf --inline "$c2/a.txt"
	expect_grep "cli/collapse --inline without elfutils says why" "elfutils" "$TMPDIR/err"
fi

# Empty input: nothing to detect and nothing to write; not an error.
: >"$c2/empty.txt"
expect_exit "cli/collapse empty input without a format exits 0" 0 "$SCORCH" collapse "$c2/empty.txt"
if [ -s "$TMPDIR/out" ]; then not_ok "cli/collapse empty input writes nothing"; else ok "cli/collapse empty input writes nothing"; fi
