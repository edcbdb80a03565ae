# scorch record of CPython programs: Python frames drawn by their own
# functions in mixed stacks, on both backends, for a command, -p and a
# python started by a shell. The workload (tests/workloads/python/phases.py)
# times each of its phases with its threads' own CPU clocks: the shares
# are held to that, within 0.05. Debian's /usr/bin/python3.11 is required
# (scripts/setup installs python3): missing, the tests fail. pyenv's builds
# of other versions are used where present.
. "${0%/*}/lib.sh"
. "${0%/*}/../pprof.sh" # pp_traces_folded
PY_WL=$WL_SRC/python/phases.py
PY311=/usr/bin/python3.11
PYENV_VERSIONS=${PYENV_ROOT:-$HOME/.pyenv}/versions
pyout=$TMPDIR/python
mkdir -p "$pyout"

# py_share FOLDED NAME: the share of the phase frames' samples under NAME.
py_share() {
	awk -v name="$2" '
	{ n = $NF; hit = 0
	  for (i = 0; i < 5; i++) if (index($0, ";" ph[i] " (phases.py)")) { tot += n; break } }
	index($0, ";" name " (phases.py)") { own += n }
	BEGIN { ph[0] = "caller_x"; ph[1] = "caller_y"; ph[2] = "caller_z"; ph[3] = "deep"; ph[4] = "thread_main" }
	END { if (tot) printf "%.3f", own / tot }' "$1"
}
# py_measured TIMES NAME: the workload's own share of NAME.
py_measured() {
	awk -v name="$2" '{ t += $2; if ($1 == name) own = $2 } END { if (t) printf "%.3f", own / t }' "$1"
}
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }

# py_shares LABEL FOLDED TIMES [ERR]: each phase's share within 0.05 of
# its time. With ERR (perf's summary), the share of samples whose Python
# frames were dropped (they had changed before perf read them), d, is
# added: dropping d of the samples moves a share among those kept by at
# most d / (1 - d), and which ones are dropped is not random (the phases
# whose frames change most lose most).
py_shares() {
	bad="" tol=0.05 dropped=0
	if [ -n "${4:-}" ]; then
		dropped=$(sed -n 's/.*read after the sample: \([0-9.]*\)% dropped.*/\1/p' "$4")
		tol=$(awk -v d="${dropped:-0}" 'BEGIN { d /= 100; printf "%.3f", 0.05 + (d < 1 ? d / (1 - d) : 1) }')
	fi
	for ph in caller_x caller_y caller_z deep thread_main; do
		got=$(py_share "$2" $ph) want=$(py_measured "$3" $ph)
		near "$got" "$want" "$tol" || bad="$bad $ph: $got of the samples, $want of the CPU time;"
	done
	if [ -z "$bad" ]; then ok "$1: shares (within $tol${4:+: ${dropped:-0}% dropped})"
	else not_ok "$1: shares" "$bad (within $tol)" "$(cat "$3")"; fi
}

# py_chains LABEL FOLDED: whole mixed stacks, in order.
py_chains() {
	f=$2 bad=""
	grep -q '^python3\.11;_start;__libc_start_main[^;]*;.*Py_RunMain;.*<module> (phases\.py);main (phases\.py);timed (phases\.py);caller_x (phases\.py);until (phases\.py);py_handler_a (phases\.py)' "$f" ||
		bad="$bad native main below <module>;main;timed;caller_x;until;py_handler_a;"
	grep -q ';caller_y (phases\.py);until (phases\.py);py_handler_b (phases\.py)' "$f" || bad="$bad caller_y;until;py_handler_b;"
	grep -q ';caller_z (phases\.py);until (phases\.py);c_leaf (phases\.py);.*deflate' "$f" ||
		bad="$bad zlib's deflate above c_leaf;"
	grep -qE 'start_thread;.*Thread\._bootstrap \(threading\.py\);Thread\._bootstrap_inner \(threading\.py\);Thread\.run \(threading\.py\);([^;]*;)*thread_main \(phases\.py\);thread_spin \(phases\.py\)' "$f" ||
		bad="$bad the thread: start_thread;...;Thread._bootstrap;...;thread_main;"
	grep -qE '\(phases\.py\);([^;]*;)*(entry_SYSCALL_64[^;]*|asm_sysvec_[^;]*|asm_exc_page_fault|irqentry_[^;]*)[; ]' "$f" ||
		bad="$bad kernel frames above a Python frame;"
	deepest=$(awk -F';' '{ n = 0; for (i = 1; i <= NF; i++) if ($i == "recurse (phases.py)") n++; if (n > m) m = n } END { print m + 0 }' "$f")
	grep -q ';deep (phases\.py);recurse (phases\.py);.*;recurse (phases\.py);until (phases\.py);deep_leaf (phases\.py)' "$f" &&
		[ "$deepest" -ge 1001 ] || bad="$bad deep;recurse x1001;until;deep_leaf (deepest: $deepest);"
	if [ -z "$bad" ]; then ok "$1: chains"; else not_ok "$1: chains" "missing:$bad"; fi
}

