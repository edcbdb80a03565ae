# scorch flamegraph -o FILE.html / --format html: the writer chosen by the
# extension or --format, one self-contained file (no network reference),
# names and titles escaped in the data blocks, failures leave no file.
# The viewer itself is tested in a browser (tests/browser/html.js).
. "${0%/*}/../lib.sh"
ht=$TMPDIR/html
mkdir -p "$ht"
printf 'main;a;b 3\nmain;a;c 2\nmain;d 5\n' >"$ht/small.folded"

expect_exit "html/-o FILE.html" 0 "$SCORCH" flamegraph -o "$ht/g.html" "$ht/small.folded"
if head -c 15 "$ht/g.html" | grep -q '<!DOCTYPE html>' && grep -q 'id="scorch-data"' "$ht/g.html" &&
	! grep -q '<svg' "$ht/g.html"; then
	ok "html/-o FILE.html writes the viewer, not an SVG"
else
	not_ok "html/-o FILE.html writes the viewer, not an SVG" "$(head -c 200 "$ht/g.html")"
fi
expect_exit "html/--format html to stdout" 0 "$SCORCH" flamegraph --format html "$ht/small.folded"
if cmp -s "$TMPDIR/out" "$ht/g.html"; then ok "html/--format html: same file"; else not_ok "html/--format html: same file"; fi
expect_exit "html/-o FILE.HTM" 0 "$SCORCH" flamegraph -o "$ht/g.HTM" "$ht/small.folded"
if cmp -s "$ht/g.HTM" "$ht/g.html"; then ok "html/.htm and upper case"; else not_ok "html/.htm and upper case"; fi
expect_exit "html/--format svg wins over the name" 0 "$SCORCH" flamegraph --format svg -o "$ht/s.html" "$ht/small.folded"
expect_grep "html/--format svg: an SVG" '<svg version' "$ht/s.html"
expect_exit "html/--format perf is still the input format" 2 "$SCORCH" flamegraph --format perf -o "$ht/p.html" "$ht/small.folded"
expect_grep "html/--format perf: read as perf script" "unrecognized perf script line" "$TMPDIR/err"

# Self-contained: no URL the browser would fetch.
if grep -E -q '(src|href)=|https?://|@import|url\(' "$ht/g.html"; then
	not_ok "html/no network reference" "$(grep -E -o '.{20}(src|href)=.{20}|https?://[^ ]*' "$ht/g.html" | head -3)"
else
	ok "html/no network reference"
fi

# Every frame is kept: --minwidth prunes the SVG, not the viewer's data.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "main;f%d 1\n", i; print "main;big 1000000" }' >"$ht/wide.folded"
"$SCORCH" flamegraph -o "$ht/wide.html" "$ht/wide.folded"
expect_grep "html/no pruning: all 3003 frames" '"frames":3003,' "$ht/wide.html"

# Hostile names and title: never markup in the file.
printf '</script><script>alert(1)</script>;<img src=x onerror=alert(2)> 5\n' >"$ht/hostile.folded"
"$SCORCH" flamegraph --title '</title><script>alert(3)</script>' -o "$ht/h.html" "$ht/hostile.folded"
n=$(grep -c -i -E '<script>alert|<img|</script><script>alert' "$ht/h.html")
if [ "$n" = 0 ] && grep -q '\\u003c/script\\u003e' "$ht/h.html"; then
	ok "html/hostile names and title escaped"
else
	not_ok "html/hostile names and title escaped" "$(grep -i -E '<script>alert|<img' "$ht/h.html" | head -3 | cut -c1-200)"
fi

# Nothing to draw: exit 2, no file, no error image on stdout.
printf '\n' >"$ht/empty.folded"
expect_exit "html/no counts: exit 2" 2 "$SCORCH" flamegraph -o "$ht/e.html" "$ht/empty.folded"
if [ -e "$ht/e.html" ]; then not_ok "html/no counts: no file"; else ok "html/no counts: no file"; fi
expect_exit "html/no counts to stdout: exit 2" 2 "$SCORCH" flamegraph --format html "$ht/empty.folded"
if [ -s "$TMPDIR/out" ]; then not_ok "html/no counts to stdout: nothing written"; else ok "html/no counts to stdout: nothing written"; fi

# A failed run keeps the old file.
echo old >"$ht/keep.html"
"$SCORCH" flamegraph -o "$ht/keep.html" "$ht/empty.folded" 2>/dev/null
if [ "$(cat "$ht/keep.html")" = old ]; then ok "html/failed run keeps the old file"; else not_ok "html/failed run keeps the old file"; fi

# record and report: an output format name, nothing else.
expect_exit "html/report --format bogus is a usage error" 2 "$SCORCH" report --format bogus -o "$ht/x" "$ht/none.data"
expect_grep "html/report --format bogus: named" "not an output format" "$TMPDIR/err"
expect_exit "html/record --format bogus is a usage error" 2 "$SCORCH" record --format bogus -o "$ht/x" -- true
