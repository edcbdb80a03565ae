#!/bin/sh
# Several runtimes in one recording: a JVM (no flag), a node (with
# --perf-basic-prof --interpreted-frames-native-stack) and Debian's
# python3.11 run at once, each a workload that times its own phases
# (tests/workloads/java/Phases.java, node/phases.js, python/phases.py);
# record -a (both backends), -p with the three pids and -t with one thread
# of each draw the three programs' own functions in the same graph. (Their
# shares are t805's and t810's, over whole runs: in a window of 3 s on a
# loaded machine a JVM ran 60 of its phases, too few for 0.05.)
# The Python naming is tests/record/t800-python.sh's; here it must show.
# java, javac, node and /usr/bin/python3.11 are required: missing, the
# tests fail.
. "${0%/*}/lib.sh" # the suite's: tests/lib.sh, the backends' probes (perf_ok, bpf_ok)

M=$TMPDIR/mixed
mkdir -p "$M"
PY311=/usr/bin/python3.11
missing=""
for tool in java javac node "$PY311"; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
names="record perf -a: Java, JavaScript and Python functions in one graph
record bpf -a: Java, JavaScript and Python functions in one graph
record -p JVM,NODE,PYTHON: the three runtimes' functions in one graph
record -t: a thread of each runtime, named"
if [ -n "$missing" ] || ! javac -d "$M" "$WL_SRC/java/Phases.java" >"$M/javac.err" 2>&1; then
	printf '%s\n' "$names" | while read -r t; do
		not_ok "$t" "missing:${missing:- javac failed: $(head -1 "$M/javac.err")} (scripts/setup installs them)"
	done
	exit 0
fi

java -cp "$M" Phases "$M/java.times" 300 >/dev/null 2>&1 &
jpid=$!
(cd "$M" && exec node --perf-basic-prof --interpreted-frames-native-stack "$WL_SRC/node/phases.js" node.times 300) \
	>/dev/null 2>&1 &
npid=$!
"$PY311" "$WL_SRC/python/phases.py" "$M/python.times" 300 >/dev/null 2>&1 &
ppid=$!
trap 'kill "$jpid" "$npid" "$ppid" 2>/dev/null' EXIT # (stopped below; this if the file ends early)
sleep 2 # warm-up: the JIT compiles the phases, the interpreter is set up

# mixed_check FOLDED: what is missing or wrong in a graph of the three
# (empty: all there). With --annotate-pid, each process's stacks apart.
mixed_check() {
	# (one of each program's own functions: a loaded machine gives each
	# process few samples in 3 s, not always some of every function)
	for want in "$jpid;.*;void Phases\\\$(Alpha|Beta|Spin)\\.run" \
		"$npid;.*;JS:[~^+*](jsAlpha|jsBeta|nativeDeflate) [^;]*phases\\.js" \
		"$ppid;.*;[A-Za-z_]* \\(phases\\.py\\)"; do
		grep -Eq "^[^;]*-$want" "$1" || printf '%s; ' "no ${want#*;.*;} in process ${want%%;*}"
	done
}

for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	[ "$be_ok" = 1 ] || continue
	"$SCORCH" record --backend "$be" -a -d 3 -F 499 --annotate-pid -o "$M/all.$be.folded" 2>"$M/all.$be.err"
done
"$SCORCH" record -p "$jpid,$npid,$ppid" -d 3 -F 499 --annotate-pid -o "$M/pids.folded" 2>"$M/pids.err"
# the JVM's second thread, node's and python's main threads
spinner=$(grep -l '^spinner$' /proc/"$jpid"/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5)
"$SCORCH" record -t "${spinner:-0},$npid,$ppid" -d 3 -F 499 --annotate-pid -o "$M/tids.folded" 2>"$M/tids.err"
kill "$jpid" "$npid" "$ppid"
wait "$jpid" "$npid" "$ppid"
rm -f "/tmp/perf-$npid.map" "/tmp/perf-$jpid.map" "$M"/isolate-*.log

for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	name="record $be -a: Java, JavaScript and Python functions in one graph"
	if [ "$be_ok" != 1 ]; then
		not_ok "$name" "the $be backend cannot run here: $be_why"
		continue
	fi
	bad=$(mixed_check "$M/all.$be.folded")
	if [ -z "$bad" ]; then ok "$name"; else
		not_ok "$name" "$bad" "$(grep -v 'no hardware PMU' "$M/all.$be.err" | head -4)"; fi
done

name="record -p JVM,NODE,PYTHON: the three runtimes' functions in one graph"
bad=$(mixed_check "$M/pids.folded")
others=$(sed 's/;.*//; s/.*-//' "$M/pids.folded" | grep -Evx "$jpid|$npid|$ppid" | sort -u | tr '\n' ' ')
[ -n "$others" ] && bad="$bad stacks of other processes: $others"
if [ -z "$bad" ]; then ok "$name"; else
	not_ok "$name" "$bad" "$(grep -v 'no hardware PMU' "$M/pids.err" | head -4)"; fi

name="record -t: a thread of each runtime, named"
bad=""
grep -Eq "^spinner-$jpid;.*;void Phases\\\$Spin\\.run" "$M/tids.folded" || bad="$bad no Phases\$Spin.run in the spinner thread;"
grep -Eq "^node-$npid;.*;JS:[~^+*]jsAlpha [^;]*phases\\.js" "$M/tids.folded" || bad="$bad no jsAlpha;"
grep -Eq "^python3[.0-9]*-$ppid;.*;[A-Za-z_]* \\(phases\\.py\\)" "$M/tids.folded" || bad="$bad no phases.py function;"
grep -Eq "^java-$jpid;" "$M/tids.folded" && bad="$bad the JVM's main thread, not asked for;"
if [ -z "$bad" ]; then ok "$name"; else
	not_ok "$name" "$bad (spinner thread: ${spinner:-not found})" "$(grep -v 'no hardware PMU' "$M/tids.err" | head -4)"; fi
