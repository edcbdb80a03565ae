# Golden SVGs of scorch flamegraph (tests/golden/flamegraph/CASES; inputs
# from the flamegraph.pl conformance data, whose frames tests/conformance
# also checks against flamegraph.pl). A byte comparison of reviewed output:
# it catches any change to the SVG text. REGEN=1 rewrites the goldens. Also
# one frame TSV per palette, with and without --hash, on the same input.
fgg=tests/golden/flamegraph
fgb=$CONFORMANCE/flamegraph/generated-by-head
if [ ! -d "$fgb" ]; then
	not_ok "golden/flamegraph" "no $fgb (unpacked from tests/data/conformance.tar.xz)"
else
	while IFS= read -r fg_line; do
		case "$fg_line" in '#'* | '') continue ;; esac
		fg_line=$(printf '%s' "$fg_line" | sed "s#\$IN#$fgb/inputs#g; s#\$GB#$fgb#g; s#\$HERE#$fgg#g")
		fg_ifs=$IFS
		IFS='|'
		set -f
		set -- $fg_line
		set +f
		IFS=$fg_ifs
		fg_name=$1
		shift
		"$SCORCH" flamegraph "$@" >"$TMPDIR/golden.svg" 2>"$TMPDIR/golden.err"
		if [ -n "${REGEN:-}" ]; then cp "$TMPDIR/golden.svg" "$fgg/$fg_name.svg"; fi
		test_cmp "golden/flamegraph/$fg_name" "$fgg/$fg_name.svg" "$TMPDIR/golden.svg"
	done <"$fgg/CASES"
	for pal in hot mem io wakeup chain java js perl red green blue aqua yellow purple orange; do
		for seed in "" --hash; do
			"$SCORCH" flamegraph --dump-frames --colors=$pal $seed "$fgb/inputs/misc.folded" >"$TMPDIR/pal.tsv" 2>/dev/null
			if [ -n "${REGEN:-}" ]; then cp "$TMPDIR/pal.tsv" "$fgg/palette-$pal$seed.tsv"; fi
			test_cmp "golden/flamegraph/palette $pal $seed" "$fgg/palette-$pal$seed.tsv" "$TMPDIR/pal.tsv"
		done
	done
fi