# The whole summary line: perf adds how often the frames read after the
# sample were dropped or cut.
# Samples without a stack copy (all with --call-graph fp; a few with DWARF,
# e.g. one taken as the thread left user space) are counted apart.
PY_LATE='( \(read after the sample: [0-9.]*% dropped, none of them running then; [0-9.]*% with newer calls left out\))?( \([0-9.]*% read after the sample with no stack copy to check them against\))?$'

# py_at_instant LABEL FOLDED: BPF reads the frames at the sample, so only
# a call entering or leaving zlib between the native walk and the Python
# one can disagree: at most 0.02 of the zlib samples with Python frames
# other than c_leaf's. A sample with native frames only is not a wrong
# name (2-4% under ASan, where record runs slower; ~0 otherwise): at most
# 0.10.
py_at_instant() {
	set -- "$1" $(py_zlib "$2")
	awk -v w="$2" -v p="$3" -v n="$4" 'BEGIN { exit !(w != "-" && w + p <= 0.02 && n <= 0.10) }' &&
		ok "$1: Python frames of the sample's instant ($2 + $3 of $5 zlib samples with other frames, $4 native only)" ||
		not_ok "$1: Python frames of the sample's instant" "$2 + $3 of $5 zlib samples with other Python frames (at most 0.02), $4 native only (at most 0.10)"
}

# py_zlib FOLDED: the zlib samples' Python frames, as shares of them:
# "WRONG PARTIAL NATIVE TOTAL": with a frame of another phase (wrong),
# with c_leaf's callers only (the newer frames left out), with none.
py_zlib() {
	awk '/;deflate/ { z += $NF
		if ($0 ~ /(caller_[xy]|deep|recurse|py_handler_[ab]|deep_leaf|thread_[a-z]*) \(phases\.py\)/) w += $NF
		else if ($0 ~ /;c_leaf \(phases\.py\);/) r += $NF
		else if ($0 ~ /\.py\)/) p += $NF
		else n += $NF }
	END { if (z) printf "%.3f %.3f %.3f %d", w / z, p / z, n / z, z; else print "- - - 0" }' "$1"
}

# py_never_wrong LABEL FOLDED: perf reads the frames after the sample and
# keeps only those the sample's registers and stack show running then:
# at most 0.01 of the zlib samples with another phase's frames.
py_never_wrong() {
	set -- "$1" $(py_zlib "$2")
	if awk -v w="$2" 'BEGIN { exit !(w != "-" && w <= 0.01) }'; then
		ok "$1: no other moment's Python frames ($2 of $5 zlib samples wrong, $3 with c_leaf's callers only, $4 with none)"
	else
		not_ok "$1: no other moment's Python frames" "$2 of $5 zlib samples with another phase's frames ($3 partial, $4 native only)"
	fi
}

py_summary() {
	grep -qE '^scorch: Python: 1 process \(CPython 3\.11\.[0-9]*\), [0-9.]*% of their samples with Python frames'"$PY_LATE" "$2" &&
		ok "$1: summary" || not_ok "$1: summary" "$(tail -1 "$2")"
}

