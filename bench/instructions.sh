#!/bin/sh
# Instructions (valgrind's callgrind, all threads) of report and flamegraph
# on the bench captures, for this build and a base build side by side: a
# count that a shared, loaded machine does not move, for changes whose cost
# is a few percent (issue 31: "report and flamegraph ... stay within 5% of
# today" when time is not asked; today = BASE, default 0a37977, the commit
# before the time model). Also checks that both builds write the same
# bytes. Prints per command: base and new instructions, the ratio, and the
# functions whose counts moved most (callgrind_annotate).
#   bench/instructions.sh           BASE=REV (default 0a37977)
#   CAPTURES='b-sys-gcc a-fp-mt e-cxx-dwarf' (from tests/data/corpus
#   or CORPUS)
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
command -v valgrind >/dev/null || { echo "bench/instructions.sh needs valgrind" >&2; exit 1; }
SCORCH=${SCORCH:-./scorch}
BASE_BIN=${BASE_BIN:-$(bench_base_build "${BASE:-0a37977}")}
[ -n "$BASE_BIN" ] || { echo "no base build" >&2; exit 1; }
CORPUS_DIR=${CORPUS:-tests/data/corpus}
OUT=$BENCH_DIR/instructions
mkdir -p "$OUT"
bench_load

# instructions BIN ARGS...: the count callgrind collected (its output in $OUT/cg.*)
instructions() {
	bin=$1
	shift
	valgrind --tool=callgrind --cache-sim=no --callgrind-out-file="$OUT/cg.$who" "$bin" "$@" \
		>"$OUT/$who.out" 2>"$OUT/$who.err" || { echo "# $bin $* failed: $(tail -2 "$OUT/$who.err")" >&2; return 1; }
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/$who.err"
}

# the functions of the two profiles whose counts differ most
moved() {
	for who in base new; do
		callgrind_annotate --auto=no "$OUT/cg.$who" 2>/dev/null | sed -n '/file:function/,$p' |
			sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%) *[^ ]*:\([^ :]*\) .*/\2 \1/p' | tr -d , | sort >"$OUT/fn.$who"
	done
	join -a1 -a2 -e0 -o 0,1.2,2.2 "$OUT/fn.base" "$OUT/fn.new" |
		awk '{ d = $3 - $2; if (d > 200000 || d < -200000) printf "#     %+12d  %s\n", d, $1 }' | sort -k2 -rn | head -6
}

compare() {
	for who in base new; do
		bin=$SCORCH
		[ "$who" = base ] && bin=$BASE_BIN
		eval "${who}_ir=\$(instructions \"\$bin\" \"\$@\")" || return 0
	done
	same=same
	cmp -s "$OUT/base.out" "$OUT/new.out" || same=DIFFERENT
	awk -v b="$base_ir" -v n="$new_ir" -v what="$*" -v same="$same" 'BEGIN {
		printf "%-40s %14.0f %14.0f %7.3f  output %s\n", what, b, n, n / b, same }'
	moved
}

printf '%-40s %14s %14s %7s\n' command base new ratio
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scorch-ir.XXXX")
trap 'rm -rf "$tmp"' EXIT
for c in ${CAPTURES:-b-sys-gcc a-fp-mt e-cxx-dwarf}; do
	xz -dc "$CORPUS_DIR/$c.data.xz" >"$tmp/$c.data" || continue
	compare report "$tmp/$c.data"
done
if xz -dc "$CORPUS_DIR/b-sys-gcc.perf.txt.xz" >"$tmp/b.txt"; then
	"$SCORCH" collapse perf "$tmp/b.txt" >"$tmp/b.folded"
	compare flamegraph "$tmp/b.folded"
	compare collapse perf "$tmp/b.txt"
fi
