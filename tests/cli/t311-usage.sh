# Usage errors (issue 8): every command names the problem on one line with
# "see 'scorch help CMD'", exits 2, and prints no help text; an -o
# extension scorch does not write is one of them, and nothing is written.
. "${0%/*}/../lib.sh"
ut=$TMPDIR/usage
mkdir -p "$ut"
printf 'main;a 1\n' >"$ut/in.folded"
ut_perfdata=tests/fuzz/corpus/perfdata/two-events.data

# usage_case NAME CMD PATTERN ARGS...: exit 2, one line on stderr matching
# PATTERN and naming 'scorch help CMD', nothing on stdout.
usage_case() {
	_n=$1 _c=$2 _p=$3
	shift 3
	"$SCORCH" "$_c" "$@" >"$ut/out" 2>"$ut/err" </dev/null
	_rc=$?
	if [ $_rc = 2 ] && [ "$(wc -l <"$ut/err")" = 1 ] && grep -q -e "$_p" "$ut/err" &&
		grep -q "(see 'scorch help $_c')$" "$ut/err" && [ ! -s "$ut/out" ]; then
		ok "usage/$_c: $_n"
	else
		not_ok "usage/$_c: $_n" "exit $_rc" "$(head -5 "$ut/err")"
	fi
}

for c in flamegraph collapse diff report record merge; do
	usage_case "unknown option" $c "unknown.* option '--frobnicate'" --frobnicate
done
usage_case "no input" merge "give the profiles to merge"
usage_case "unknown short option" diff "unknown option '-x'" -x a b
usage_case "unknown short option in a cluster" record "unknown option '-z'" -qz
usage_case "missing value" flamegraph "option '-o' needs a value" "$ut/in.folded" -o
usage_case "missing value" report "option '-i' needs a value" -i
usage_case "missing value" record "option '--duration' needs a value" --duration
usage_case "missing value" collapse "option '--output' needs a value" --output
usage_case "flag given a value" diff "option '--normalize' doesn't allow an argument" --normalize=3 a b
usage_case "flag given a value" flamegraph "option '--inverted' doesn't allow an argument" --inverted=1
usage_case "wrong argument count" diff "needs two folded profiles" "$ut/in.folded"
usage_case "unexpected argument" report "unexpected argument 'b'" a b
usage_case "bad value" record "-F: frequency must be 1..100000 Hz, not '0'" -F 0 -- true
usage_case "unknown event, with the valid ones" record \
	"-e nosuchevent: unknown event (cpu-clock, cycles, page-faults, .*tracepoint SYS:NAME)" -e nosuchevent -- true
usage_case "bad value" collapse "bad thread count 'x'" --threads=x
usage_case "--script with a graph output" report "--script writes text, not a graph" \
	--script -o "$ut/script.svg" "$ut_perfdata"
if [ ! -e "$ut/script.svg" ]; then ok "usage/report: --script -o X.svg writes nothing"
else not_ok "usage/report: --script -o X.svg writes nothing" "script.svg exists"; fi
if ! grep -q 'elfutils=y' "$BUILD/features" 2>/dev/null; then
	usage_case "--inline without elfutils" report "--inline needs scorch built with elfutils" \
		--inline "$ut_perfdata"
fi

# A value the shared graph-option parser rejects: its message, then the hint.
for c in flamegraph report record merge; do
	"$SCORCH" $c --width=abc -o "$ut/never.svg" -- true >/dev/null 2>"$ut/err" </dev/null
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$ut/err")" = 2 ] && grep -q "^scorch: --width: 'abc' is not a positive integer$" "$ut/err" &&
		grep -q "^scorch: see 'scorch help $c'$" "$ut/err"; then
		ok "usage/$c: a bad graph option value is named, then the help to see"
	else
		not_ok "usage/$c: a bad graph option value is named, then the help to see" "exit $rc" "$(cat "$ut/err")"
	fi
done

# -o extensions: rejected before any work, nothing created.
ext_case() { # CMD EXT PATTERN ARGS...
	_c=$1 _e=$2 _p=$3
	shift 3
	usage_case "-o x$_e is refused" $_c "-o $ut/x$_e: $_p" -o "$ut/x$_e" "$@"
	if [ -e "$ut/x$_e" ]; then not_ok "usage/$_c: -o x$_e creates nothing"; else ok "usage/$_c: -o x$_e creates nothing"; fi
}
unsupported="unsupported output format"
ext_case flamegraph .jpg "$unsupported; flamegraph writes .svg, .html, .*.speedscope.json (see" "$ut/in.folded"
ext_case flamegraph .folded "not a format this command writes; flamegraph writes .svg" "$ut/in.folded"
ext_case collapse .svg "not a format this command writes; collapse writes .pb.gz, .speedscope.json, or folded stacks as .folded or any other name" "$ut/in.folded"
ext_case collapse .json "$unsupported" "$ut/in.folded"
ext_case diff .html "not a format this command writes; diff writes folded stacks as .folded or any other name" "$ut/in.folded" "$ut/in.folded"
ext_case diff .pb.gz "not a format this command writes" "$ut/in.folded" "$ut/in.folded"
ext_case diff .folded.gz "$unsupported" "$ut/in.folded" "$ut/in.folded"
ext_case report .gif "$unsupported; report writes .svg, .html, .*.speedscope.json, or folded stacks as .folded or any other name" "$ut_perfdata"
ext_case report .data "$unsupported" "$ut_perfdata"
ext_case record .pdf "$unsupported; record writes .svg, .html, .*.speedscope.json, or folded stacks" -- true
ext_case record .JPEG "$unsupported" -- true
# Without a target record samples the whole system, and says so when stdin
# is not a terminal; a usage error still comes first, alone on its line.
ext_case record .gz "$unsupported; record writes"
usage_case "-f with a graph output, whole system" record \
	"-f asks for folded stacks, but the output is a graph (-o $ut/f.svg)" -f -o "$ut/f.svg"
ext_case merge .webp "$unsupported" "$ut/in.folded"

# Names that are not refused: the command's default, or the extension's.
expect_exit "usage/flamegraph: -o without extension writes an SVG" 0 "$SCORCH" flamegraph "$ut/in.folded" -o "$ut/graph"
expect_grep "usage/flamegraph: -o without extension is an SVG" "^<svg " "$ut/graph"
expect_exit "usage/collapse: -o x.txt writes folded stacks" 0 "$SCORCH" collapse folded "$ut/in.folded" -o "$ut/x.txt"
expect_grep "usage/collapse: -o x.txt is folded" "^main;a 1$" "$ut/x.txt"
expect_exit "usage/report: -o X.SVG (any case) writes an SVG" 0 "$SCORCH" report -q "$ut_perfdata" -o "$ut/X.SVG"
expect_grep "usage/report: -o X.SVG is an SVG" "^<svg " "$ut/X.SVG"
expect_exit "usage/flamegraph: --format svg wins over the extension" 0 "$SCORCH" flamegraph --format svg "$ut/in.folded" -o "$ut/forced.png"
expect_grep "usage/flamegraph: --format svg -o forced.png is an SVG" "^<svg " "$ut/forced.png"