python_tests() {
	be=$1 okv=$2 why=$3
	label="record $be python3.11"
	if [ ! -x "$PY311" ]; then
		for n in command pid shell; do not_ok "$label $n" "$PY311 is missing (scripts/setup installs python3)"; done
		return
	fi
	if [ "$okv" != 1 ]; then
		for n in command pid shell; do skip_or_fail "$label $n" "$why"; done
		return
	fi
	d=$pyout/$be
	mkdir -p "$d"
	# Phases of 10 ms of CPU; 100 ms for perf, which reads the Python
	# frames when it reads the sample, ms later (tens when scorch waits
	# for a CPU), and drops those that changed in between.
	slice=0.01 secs=5 perf_err=""
	[ "$be" = perf ] && slice=0.1 secs=8 perf_err=1
	# A command.
	"$SCORCH" record --backend $be -F 999 -o "$d/cmd.folded" -- "$PY311" "$PY_WL" "$d/cmd.times" $secs $slice 2>"$d/cmd.err"
	py_shares "$label command" "$d/cmd.folded" "$d/cmd.times" ${perf_err:+"$d/cmd.err"}
	py_chains "$label command" "$d/cmd.folded"
	py_summary "$label command" "$d/cmd.err"
	if [ "$be" = bpf ]; then
		py_at_instant "$label command" "$d/cmd.folded"
	else
		py_never_wrong "$label command" "$d/cmd.folded"
		# phases of 10 ms: the frames change ~100 times a second, and
		# perf reads them ms late (more on a busy machine)
		"$SCORCH" record --backend perf -F 999 -o "$d/short.folded" -- "$PY311" "$PY_WL" "$d/short.times" 4 0.01 2>"$d/short.err"
		py_never_wrong "$label phases of 10 ms" "$d/short.folded"
	fi
	# -p: a process that was running before record started.
	# (perf: only chains, with short phases: enough of each in the window)
	pslice=$slice
	[ "$be" = perf ] && pslice=0.02
	"$PY311" "$PY_WL" "$d/pid.times" 12 $pslice &
	pypid=$!
	sleep 1
	"$SCORCH" record --backend $be -F 999 -p $pypid -d 6 -o "$d/pid.folded" 2>"$d/pid.err"
	wait $pypid
	# (the times are the whole run's, the samples half of it's: perf's
	# phases are too short here for its shares to mean much)
	[ "$be" = bpf ] && py_shares "$label -p" "$d/pid.folded" "$d/pid.times"
	py_chains "$label -p" "$d/pid.folded"
	# Started by a shell (not exec'd by it: "; true").
	"$SCORCH" record --backend $be -F 999 -o "$d/sh.folded" -- sh -c "'$PY311' '$PY_WL' '$d/sh.times' $secs $slice; true" 2>"$d/sh.err"
	py_shares "$label from a shell" "$d/sh.folded" "$d/sh.times" ${perf_err:+"$d/sh.err"}
	py_chains "$label from a shell" "$d/sh.folded"
}

# Other versions, where pyenv has them: 3.8-3.10 (frame objects, threads
# known by their pthread_t), 3.12 and 3.13 named like 3.11; 2.7, 3.6 and
# 3.7 (not read) native only, with one notice naming the process and
# version. Before 3.11 every Python call runs in a C activation of the
# evaluator of its own: native frames sit between the Python ones, and
# there is no qualified name (co_name: "_bootstrap", not
# "Thread._bootstrap").
NATIVE='([^;]*[^;)];)*' # frames that are not Python's ("name (file.py)")

