# Conformance with inferno-flamegraph's SVGs ($CONFORMANCE/inferno):
# inferno draws the same frames (as percentages) with flamegraph.pl's --hash
# colours, so for each case below the multiset of (tooltip, fill) pairs must
# match ours. Our run adds --minwidth=0.01% (inferno's default pruning).
# Modes: "fills" compares (name, fill) pairs, "titles" whole tooltips.
# Two inferno-vs-flamegraph.pl differences are factored out (we follow
# flamegraph.pl; see known-differences.txt): inferno trims a frame named
# " " to "" (such frames are left out of the comparison), and its counts
# with --factor round half up where Perl's %.0f rounds half to even (hence
# names, not tooltips, for fills). Differential fills use inferno's own
# scale, so those cases compare tooltips only.
. "${0%/*}/../lib.sh"
infc=$CONFORMANCE/inferno
if [ ! -d "$infc/tests/data/flamegraph" ]; then
	not_ok "inferno-flamegraph" "no $infc/tests/data/flamegraph (unpacked from tests/data/conformance.tar.xz)"
elif ! command -v python3 >/dev/null; then
	not_ok "inferno-flamegraph" "python3 is not installed (scripts/setup installs it)"
else
	inf_pairs() { # SVG -> sorted "title<TAB>fill" lines
		python3 - "$1" "$2" <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
out = []
for tag in ('g', 'a'):
    for g in d.getElementsByTagName(tag):
        t = [c for c in g.childNodes if c.nodeType == 1 and c.tagName == 'title']
        r = [c for c in g.childNodes if c.nodeType == 1 and c.tagName == 'rect']
        if t and r:
            title = t[0].firstChild.data if t[0].firstChild else ''
            out.append((title, r[0].getAttribute('fill')))
mode = sys.argv[2]
def name(t):
    i = t.rfind(' (')
    return t[:i] if i >= 0 and t.endswith(')') else t
out = [(name(t) if mode == 'fills' else t, f) for t, f in out if name(t).strip() != '' or t.startswith('all (')]
print('\n'.join(sorted('%s\t%s' % (t, f) if mode == 'fills' else t for t, f in out)))
PY
	}
	our_pairs() { # TSV from --dump-frames -> sorted "title<TAB>fill"
		python3 - "$1" "$2" <<'PY'
import sys, html
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1], encoding='utf-8') if not l.startswith('#')]
mode = sys.argv[2]
def name(t):
    i = t.rfind(' (')
    return t[:i] if i >= 0 and t.endswith(')') else t
out = [(html.unescape(r[0]), r[5]) for r in rows]
out = [(name(t) if mode == 'fills' else t, f) for t, f in out if name(t).strip() != '' or t.startswith('all (')]
print('\n'.join(sorted('%s\t%s' % (t, f) if mode == 'fills' else t for t, f in out)))
PY
	}
	while IFS='|' read -r inf_name inf_mode inf_args inf_inputs inf_expect; do
		case "$inf_name" in '#'* | '') continue ;; esac
		set --
		for a in $inf_args; do
			case "$a" in tests/*) set -- "$@" "$infc/$a" ;; *) set -- "$@" "$a" ;; esac
		done
		for f in $inf_inputs; do set -- "$@" "$infc/$f"; done
		# --cp cases run where the case's palette.map is ./palette.map.
		rm -rf "$TMPDIR/infcwd" && mkdir -p "$TMPDIR/infcwd"
		inf_map=$(dirname "$infc/$inf_expect")/palette.map
		case " $inf_args " in *" --cp "*) cp "$inf_map" "$TMPDIR/infcwd/palette.map" ;; esac
		(cd "$TMPDIR/infcwd" && "$SCORCH" flamegraph --dump-frames --minwidth=0.01% "$@" >"$TMPDIR/inf.tsv" 2>"$TMPDIR/inf.err")
		our_pairs "$TMPDIR/inf.tsv" "$inf_mode" >"$TMPDIR/inf.ours"
		inf_pairs "$infc/$inf_expect" "$inf_mode" >"$TMPDIR/inf.theirs"
		test_cmp "inferno-flamegraph/$inf_name ($inf_mode)" "$TMPDIR/inf.theirs" "$TMPDIR/inf.ours"
	done <<'CASES'
# name | compare | scorch args | inputs | inferno's SVG
colors-java|fills|--colors java --bgcolors blue --hash|flamegraph/test/results/perf-java-stacks-01-collapsed-all.txt|tests/data/flamegraph/colors/java.svg
colors-js|fills|--colors js --bgcolors green --hash|flamegraph/test/results/perf-js-stacks-01-collapsed-all.txt|tests/data/flamegraph/colors/js.svg
sorted-input|fills|--hash|flamegraph/test/results/perf-vertx-stacks-01-collapsed-all.txt|tests/data/flamegraph/perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all.svg
unsorted-input|fills|--hash|tests/data/flamegraph/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt|tests/data/flamegraph/perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all.svg
multiple-inputs|fills|--hash|tests/data/flamegraph/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-1.txt tests/data/flamegraph/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-2.txt|tests/data/flamegraph/perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all.svg
inverted|fills|--hash --inverted|flamegraph/test/results/perf-vertx-stacks-01-collapsed-all.txt|tests/data/flamegraph/inverted/inverted.svg
factor|fills|--factor 2.5 --hash|flamegraph/test/results/perf-vertx-stacks-01-collapsed-all.txt|tests/data/flamegraph/factor/factor-2.5.svg
reverse|fills|--hash --reverse|tests/data/flamegraph/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt|tests/data/flamegraph/perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all-reversed-stacks.svg
narrow-blocks|fills|--hash|tests/data/flamegraph/narrow-blocks/narrow-blocks.txt|tests/data/flamegraph/narrow-blocks/narrow-blocks.svg
grey-frames|fills|--hash|tests/data/flamegraph/grey-frames/grey-frames.txt|tests/data/flamegraph/grey-frames/grey-frames.svg
flamechart|fills|--flamechart --hash|tests/data/flamegraph/flamechart/flames.txt|tests/data/flamegraph/flamechart/flame.svg
nameattr|fills|--hash --nameattr tests/data/flamegraph/nameattr/nameattr.txt|flamegraph/test/results/perf-cycles-instructions-01-collapsed-all.txt|tests/data/flamegraph/nameattr/nameattr.svg
palette-map|fills|--hash --cp|flamegraph/test/results/perf-vertx-stacks-01-collapsed-all.txt|tests/data/flamegraph/palette-map/consistent-palette.svg
example-perf-stacks|fills|--cp|tests/data/collapse-perf/results/example-perf-stacks-collapsed.txt|tests/data/flamegraph/example-perf-stacks/example-perf-stacks.svg
differential|titles||tests/data/flamegraph/differential/perf-cycles-instructions-01-collapsed-all-diff.txt|tests/data/flamegraph/differential/diff.svg
differential-negated|titles|--negate|tests/data/flamegraph/differential/perf-cycles-instructions-01-collapsed-all-diff.txt|tests/data/flamegraph/differential/diff-negated.svg
CASES
fi
