# Helpers of the record suite, sourced by each of its test files (after
# tests/lib.sh). Sourcing it builds the frame-pointer workloads into $WL and
# probes what this machine can sample, setting:
#   WL_SRC   tests/workloads/        WL   the built workloads (burn spawn
#                                         syscalls deep inlined)
#   perf_ok, perf_why   1 when the perf backend samples with kernel stacks,
#                       else 0 and why
#   bpf_ok, bpf_why     the same for the bpf backend
# The workloads and the probe's answers are kept in $TEST_SHARED, so the
# files of one suite run build and probe once; a file run alone does both.
. "${0%/*}/../lib.sh"

WL_SRC=$(cd "${0%/*}/../workloads" && pwd)
WL=$TEST_SHARED/workloads
mkdir -p "$WL"

# record_probe: build the workloads, then see whether this machine can
# sample at all, and load BPF.
record_probe() {
	wl_ok=1
	for w in burn spawn syscalls deep inlined; do
		[ -x "$WL/$w" ] && continue
		cc -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -g -pthread \
			-o "$WL/$w" "$WL_SRC/$w.c" 2>"$TMPDIR/cc.err" || wl_ok=0
	done
	perf_ok=0 bpf_ok=0 perf_why="" bpf_why=""
	if [ "$wl_ok" = 0 ]; then
		perf_why="fail: the workloads do not build (scripts/setup installs build-essential): $(head -1 "$TMPDIR/cc.err" | cut -c1-80)"
		bpf_why=$perf_why
		return
	fi
	# (a run that samples nothing exits 1 with "no samples": sampling works)
	if "$SCORCH" record --backend perf -o "$TMPDIR/probe" -- true 2>"$TMPDIR/probe.err" ||
		grep -q 'no samples' "$TMPDIR/probe.err"; then
		perf_ok=1
		# Unprivileged with perf_event_paranoid 2: user stacks only.
		if grep -q 'user-space sampling only' "$TMPDIR/probe.err"; then
			perf_ok=0
			perf_why="kernel.perf_event_paranoid allows user space only (these tests need kernel stacks)"
		fi
	else
		perf_why="$(probe_why)perf_event_open: $(head -1 "$TMPDIR/probe.err" | cut -c1-80)"
	fi
	if "$SCORCH" record -q --backend bpf -o "$TMPDIR/probe" -- true 2>"$TMPDIR/probe.err" ||
		grep -q 'no samples' "$TMPDIR/probe.err"; then
		bpf_ok=1
	else
		bpf_why="$(probe_why)$(head -1 "$TMPDIR/probe.err" | cut -c1-80)"
	fi
}

# probe_why: "fail: " (skip_or_fail fails) when a probe failed as root for
# another reason than a permission: scorch's fault, not the machine's. Not
# root, or refused a permission (a container without CAP_PERFMON or
# CAP_BPF, a kernel that forbids it), the machine lacks it by design.
probe_why() {
	[ "$(id -u)" = 0 ] || return 0
	grep -q -i -E 'permission|not permitted|paranoid|EACCES|EPERM' "$TMPDIR/probe.err" && return 0
	printf 'fail: '
}

_probe=$TEST_SHARED/record-probe
if [ -d "$_probe" ]; then
	for _v in perf_ok perf_why bpf_ok bpf_why; do
		eval "$_v=\$(cat \"\$_probe/\$_v\")"
	done
else
	record_probe
	mkdir -p "$_probe.new"
	for _v in perf_ok perf_why bpf_ok bpf_why; do
		eval "printf '%s' \"\$$_v\"" >"$_probe.new/$_v"
	done
	mv "$_probe.new" "$_probe"
fi

