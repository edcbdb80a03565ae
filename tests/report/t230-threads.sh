# scorch report -j N: the output (folded, graphs, messages, exit status) is
# that of one thread, whatever the number of fold threads. With several,
# each folds the samples of some processes against frozen views of their
# address spaces, and the profiles are merged in sample order
# (src/perfdata/fold_threads.c): name and node ids then come out in one
# thread's order too, which the HTML viewer's tie order and pprof's
# numbering show. Inputs: the real captures of tests/data/corpus (lib.sh's
# corpus_setup: private HOME with the capture kernel's kallsyms and the
# workloads' build-id cache), a pipe-mode stream, and option sets.
. "${0%/*}/lib.sh"
corpus_setup

rt=$TMPDIR/report-threads
mkdir -p "$rt"

# rt_same NAME FILE OPTIONS...: -j1 against -j2 and -j3 (stdout, stderr,
# exit status; -o outputs are compared through the files). FILE -: the
# stream in $rt/stdin.
rt_same() {
	name=$1 f=$2
	shift 2
	in=$f
	[ "$f" = - ] && in=$rt/stdin
	HOME=$H "$SCORCH" report -j1 "$@" "$f" >"$rt/one.out" 2>"$rt/one.err" <"$in"
	rc1=$?
	[ -f "$rt/graph" ] && mv "$rt/graph" "$rt/one.graph"
	bad=
	for j in 2 3; do
		HOME=$H "$SCORCH" report -j$j "$@" "$f" >"$rt/n.out" 2>"$rt/n.err" <"$in"
		rc=$?
		[ "$rc" = "$rc1" ] || bad="$bad -j$j:exit $rc (one thread: $rc1)"
		cmp -s "$rt/one.out" "$rt/n.out" || bad="$bad -j$j:output ($(diff "$rt/one.out" "$rt/n.out" | grep -c '^[<>]') lines)"
		cmp -s "$rt/one.err" "$rt/n.err" || bad="$bad -j$j:messages"
		if [ -f "$rt/graph" ]; then
			cmp -s "$rt/one.graph" "$rt/graph" || bad="$bad -j$j:graph file"
			rm -f "$rt/graph"
		fi
	done
	rm -f "$rt/one.graph"
	if [ -z "$bad" ] && [ "$rc1" = 0 ]; then
		ok "$name"
	else
		not_ok "$name" "differs from one thread:$bad (one thread: exit $rc1)" "$(head -3 "$rt/n.err")"
	fi
}

if [ -n "$corpus_why" ]; then
	skip_or_fail "report threads: corpus" "$corpus_why"
else
	# option sets: words, several options joined by '+'
	opts_all="default --pid --tid --kernel --jit --all --addrs --per-cpu --no-inline --max-stack=4 --no-demangle --tid+--per-cpu+--all"
	opts_few="default --tid --all --per-cpu"
	[ -n "${SCORCH_SANITIZED:-}" ] && opts_all=$opts_few
	for c in a-fp-mt c-kernel f1-cpuclock-F997 f2-two-events e-cxx-dwarf b-sys-gcc; do
		[ -f "$K/$c.data" ] || xz -dc "$C/$c.data.xz" >"$K/$c.data"
		opts=$opts_all
		[ "$c" = b-sys-gcc ] || [ "$c" = e-cxx-dwarf ] && opts=$opts_few
		[ "$c" = f2-two-events ] && opts="$opts --event-filter=page-faults --pid+--event-filter=cpu-clock"
		[ -n "${SCORCH_SANITIZED:-}" ] && { [ "$c" = b-sys-gcc ] || [ "$c" = e-cxx-dwarf ]; } && continue
		for opt in $opts; do
			o=$(echo "$opt" | sed 's/^default$//' | tr + ' ')
			# shellcheck disable=SC2086 # option words
			rt_same "report threads: $c $opt, as one thread" "$K/$c.data" -q $o
		done
	done
	# graphs: the HTML viewer orders equal names by first appearance, the
	# SVG is drawn from the merged profile; pprof and --inline fold on one
	# thread (checked all the same)
	for c in f2-two-events b-sys-gcc; do
		[ -n "${SCORCH_SANITIZED:-}" ] && [ "$c" = b-sys-gcc ] && continue
		rt_same "report threads: $c -o x.svg, as one thread" "$K/$c.data" -q -o "$rt/graph" --format svg
		rt_same "report threads: $c -o x.html, as one thread" "$K/$c.data" -q -o "$rt/graph" --format html
		rt_same "report threads: $c -o x.pb.gz, as one thread" "$K/$c.data" -q -o "$rt/graph" --format pprof
	done
	rt_same "report threads: a-fp-mt --inline, as one thread" "$K/a-fp-mt.data" -q --inline
	rt_same "report threads: c-kernel --script, as one thread" "$K/c-kernel.data" -q --script
	rt_same "report threads: f2-two-events --stats, as one thread" "$K/f2-two-events.data" --stats
	# pipe mode: the stream on stdin (perf inject writes the capture as one)
	if HOME=$H perf inject -i "$K/a-fp-mt.data" -o - >"$rt/stdin" 2>/dev/null && [ -s "$rt/stdin" ]; then
		rt_same "report threads: pipe-mode stream on stdin, as one thread" - -q --tid
	else
		not_ok "report threads: pipe-mode stream on stdin, as one thread" "perf inject -o - failed"
	fi