# py_version_chains LABEL FOLDED MINOR BACKEND
py_version_chains() {
	f=$2 n=$NATIVE bad=""
	grep -qE "^python$3;_start;.*Py_RunMain;.*<module> \(phases\.py\);${n}main \(phases\.py\);${n}timed \(phases\.py\);${n}caller_x \(phases\.py\);${n}until \(phases\.py\);${n}py_handler_a \(phases\.py\)" "$f" ||
		bad="$bad native main below <module>;main;timed;caller_x;until;py_handler_a;"
	grep -qE ";caller_y \(phases\.py\);${n}until \(phases\.py\);${n}py_handler_b \(phases\.py\)" "$f" || bad="$bad caller_y;until;py_handler_b;"
	grep -qE ";caller_z \(phases\.py\);${n}until \(phases\.py\);${n}c_leaf \(phases\.py\);.*deflate" "$f" ||
		bad="$bad zlib's deflate above c_leaf;"
	grep -qE "start_thread;${n}(Thread\.)?_bootstrap \(threading\.py\);${n}(Thread\.)?_bootstrap_inner \(threading\.py\);${n}(Thread\.)?run \(threading\.py\);${n}thread_main \(phases\.py\);${n}thread_spin \(phases\.py\)" "$f" ||
		bad="$bad the thread: start_thread;...;_bootstrap;...;thread_main;thread_spin;"
	grep -qE '\(phases\.py\);([^;]*;)*(entry_SYSCALL_64[^;]*|asm_sysvec_[^;]*|asm_exc_page_fault|irqentry_[^;]*)[; ]' "$f" ||
		bad="$bad kernel frames above a Python frame;"
	deepest=$(awk -F';' '{ n = 0; for (i = 1; i <= NF; i++) if ($i == "recurse (phases.py)") n++; if (n > m) m = n } END { print m + 0 }' "$f")
	grep -qE ";deep \(phases\.py\);${n}recurse \(phases\.py\);.*;recurse \(phases\.py\);${n}until \(phases\.py\);${n}deep_leaf \(phases\.py\)" "$f" &&
		[ "$deepest" -ge 1001 ] || bad="$bad deep;recurse x1001;until;deep_leaf (deepest: $deepest);"
	# The evaluator's activations replaced by what they ran. perf reads
	# the frames after the sample: a call that returned in between leaves
	# an activation with no run (it keeps its name), as often as scorch
	# reads late (2-11% of the samples before 3.11, where every call is
	# an activation, on this machine as loaded as it gets): said, not held.
	left=$(awk '{ t += $NF } /_PyEval_EvalFrameDefault/ { e += $NF } END { printf "%.3f", t ? e / t : 1 }' "$f")
	[ "$4" = perf ] || awk -v l="$left" 'BEGIN { exit !(l <= 0.02) }' ||
		bad="$bad _PyEval_EvalFrameDefault left in $left of the samples;"
	if [ -z "$bad" ]; then ok "$1: chains ($left of the samples with an evaluator frame left)"; else not_ok "$1: chains" "missing:$bad"; fi
}

python_versions() {
	be=$1 okv=$2
	[ "$okv" = 1 ] || return
	for v in 3.8.18 3.9.18 3.10.13 3.12.1 3.13.0; do
		minor=${v%.*}
		py=$PYENV_VERSIONS/$v/bin/python$minor
		if [ ! -x "$py" ]; then
			# pyenv builds are no Debian package: scripts/setup cannot
			# install them, and a machine without one lacks it by design
			skip "record $be python$v" "no pyenv build of $v here"
			continue
		fi
		d=$pyout/$be-$v
		mkdir -p "$d"
		slice=0.01 secs=5
		[ "$be" = perf ] && slice=0.1 secs=8
		"$SCORCH" record --backend $be -F 999 -o "$d/cmd.folded" -- "$py" "$PY_WL" "$d/cmd.times" $secs $slice 2>"$d/cmd.err"
		perf_err=""
		[ "$be" = perf ] && perf_err=1
		py_shares "record $be python$v" "$d/cmd.folded" "$d/cmd.times" ${perf_err:+"$d/cmd.err"}
		py_version_chains "record $be python$v" "$d/cmd.folded" "$minor" "$be"
		if [ "$be" = bpf ] && [ "$minor" = 3.8 ]; then
			# -p: a 3.8 that was running before record started (its
			# libc's thread ids read then)
			"$py" "$PY_WL" "$d/pid.times" 9 $slice &
			pypid=$!
			sleep 1
			"$SCORCH" record --backend bpf -F 999 -p $pypid -d 5 -o "$d/pid.folded" 2>"$d/pid.err"
			wait $pypid
			py_shares "record bpf -p python$v" "$d/pid.folded" "$d/pid.times"
			py_version_chains "record bpf -p python$v" "$d/pid.folded" "$minor" bpf
		fi
		grep -qE "^scorch: Python: 1 process \(CPython $minor[.0-9]*\), [0-9.]*% of their samples with Python frames$PY_LATE" "$d/cmd.err" &&
			ok "record $be python$v: summary" || not_ok "record $be python$v: summary" "$(tail -2 "$d/cmd.err")"
		if [ "$be" = bpf ]; then
			py_at_instant "record $be python$v" "$d/cmd.folded"
		else
			"$SCORCH" record --backend perf -F 999 -o "$d/short.folded" -- "$py" "$PY_WL" "$d/short.times" 4 0.01 2>"$d/short.err"
			py_never_wrong "record perf python$v phases of 10 ms" "$d/short.folded"
		fi
	done
	# Not read: one notice, native frames only (a loop of their own: the
	# workload needs 3.7's clocks).
	for v in 2.7.18 3.6.15 3.7.16; do
		minor=${v%.*}
		py=$PYENV_VERSIONS/$v/bin/python$minor
		[ -x "$py" ] || continue
		d=$pyout/$be-$v
		mkdir -p "$d"
		"$SCORCH" record --backend $be -o "$d/cmd.folded" -- "$py" -c 'x = 0
for i in range(3000000): x += i' 2>"$d/cmd.err"
		if [ "$(grep -c "notice: process [0-9]* runs CPython $minor " "$d/cmd.err")" = 1 ] &&
			grep -q "^scorch: Python: 1 process (CPython $minor) not read: native frames only$" "$d/cmd.err" &&
			! grep -q '(<string>)' "$d/cmd.folded" && grep -q 'EvalFrame' "$d/cmd.folded"; then
			ok "record $be python$v: one notice, native frames only"
		else
			not_ok "record $be python$v: one notice, native frames only" "$(cat "$d/cmd.err")"
		fi
	done
}

