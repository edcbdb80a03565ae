# scorch report -j N: the output (folded, graphs, messages, exit status) is
# that of one thread, whatever the number of fold threads. With several,
# each folds the samples of some processes against frozen views of their
# address spaces, and the profiles are merged in sample order
# (src/perfdata/fold_threads.c): name and node ids then come out in one
# thread's order too, which the HTML viewer's tie order and pprof's
# numbering show. Inputs: the real captures of tests/data/corpus (set up by
# t200: private HOME with the capture kernel's kallsyms and the workloads'
# build-id cache), a pipe-mode stream, and option sets.
# Sourced by tests/report/run (lib.sh loaded).

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
	skip "report threads: corpus" "$corpus_why"
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
		skip "report threads: pipe-mode stream" "perf inject -o - failed"
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