fi

# Damage in a sample of a capture whose periods sum past 2^53: report -j
# folds it again on one thread (fold.c: sums that large round in the
# order they were added), and the damage is reported once, as with -j1.
# Two samples of a-fp-mt are edited: one's period becomes 2^60, another's
# callchain claims 2^20 entries its record has no room for.
if [ -n "$corpus_why" ]; then
	skip_or_fail "report threads: damaged sample with a huge period" "$corpus_why"
elif ! command -v python3 >/dev/null; then
	not_ok "report threads: damaged sample with a huge period" "python3 is not installed (scripts/setup installs it)"
else
	python3 - "$K/a-fp-mt.data" "$rt/huge.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
attrs_off, = struct.unpack_from('<Q', d, 24)
data_off, data_size = struct.unpack_from('<QQ', d, 40)
st, = struct.unpack_from('<Q', d, attrs_off + 24)  # the first attribute's sample_type
assert not st & 16, 'READ in sample_type'
# u64 fields before PERIOD and CALLCHAIN: IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU
before = sum(1 for b in (1 << 16, 1, 2, 4, 8, 64, 512, 128) if st & b)
assert st & 256 and st & 32, 'no PERIOD or CALLCHAIN'
pos, end, n = data_off, data_off + data_size, 0
while pos < end:
    typ, misc, size = struct.unpack_from('<IHH', d, pos)
    if typ == 9:
        n += 1
        if n == 100:
            struct.pack_into('<Q', d, pos + 8 + 8 * before, 1 << 60)
        if n == 200:
            struct.pack_into('<Q', d, pos + 8 + 8 * (before + 1), 1 << 20)
            break
    pos += size
assert n == 200, 'fewer than 200 samples'
open(sys.argv[2], 'wb').write(d)
PY
	for j in 1 2; do
		HOME=$H "$SCORCH" report -k -j$j "$rt/huge.data" >"$rt/huge$j.out" 2>"$rt/huge$j.err"
		echo "exit $?" >>"$rt/huge$j.err"
	done
	if [ "$(grep -c 'too short for its callchain' "$rt/huge1.err")" = 1 ] &&
		cmp -s "$rt/huge1.out" "$rt/huge2.out" && cmp -s "$rt/huge1.err" "$rt/huge2.err"; then
		ok "report threads: damaged sample with a huge period, reported once as with -j1"
	else
		not_ok "report threads: damaged sample with a huge period" "-j1 vs -j2 messages:" \
			"$(diff "$rt/huge1.err" "$rt/huge2.err")"
	fi
fi

# A bad thread count is a usage error (exit 2, one line naming the option).
for v in -1 x 1025 ''; do
	"$SCORCH" report -j "$v" /dev/null >"$rt/out" 2>"$rt/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q "threads" "$rt/err" && [ "$(wc -l <"$rt/err")" -le 2 ] && [ ! -s "$rt/out" ]; then
		ok "report threads: -j '$v' is a usage error"
	else
		not_ok "report threads: -j '$v' is a usage error" "exit $rc: $(cat "$rt/err")"
	fi
done