# pprof: a Python frame is a Function named by its function, in its file
# (co_filename whole), starting at its def line (Line.line too), as `go
# tool pprof -raw` reads them; the expectation is the workload's source.
python_pprof() {
	be=$1 okv=$2
	[ "$okv" = 1 ] || return
	label="record $be python3.11 pprof"
	if ! command -v go >/dev/null 2>&1; then
		not_ok "$label" "no go (Debian golang-go; scripts/setup installs it)"
		return
	fi
	d=$pyout/$be-pprof
	mkdir -p "$d"
	"$SCORCH" record --backend $be -F 999 -o "$d/out.pb.gz" -- "$PY311" "$PY_WL" "$d/times" 3 2>"$d/err"
	PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$d/out.pb.gz" >"$d/raw" 2>"$d/pprof.err"
	file=$(realpath "$PY_WL") bad=""
	for fn in py_handler_a py_handler_b c_leaf until caller_x thread_spin; do
		line=$(grep -n "^def $fn(" "$PY_WL" | cut -d: -f1)
		# "  12: 0x0 NAME FILE:LINE s=START(SYSTEM NAME)"
		grep -qF " $fn $file:$line s=$line($fn (phases.py))" "$d/raw" ||
			bad="$bad $fn: no Function $fn of $file at line $line;"
	done
	grep -qF " Thread.run " "$d/raw" && grep -q ' Thread\.run [^ ]*/threading\.py:[1-9][0-9]* s=' "$d/raw" ||
		bad="$bad Thread.run in threading.py;"
	# the stacks by function name, in order, with the native frames
	pp_traces_folded "$d/out.pb.gz" >"$d/traces"
	grep -q ';Py_RunMain;.*;<module>;main;timed;caller_x;until;py_handler_a[; ]' "$d/traces" ||
		bad="$bad traces: Py_RunMain;...;<module>;main;timed;caller_x;until;py_handler_a;"
	# read back by scorch: the folded names again
	"$SCORCH" collapse "$d/out.pb.gz" >"$d/back.folded" 2>"$d/back.err"
	grep -q ';<module> (phases\.py);main (phases\.py);timed (phases\.py);caller_x (phases\.py);until (phases\.py);py_handler_a (phases\.py)' "$d/back.folded" ||
		bad="$bad scorch collapse of it: <module> (phases.py);...;py_handler_a (phases.py);"
	if [ -z "$bad" ]; then ok "$label: Python functions with file and line"; else not_ok "$label" "$bad"; fi
}

python_tests perf "$perf_ok" "$perf_why"
python_tests bpf "$bpf_ok" "$bpf_why"
python_versions perf "$perf_ok"
python_versions bpf "$bpf_ok"
python_pprof perf "$perf_ok"
python_pprof bpf "$bpf_ok"
