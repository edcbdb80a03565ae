# Conformance: scorch flamegraph draws the frames flamegraph.pl drew.
# For each case of $CONFORMANCE/flamegraph/generated-by-head/svg-frames/
# CASES.txt: same exit code, and (exit 0) the same SET of frames (flamegraph.pl
# writes them in hash order): same titles and labels, geometry within 0.1 px,
# same fill. Also compares the SVG skeleton (everything but style, script and
# frames). Deliberate differences are listed in known-differences.txt.
. "${0%/*}/../lib.sh"
fg_conf_dir=$CONFORMANCE/flamegraph/generated-by-head
if [ ! -f "$fg_conf_dir/svg-frames/CASES.txt" ]; then
	not_ok "svg-frames" "no $fg_conf_dir/svg-frames/CASES.txt (unpacked from tests/data/conformance.tar.xz)"
else
	: >"$TMPDIR/empty.txt"
	# Compare two frame TSVs as sets: sort, then match row by row with a
	# 0.1 px tolerance on the numbers.
	fg_cmp_frames() { # expected actual
		sort "$1" >"$TMPDIR/exp.sorted"
		sort "$2" >"$TMPDIR/act.sorted"
		awk -F'\t' '
			NR == FNR { want[FNR] = $0; nexp = FNR; next }
			{ got[FNR] = $0; nact = FNR }
			function num_ok(a, b) { d = a - b; if (d < 0) d = -d; return d <= 0.1001 }
			END {
				if (nexp != nact) { printf "frame count %d, expected %d\n", nact, nexp; bad = 1 }
				for (i = 1; i <= nexp && i <= nact; i++) {
					ne = split(want[i], e, "\t"); na = split(got[i], a, "\t")
					ok = (ne == na) && e[1] == a[1] && e[6] == a[6] && e[9] == a[9]
					for (k = 2; ok && k <= 8; k++) if (k != 6 && !num_ok(e[k], a[k])) ok = 0
					if (!ok) { if (shown++ < 5) printf "expected: %s\n     got: %s\n", want[i], got[i]; bad = 1 }
				}
				exit bad
			}' "$TMPDIR/exp.sorted" "$TMPDIR/act.sorted"
	}
	# The skeleton: our SVG with the style, script and frame bodies elided
	# as the reference data does.
	fg_skeleton() {
		awk '
			/^<style/ { print "<style> ... (omitted) ... </style>"; skip = "</style>"; next }
			/^<script/ { print "<script> ... (omitted) ... </script>"; skip = "]]></script>"; next }
			/^<g id="frames">/ { print "<g id=\"frames\"> ... (frames: see .tsv) ... </g>"; skip = "</g>__END"; next }
			skip == "</g>__END" { if ($0 == "</svg>") { skip = ""; print } ; next }
			skip != "" { if (index($0, skip)) skip = ""; next }
			{ print }' "$1"
	}
	while IFS='	' read -r fg_case fg_rc fg_args _; do
		fg_rc=${fg_rc#rc=}
		fg_args=${fg_args#args: }
		fg_exp=$fg_conf_dir/svg-frames/$fg_case.tsv
		# Inputs are relative to generated-by-head; empty.txt is ours.
		set --
		for a in $fg_args; do
			case "$a" in
			-*) set -- "$@" "$a" ;;
			empty.txt) set -- "$@" "$TMPDIR/empty.txt" ;;
			*) set -- "$@" "$fg_conf_dir/$a" ;;
			esac
		done
		(cd "$TMPDIR" && "$SCORCH" flamegraph --dump-frames "$@" >"$TMPDIR/frames.tsv" 2>"$TMPDIR/err")
		fg_got=$?
		if [ "$fg_got" != "$fg_rc" ]; then
			not_ok "svg-frames/$fg_case" "exit $fg_got, expected $fg_rc" "$(head -3 "$TMPDIR/err")"
			continue
		fi
		if [ "$fg_rc" != 0 ]; then
			ok "svg-frames/$fg_case (exit $fg_rc)"
			continue
		fi
		if fg_cmp_frames "$fg_exp" "$TMPDIR/frames.tsv" >"$TMPDIR/why"; then
			ok "svg-frames/$fg_case ($(($(wc -l <"$fg_exp") - 1)) frames)"
		else
			not_ok "svg-frames/$fg_case" "$(head -12 "$TMPDIR/why")"
		fi
		(cd "$TMPDIR" && "$SCORCH" flamegraph "$@" >"$TMPDIR/graph.svg" 2>/dev/null)
		fg_skeleton "$TMPDIR/graph.svg" >"$TMPDIR/skel.txt"
		if cmp -s "$fg_conf_dir/svg-frames/$fg_case.skeleton.txt" "$TMPDIR/skel.txt"; then
			ok "svg-frames/$fg_case skeleton"
		else
			not_ok "svg-frames/$fg_case skeleton" "$(diff "$fg_conf_dir/svg-frames/$fg_case.skeleton.txt" "$TMPDIR/skel.txt" | head -8)"
		fi
	done <"$fg_conf_dir/svg-frames/CASES.txt"
fi
