# scorch merge: inputs of every kind summed into one profile, with a root
# frame per input; and diff reading any input. Expectations are built with
# awk from each input read on its own (collapse for text and pprof, report
# for perf.data).
. "${0%/*}/../lib.sh"
mg=$TMPDIR/merge
mkdir -p "$mg"

printf 'app;main;work 5\napp;main 1\n' >"$mg/web1.folded"
printf 'app;main;work 3\nsshd;poll 2\n' | gzip -c >"$mg/web2.folded.gz"
cp tests/golden/collapse-pprof/go-cpu.in "$mg/gohost.pb.gz"
cp tests/fuzz/corpus/perfdata/fp-true.data "$mg/perf.data" # a small real perf.data (record of `true`)

"$SCORCH" collapse "$mg/web1.folded" >"$mg/web1.alone"
"$SCORCH" collapse "$mg/web2.folded.gz" >"$mg/web2.alone"
"$SCORCH" collapse "$mg/gohost.pb.gz" >"$mg/gohost.alone"
"$SCORCH" report -q "$mg/perf.data" >"$mg/perf.alone" 2>/dev/null
# prefixed NAME FILE...: every line of FILE under root NAME; then summed.
mg_sum() { awk '{ c = $NF; sub(/ [^ ]*$/, ""); n[$0] += c } END { for (s in n) printf "%s %.0f\n", s, n[s] }' | LC_ALL=C sort; }
{
	sed 's/^/web1;/' "$mg/web1.alone"
	sed 's/^/web2;/' "$mg/web2.alone"
	sed 's/^/go;/' "$mg/gohost.alone"
	sed 's/^/box;/' "$mg/perf.alone"
} | mg_sum >"$mg/hosts.want"
if [ -s "$mg/perf.alone" ] && [ -s "$mg/gohost.alone" ]; then ok "merge: inputs readable alone"; else not_ok "merge: inputs readable alone"; fi

expect_exit "merge: NAME=FILE of four kinds exits 0" 0 "$SCORCH" merge web1="$mg/web1.folded" \
	web2="$mg/web2.folded.gz" go="$mg/gohost.pb.gz" box="$mg/perf.data"
LC_ALL=C sort "$TMPDIR/out" >"$mg/hosts.got"
test_cmp "merge: one root per input, each input's stacks below it" "$mg/hosts.want" "$mg/hosts.got"

cat "$mg/web1.alone" "$mg/web2.alone" "$mg/web1.alone" | mg_sum >"$mg/sum.want"
expect_exit "merge: without names" 0 "$SCORCH" merge "$mg/web1.folded" "$mg/web2.folded.gz" "$mg/web1.folded"
LC_ALL=C sort "$TMPDIR/out" >"$mg/sum.got"
test_cmp "merge: without names the stacks are summed" "$mg/sum.want" "$mg/sum.got"

{ sed 's/^/web1;/' "$mg/web1.alone"; sed 's/^/web2;/' "$mg/web2.alone"; } | mg_sum >"$mg/label.want"
expect_exit "merge: --label" 0 "$SCORCH" merge --label "$mg/web1.folded" "$mg/web2.folded.gz"
LC_ALL=C sort "$TMPDIR/out" >"$mg/label.got"
test_cmp "merge: --label names the roots after the files" "$mg/label.want" "$mg/label.got"

# A file whose name has '=' is a file.
cp "$mg/web1.folded" "$mg/a=b.folded"
expect_exit "merge: an existing file with '=' in its name" 0 "$SCORCH" merge "$mg/a=b.folded"
test_cmp "merge: ... is read as a file" "$mg/web1.alone" "$TMPDIR/out"

# Any output format: one graph with a root per host; pprof that reads back.
expect_exit "merge: -o x.svg" 0 "$SCORCH" merge --title 'fleet' --minwidth 0 -o "$mg/hosts.svg" web1="$mg/web1.folded" \
	web2="$mg/web2.folded.gz" go="$mg/gohost.pb.gz" box="$mg/perf.data"
for h in web1 web2 go box; do
	t=$(awk -v h="$h" '$0 ~ "^" h ";" { s += $NF } END { printf "%.0f", s }' "$mg/hosts.want")
	expect_grep "merge: the graph has root $h with its total" "<title>$h ($(printf '%s' "$t" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') samples" "$mg/hosts.svg"
done
expect_exit "merge: -o x.pb.gz" 0 "$SCORCH" merge -o "$mg/hosts.pb.gz" web1="$mg/web1.folded" \
	web2="$mg/web2.folded.gz" go="$mg/gohost.pb.gz" box="$mg/perf.data"
"$SCORCH" collapse "$mg/hosts.pb.gz" | LC_ALL=C sort >"$mg/hosts.pb.got"
test_cmp "merge: its pprof reads back as the same stacks" "$mg/hosts.want" "$mg/hosts.pb.got"

# Errors: the file is named, nothing is written.
expect_exit "merge: a missing input exits 1" 1 "$SCORCH" merge -o "$mg/never.folded" a="$mg/web1.folded" b="$mg/missing.folded"
expect_grep "merge: a missing input is named" "missing.folded" "$TMPDIR/err"
if [ -e "$mg/never.folded" ]; then not_ok "merge: nothing written on error"; else ok "merge: nothing written on error"; fi
expect_exit "merge: no input is a usage error" 2 "$SCORCH" merge
expect_exit "merge --help" 0 "$SCORCH" merge --help
expect_grep "merge --help names NAME=FILE" "NAME=FILE" "$TMPDIR/out"

# diff reads every input format: the pprof and perf.data sides give what
# their folded readings give.
"$SCORCH" diff "$mg/web1.alone" "$mg/gohost.alone" >"$mg/diff.want"
expect_exit "diff: pprof input" 0 "$SCORCH" diff "$mg/web1.folded" "$mg/gohost.pb.gz"
test_cmp "diff: pprof input diffs as its stacks" "$mg/diff.want" "$TMPDIR/out"
"$SCORCH" diff "$mg/perf.alone" "$mg/web2.alone" >"$mg/diff2.want"
expect_exit "diff: perf.data input" 0 "$SCORCH" diff "$mg/perf.data" "$mg/web2.folded.gz"
test_cmp "diff: perf.data input diffs as report folds it" "$mg/diff2.want" "$TMPDIR/out"
