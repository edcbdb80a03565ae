# Helpers of the report suite, sourced by each of its test files (after
# tests/lib.sh).
. "${0%/*}/../lib.sh"

# weight_share OURS REF: percentage (2 decimals) of REF's total count that
# sits on stacks whose count is the same in OURS (min of the two per stack).
weight_share() {
	awk 'FNR == NR { n = $NF; sub(/ [^ ]*$/, ""); a[$0] += n; next }
		{ n = $NF; sub(/ [^ ]*$/, ""); b[$0] += n; t += n }
		END { for (k in b) { m = (k in a) ? a[k] : 0; s += (m < b[k] ? m : b[k]) }
		      if (t) printf "%.2f\n", 100 * s / t; else print "0.00" }' "$1" "$2"
}

# at_least A B: A >= B for decimal numbers
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

# perf_folded DATA [OPTS...]: perf script's text folded by scorch collapse perf
perf_folded() {
	_d=$1
	shift
	perf script -i "$_d" 2>/dev/null | "$SCORCH" collapse perf "$@" 2>/dev/null
}

# live_setup: fresh captures of tests/workloads/report_mt ($W) go in $L,
# $secs long; live_why says why perf cannot record here (empty when it can).
live_setup() {
	W=$BUILD/workloads/report_mt
	L=$TMPDIR/live
	mkdir -p "$L"
	secs=0.4
	[ -n "${SCORCH_SANITIZED:-}" ] && secs=0.25
	live_why=""
	if ! command -v perf >/dev/null 2>&1; then
		live_why="fail: perf is not installed (scripts/setup installs linux-perf)"
	elif [ ! -x "$W" ]; then
		live_why="fail: workload $W not built (make)"
	elif ! perf record -q -o "$L/probe.data" -- true >/dev/null 2>"$L/probe.err"; then
		# refused a permission (not root, a paranoid sysctl, a container):
		# the machine's; any other failure of perf is a failure
		fail="fail: "
		grep -q -i -E 'permission|not permitted|paranoid|EACCES|EPERM' "$L/probe.err" && fail=
		live_why="${fail}perf record failed: $(grep -v '^$' "$L/probe.err" | head -1 | cut -c1-70)"
	fi
}

# live_fp_data: $L/fp.data, a frame-pointer capture of report_mt.
live_fp_data() {
	perf record -q -g -F 1999 -o "$L/fp.data" -- "$W" "$secs" >/dev/null 2>&1
}

# corpus_setup: the real captures of tests/data/corpus ($C), unpacked into
# $K as needed, with the workload binaries in a private build-id cache and
# the capture kernel's kallsyms under a private HOME ($H), as the corpus
# README describes; corpus_why says why they cannot be read here.
corpus_setup() {
	C=$CORPUS
	K=$TMPDIR/corpus
	mkdir -p "$K"
	corpus_why=""
	if ! command -v perf >/dev/null 2>&1; then
		corpus_why="fail: perf is not installed (scripts/setup installs linux-perf)"
	elif ! command -v xz >/dev/null 2>&1; then
		corpus_why="fail: xz is not installed (scripts/setup installs xz-utils)"
	fi
	[ -n "$corpus_why" ] && return
	H=$K/home
	kid=6ecd6ec21ec69416e50a8aa6737e500901ddb47a
	mkdir -p "$H/.debug/[kernel.kallsyms]/$kid" "$K/bin"
	xz -dc "$C/workloads/kallsyms-6ecd6ec2.xz" >"$H/.debug/[kernel.kallsyms]/$kid/kallsyms"
	tar -xJf "$C/workloads/binaries.tar.xz" -C "$K/bin"
	for b in deep_mt namer tmpl memchurn; do
		HOME=$H perf buildid-cache -a "$K/bin/$b" >/dev/null 2>&1
	done
}
