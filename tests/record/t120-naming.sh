# record names JIT frames as `perf record -g` + `perf script` +
# `collapse perf --jit` name them: code in an anonymous mapping belongs to
# the module /tmp/perf-PID.map (found in the map or not), so --jit gives
# it _[j] and an unknown symbol there is [perf-PID.map]. The workload
# writes its own perf map (tests/workloads/report_jit.c). Kernel-module
# frames ("[ext4]") are checked by tests/unit/test_kmodules.c: machines
# without loaded modules cannot sample any.
. "${0%/*}/lib.sh"

# heaviest FOLDED: the stack with the most samples, its pid written N.
heaviest() {
	sort -t' ' -k2,2n "$1" | tail -1 | sed 's/ [0-9]*$//; s/^report_jit-[0-9]*;/report_jit;/; s/perf-[0-9]*\.map/perf-N.map/g'
}

jit_names() { # backend variant
	be=$1 variant=$2
	name="record $be --jit: JIT frames named as perf script + collapse perf --jit ($variant)"
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	if [ "$be_ok" != 1 ] || [ "$(uname -m)" != x86_64 ]; then
		skip_or_fail "$name" "${be_why:-x86-64 only}"
		return
	fi
	if ! perf record -q -g -F 499 -o "$TMPDIR/jitn.data" -- "$BUILD/workloads/report_jit" 0.5 $variant \
		>/dev/null 2>"$TMPDIR/jitn.err" ||
		! perf script -i "$TMPDIR/jitn.data" >"$TMPDIR/jitn.script" 2>>"$TMPDIR/jitn.err"; then
		not_ok "$name" "perf record/script did not run: $(head -1 "$TMPDIR/jitn.err" | cut -c1-60)"
		return
	fi
	"$SCORCH" collapse perf --jit --kernel "$TMPDIR/jitn.script" >"$TMPDIR/jitn.want" 2>/dev/null
	"$SCORCH" record -q --backend "$be" -F 499 --jit --kernel --annotate-pid -o "$TMPDIR/jitn.folded" -- \
		"$BUILD/workloads/report_jit" 0.5 $variant 2>"$TMPDIR/jitn.err"
	for f in "$TMPDIR/jitn.script" "$TMPDIR/jitn.folded"; do
		p=$(sed -n 's/^report_jit[ -]*\([0-9]\{1,\}\)[ ;].*/\1/p' "$f" | head -1)
		[ -n "$p" ] && rm -f "/tmp/perf-$p.map"
	done
	want=$(heaviest "$TMPDIR/jitn.want") got=$(heaviest "$TMPDIR/jitn.folded")
	case "$want" in
	*_\[j\]*) ;;
	*) not_ok "$name" "perf script's heaviest stack has no JIT frame: $want"; return ;;
	esac
	if [ "$want" = "$got" ]; then
		ok "$name"
	else
		not_ok "$name" "perf: $want" "record: $got" "$(head -3 "$TMPDIR/jitn.err")"
	fi
}

for be in perf bpf; do
	jit_names $be named
	jit_names $be unnamed
done
