# PNG output: the SVG's picture. The pixel at each frame (tests/cli/pngcheck.py)
# has the fill the SVG gives that frame (--dump-frames), the image has the
# SVG's width and height, and the title is drawn.
. "${0%/*}/../lib.sh"
pg=$TMPDIR/png
mkdir -p "$pg"
if ! "$SCORCH" version | grep -q '+cairo'; then
	not_ok "png: output" "built without cairo/pango (scripts/setup installs libcairo2-dev libpango1.0-dev)"
	expect_exit "png: without cairo, -o x.png is an error" 1 "$SCORCH" flamegraph examples/lua-build.folded.xz -o "$pg/x.png"
elif ! command -v python3 >/dev/null 2>&1; then
	not_ok "png: output" "no python3 (scripts/setup installs it)"
else
	xz -dc examples/lua-build.folded.xz >"$pg/lua.folded"
	printf '%s\n' 'main;a;b 3' 'main;a;c 2' 'main;d 5' >"$pg/diff-before.folded"
	printf '%s\n' 'main;a;b 1' 'main;a;c 6' 'main;d 5' >"$pg/diff-after.folded"
	"$SCORCH" diff "$pg/diff-before.folded" "$pg/diff-after.folded" >"$pg/diff.folded"
	n=0
	while IFS='|' read -r input opts; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$SCORCH" flamegraph $opts --title "png test $n" "$pg/$input.folded" -o "$pg/$n.png" 2>"$pg/err"
		rc=$?
		# shellcheck disable=SC2086
		"$SCORCH" flamegraph $opts --title "png test $n" "$pg/$input.folded" -o "$pg/$n.svg"
		# shellcheck disable=SC2086
		"$SCORCH" flamegraph $opts --title "png test $n" --dump-frames "$pg/$input.folded" >"$pg/$n.tsv"
		if [ "$rc" = 0 ] && python3 tests/cli/pngcheck.py "$pg/$n.png" "$pg/$n.tsv" "$pg/$n.svg" >"$pg/$n.check" 2>&1; then
			ok "png: $input $opts: same size and fills as the SVG ($(tail -1 "$pg/$n.check"))"
		else
			not_ok "png: $input $opts: same size and fills as the SVG" "exit $rc" "$(head -5 "$pg/$n.check")" "$(head -5 "$pg/err")"
		fi
	done <<-'CASES'
	lua|
	lua|--width 800 --height 24 --fontsize 14 --inverted --colors java --minwidth 2
	lua|--colors mem --bgcolors blue --subtitle sub --hash
	diff|--width 300
	CASES
	expect_exit "png: --format png to stdout" 0 sh -c "\"$SCORCH\" flamegraph --format png \"$pg/diff.folded\" >\"$pg/stdout.png\""
	if [ "$(head -c 8 "$pg/stdout.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then
		ok "png: --format png writes a PNG"
	else
		not_ok "png: --format png writes a PNG" "$(head -c 8 "$pg/stdout.png" | od -An -c)"
	fi
	expect_exit "png: an image cairo cannot draw exits 1" 1 "$SCORCH" flamegraph --width 40000 "$pg/diff.folded" -o "$pg/huge.png"
	expect_grep "png: ... and says why" 'larger than cairo draws' "$TMPDIR/err"
	if [ -e "$pg/huge.png" ]; then not_ok "png: nothing written on error"; else ok "png: nothing written on error"; fi
fi
