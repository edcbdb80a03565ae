# A user stack with pages that were never touched between the leaf and
# the thread's start (tests/workloads/nofp/holes.c, as coreutils sort's
# merge threads under compare()'s 8 KiB buffer): the BPF backend's copy
# skips the pages it cannot read, so stacks still reach start_thread. The
# kernel's copy for the perf backend ends at the first such page (as
# `perf record --call-graph dwarf`'s does): there the stacks must say they
# broke ([unknown] under the process name), never pass for complete.
. "${0%/*}/lib.sh"

HW=$TMPDIR/holes-wl
mkdir -p "$HW"
holes_ok=1
cc -O2 -g -fomit-frame-pointer -pthread -o "$HW/holes" "$WL_SRC/nofp/holes.c" 2>"$TMPDIR/cc.err" || holes_ok=0

for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	[ "$holes_ok" = 1 ] || be_ok=0 be_why="no C compiler for the workload"
	grep -q 'elfutils=y' "$BUILD/features" 2>/dev/null || be_ok=0 be_why="built without elfutils (no DWARF unwinder)"
	if [ "$be_ok" != 1 ]; then
		skip_or_fail "record $be: stacks past untouched stack pages" "$be_why"
		continue
	fi
	f=$TMPDIR/holes-$be.folded
	"$SCORCH" record --backend $be -F 999 -o "$f" -- "$HW/holes" 2>"$TMPDIR/holes.err"
	n=$(total "$f")
	reach=$(share "$f" '^holes;clone3;start_thread;worker;compare[^;]*;leaf( |;)')
	broken=$(share "$f" '^holes;\[unknown\];compare[^;]*;leaf( |;)')
	if [ "$be" = bpf ]; then
		if [ "$n" -ge 50 ] && [ "$reach" -ge 90 ]; then
			ok "record $be: stacks past untouched stack pages reach start_thread"
		else
			not_ok "record $be: stacks past untouched stack pages reach start_thread" "$reach% of $n samples" \
				"$(sort -t' ' -k2 -nr "$f" | head -3 | cut -c1-200)"
		fi
	elif [ "$n" -ge 50 ] && [ $((reach + broken)) -ge 90 ]; then
		ok "record $be: stacks cut at untouched stack pages are marked [unknown] ($reach% reach start_thread)"
	else
		not_ok "record $be: stacks cut at untouched stack pages are marked [unknown]" \
			"$reach% reach, $broken% marked, of $n samples" "$(sort -t' ' -k2 -nr "$f" | head -3 | cut -c1-200)"
	fi
done
