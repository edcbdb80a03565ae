# Helpers for the benchmarks (sourced, not run): a precise timer, a
# previous scorch built for comparison, and medians of alternating runs.
# Expects OUT (a folder for this benchmark's files) and runs from the
# repository root.

BENCH_DIR=${BENCH_OUT:-bench/out}
mkdir -p "$BENCH_DIR"

# bench/timeit.c: wall, user, sys (microseconds) and peak RSS of one run.
TIMEIT=$BENCH_DIR/timeit
if [ ! -x "$TIMEIT" ] || [ bench/timeit.c -nt "$TIMEIT" ]; then
	${CC:-cc} -O2 -o "$TIMEIT" bench/timeit.c
fi

bench_load() {
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (shared machine)"
}

# bench_base_build REV: print the path of a scorch built from commit REV
# (built once, in a temporary worktree); nothing for REV "none".
bench_base_build() {
	rev=$1
	[ "$rev" = none ] && return 0
	bin=$BENCH_DIR/scorch-base-$rev
	if [ ! -x "$bin" ]; then
		echo "# building scorch at $rev into $bin" >&2
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/scorch-base.XXXXXX")
		git worktree add --detach "$tmp/src" "$rev" >/dev/null 2>&1
		if nice make -C "$tmp/src" -j2 scorch >"$tmp/build.log" 2>&1; then
			cp "$tmp/src/scorch" "$bin"
		else
			echo "# cannot build $rev: $(tail -2 "$tmp/build.log")" >&2
		fi
		git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true
		rm -rf "$tmp"
	fi
	[ -x "$bin" ] && echo "$bin"
	return 0
}

# median of the numbers in a file
bench_median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# bench_median_pair RUNS BASE NEW ARGS...: RUNS runs of "BASE ARGS" and
# "NEW ARGS" alternating (BASE may be empty: then only NEW). Sets
# {base,new}_{wall,cpu} (medians, seconds) and {base,new}_rss (largest, KiB);
# the last outputs are in $OUT/base.out and $OUT/new.out.
bench_median_pair() {
	runs=$1 b=$2 n=$3
	shift 3
	for who in base new; do
		: >"$OUT/$who.walls"
		: >"$OUT/$who.cpus"
		eval "${who}_rss=0"
	done
	for i in $(seq "$runs"); do
		for who in base new; do
			bin=$n
			[ "$who" = base ] && bin=$b
			[ -n "$bin" ] || continue
			if ! "$TIMEIT" "$OUT/time.txt" nice "$bin" "$@" >"$OUT/$who.out" 2>"$OUT/$who.err"; then
				echo "# $who ($bin $*) failed: $(head -2 "$OUT/$who.err")" >&2
				return 1
			fi
			read -r wall usr sys kb <"$OUT/time.txt"
			echo "#   $who run $i: ${wall}s wall, ${usr}s user, ${sys}s sys, $((kb / 1024)) MiB" >&2
			echo "$wall" >>"$OUT/$who.walls"
			awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }' >>"$OUT/$who.cpus"
			eval "if [ \"$kb\" -gt \"\$${who}_rss\" ]; then ${who}_rss=$kb; fi"
		done
	done
	for who in base new; do
		if [ -s "$OUT/$who.walls" ]; then
			eval "${who}_wall=$(bench_median "$OUT/$who.walls") ${who}_cpu=$(bench_median "$OUT/$who.cpus")"
		else
			eval "${who}_wall= ${who}_cpu="
		fi
		rm -f "$OUT/$who.walls" "$OUT/$who.cpus" "$OUT/$who.err"
	done
}
