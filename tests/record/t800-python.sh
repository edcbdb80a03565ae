# scorch record of CPython programs: Python frames drawn by their own
# functions in mixed stacks, on both backends, for a command, -p and a
# python started by a shell. The workload (tests/workloads/python/phases.py)
# times each of its phases with its threads' own CPU clocks: the shares
# are held to that, within 0.05. Debian's /usr/bin/python3.11 is required
# (scripts/setup installs python3): missing, the tests fail. pyenv's builds
# of other versions are used where present.
. "${0%/*}/lib.sh"
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

# py_shares LABEL FOLDED TIMES: each phase's share within 0.05 of its time.
py_shares() {
	bad=""
	for ph in caller_x caller_y caller_z deep thread_main; do
		got=$(py_share "$2" $ph) want=$(py_measured "$3" $ph)
		near "$got" "$want" 0.05 || bad="$bad $ph: $got of the samples, $want of the CPU time;"
	done
	if [ -z "$bad" ]; then ok "$1: shares"; else not_ok "$1: shares" "$bad" "$(cat "$3")"; fi
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

# py_disagree FOLDED: of the samples in zlib's code (deflate, from the
# sample's own native stack), the share whose Python frames are not
# c_leaf's: how far the Python frames are from the sample's instant.
py_disagree() {
	awk '/;deflate/ { z += $NF; if ($0 !~ /;c_leaf \(phases\.py\);/) d += $NF }
	END { if (z) printf "%.3f %d", d / z, z; else print "- 0" }' "$1"
}

py_summary() {
	grep -q 'Python: 1 process (CPython 3\.11\.[0-9]*), [0-9.]*% of their samples with Python frames' "$2" &&
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
		for n in command pid shell; do skip "$label $n" "$why"; done
		return
	fi
	d=$pyout/$be
	mkdir -p "$d"
	# Phases of 10 ms of CPU; 100 ms for perf, which reads the Python
	# frames when it reads the sample, ms later (tens when scorch waits
	# for a CPU): the disagreement below says how often that is another
	# phase's.
	slice=0.01 secs=5
	[ "$be" = perf ] && slice=0.1 secs=8
	# A command.
	"$SCORCH" record --backend $be -F 999 -o "$d/cmd.folded" -- "$PY311" "$PY_WL" "$d/cmd.times" $secs $slice 2>"$d/cmd.err"
	py_shares "$label command" "$d/cmd.folded" "$d/cmd.times"
	py_chains "$label command" "$d/cmd.folded"
	py_summary "$label command" "$d/cmd.err"
	set -- $(py_disagree "$d/cmd.folded")
	if [ "$be" = bpf ]; then
		# read at the sample: only a call entering or leaving zlib between
		# the native walk and the Python one can disagree
		awk -v d="$1" 'BEGIN { exit !(d != "-" && d <= 0.02) }' &&
			ok "$label command: Python frames of the sample's instant ($1 of $2 zlib samples disagree)" ||
			not_ok "$label command: Python frames of the sample's instant" "$1 of $2 zlib samples disagree"
	else
		ok "$label command: Python frames read as the sample is read ($1 of $2 zlib samples disagree)"
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
	py_shares "$label from a shell" "$d/sh.folded" "$d/sh.times"
	py_chains "$label from a shell" "$d/sh.folded"
}

# Other versions, where pyenv has them: 3.12 and 3.13 named, 3.10 (not
# supported) native only, with one notice naming the process and version.
python_versions() {
	be=$1 okv=$2
	[ "$okv" = 1 ] || return
	for v in 3.12.1 3.13.0; do
		py=$PYENV_VERSIONS/$v/bin/python${v%.*}
		if [ ! -x "$py" ]; then
			skip "record $be python$v" "no pyenv build of $v here"
			continue
		fi
		d=$pyout/$be-$v
		mkdir -p "$d"
		slice=0.01 secs=5
		[ "$be" = perf ] && slice=0.1 secs=8
		"$SCORCH" record --backend $be -F 999 -o "$d/cmd.folded" -- "$py" "$PY_WL" "$d/cmd.times" $secs $slice 2>"$d/cmd.err"
		py_shares "record $be python$v" "$d/cmd.folded" "$d/cmd.times"
		grep -q ';caller_z (phases\.py);until (phases\.py);c_leaf (phases\.py);.*deflate' "$d/cmd.folded" &&
			grep -q ';main (phases\.py);timed (phases\.py);caller_x (phases\.py);until (phases\.py);py_handler_a (phases\.py)' "$d/cmd.folded" &&
			ok "record $be python$v: chains" || not_ok "record $be python$v: chains" "$(grep -c phases.py "$d/cmd.folded") lines with Python frames"
	done
	py=$PYENV_VERSIONS/3.10.13/bin/python3.10
	if [ -x "$py" ]; then
		d=$pyout/$be-3.10
		mkdir -p "$d"
		"$SCORCH" record --backend $be -o "$d/cmd.folded" -- "$py" "$PY_WL" "$d/cmd.times" 1 2>"$d/cmd.err"
		if [ "$(grep -c 'notice: process [0-9]* runs CPython 3\.10' "$d/cmd.err")" = 1 ] && ! grep -q '(phases\.py)' "$d/cmd.folded" &&
			grep -q '_PyEval_EvalFrameDefault' "$d/cmd.folded"; then
			ok "record $be python3.10: one notice, native frames only"
		else
			not_ok "record $be python3.10: one notice, native frames only" "$(cat "$d/cmd.err")"
		fi
	fi
}

python_tests perf "$perf_ok" "$perf_why"
python_tests bpf "$bpf_ok" "$bpf_why"
python_versions perf "$perf_ok"
python_versions bpf "$bpf_ok"