# offcpu_workloads: build the off-CPU workloads (tests/workloads/nofp/
# blocking and halfsleep) like distribution binaries (-O2, no frame
# pointers: DWARF unwinding finds their callers); oc_ok=0 when one fails.
offcpu_workloads() {
	oc_ok=1
	for w in blocking halfsleep; do
		[ -x "$WL/$w" ] && continue
		cc -O2 -g -fomit-frame-pointer -pthread -o "$WL/$w" "$WL_SRC/nofp/$w.c" 2>"$TMPDIR/cc.err" || oc_ok=0
	done
}

# share FILE PATTERN: percentage of samples on lines matching PATTERN.
share() {
	awk -v pat="$2" '{ n = $NF; t += n; if ($0 ~ pat) m += n }
		END { if (t) printf "%d\n", 100 * m / t; else print 0 }' "$1"
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }

# us FILE PATTERN: microseconds on lines matching PATTERN (awk regex).
us() { awk -v pat="$2" '$0 ~ pat { t += $NF } END { print t + 0 }' "$1"; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# on_share_ok GOT CPU BUSY SLEEP TOL: an on-CPU share GOT (cpu-clock
# samples) within TOL of the range the workload measured: from its CPU
# time (CPU / (CPU + SLEEP)) to its time inside compute (BUSY / (BUSY +
# SLEEP)). cpu-clock's timer counts the host's steal time on a virtual
# machine, the thread's CPU clock does not; the monotonic time in compute
# holds the steal and the run-queue waits too.
on_share_ok() {
	awk -v g="$1" -v c="$2" -v b="$3" -v s="$4" -v t="$5" 'BEGIN {
		if (c + s <= 0 || b + s <= 0) exit 1
		lo = c / (c + s); hi = b / (b + s); if (hi < lo) hi = lo
		exit !(g >= lo - t && g <= hi + t) }'
}
# measured FILE KEY: a figure the workload printed ("key value ...").
measured() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }

# has_kernel_frames FILE: a frame marked _[k] other than a vDSO frame,
# which stackcollapse-perf.pl's --kernel rule also marks (its module,
# [vdso], starts with '['), though a user-mode sample lands there.
has_kernel_frames() {
	sed 's/__vdso_[A-Za-z0-9_]*_\[k\]//g; s/\[vdso\]_\[k\]//g' "$1" | grep -q '_\[k\]'
}

# phase_shares FOLDED TIMES NAME=REGEX...: for a workload that timed its
# own phases (TIMES: "name seconds" lines, tests/workloads/java/Phases.java,
# node/phases.js), compare each phase NAME's share of the CPU time of the
# phases named with its share of the samples of the stacks matching any of
# the REGEXes (awk
# regexes, one per phase: the frame that names it). Prints nothing when
# every share is within 0.05, else each one that is not, and a phase with
# no samples or no time.
phase_shares() {
	_f=$1 _t=$2
	shift 2
	# (the regexes through the environment: awk -v would read their backslashes)
	PHASE_SPECS=$(printf '%s\n' "$@") awk '
	BEGIN { n = split(ENVIRON["PHASE_SPECS"], s, "\n")
		for (i = 1; i <= n; i++) { eq = index(s[i], "="); name[i] = substr(s[i], 1, eq - 1); re[i] = substr(s[i], eq + 1) } }
	FILENAME == ARGV[1] { for (i = 1; i <= n; i++) if ($1 == name[i]) { secs[$1] = $2; tsum += $2 }; next }
	{ c = $NF; hit = 0
	  for (i = 1; i <= n; i++) if ($0 ~ re[i]) { got[i] += c; hit = 1 }
	  if (hit) ssum += c }
	END {
		for (i = 1; i <= n; i++) {
			if (!tsum || !(name[i] in secs)) { printf "%s: no time measured; ", name[i]; continue }
			if (!ssum || !got[i]) { printf "%s: no samples; ", name[i]; continue }
			want = secs[name[i]] / tsum; have = got[i] / ssum; d = have - want
			if (d < -0.05 || d > 0.05) printf "%s: %.3f of the samples, %.3f of the CPU time; ", name[i], have, want
		}
	}' "$_t" "$_f"
}
