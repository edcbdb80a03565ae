#!/bin/sh
# record meets Node.js: with --perf-basic-prof --interpreted-frames-native-stack
# every JavaScript frame is named from V8's perf map (no [perf-PID.map]
# frame left; the workload's interpreted functions too: V8 runs a script's
# top-level code, and some of node's own functions from its startup
# snapshot, through its shared interpreter entry even with the flag, as
# perf script shows, but never the workload's functions), stacks through JS code reach
# node::Start, and each phase's share of the samples is within 0.05 of
# what the workload (tests/workloads/node/phases.js) measured with its
# thread's own CPU clock; without those flags one notice names them. node
# is required: missing, the test fails.
. "${0%/*}/lib.sh" # the suite's: tests/lib.sh, the backends' probes (perf_ok, bpf_ok)

N=$TMPDIR/node
mkdir -p "$N"
cp "$WL_SRC/node/phases.js" "$N/phases.js"
cat >"$N/work.js" <<'EOF'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 1000 * Number(process.argv[2]);
let x = 0;
while (Date.now() < end) x += fib(22);
console.log(x);
EOF

for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	name="record $be: node with --perf-basic-prof --interpreted-frames-native-stack, JS frames named, whole"
	sname="record $be: node with --perf-basic-prof, shares"
	pname="record $be: node without flags, one notice names --perf-basic-prof --interpreted-frames-native-stack"
	why=""
	if ! command -v node >/dev/null 2>&1; then
		why="node is not installed (scripts/setup installs nodejs)"
	elif [ "$be_ok" != 1 ]; then
		why="the $be backend cannot run here: $be_why"
	fi
	if [ -n "$why" ]; then
		for t in "$name" "$sname" "$pname"; do not_ok "$t" "$why"; done
		continue
	fi
	# (in its folder: with --perf-basic-prof V8 also writes isolate-*.log files
	# there)
	"$SCORCH" record --backend "$be" -F 499 --annotate-pid -o "$N/flags.$be.folded" -- sh -c \
		"cd '$N' && exec node --perf-basic-prof --interpreted-frames-native-stack phases.js flags.$be.times 3" \
		>/dev/null 2>"$N/flags.$be.err"
	p=$(sed -n 's/^node-\([0-9]*\);.*/\1/p' "$N/flags.$be.folded" | head -1)
	rm -f "$N"/isolate-*.log
	rm -f "/tmp/perf-$p.map"
	whole=$(awk '/;JS:[~^+*](jsAlpha|jsBeta|nativeDeflate) / { t += $NF; if ($0 ~ /;node::Start;/) w += $NF }
		END { print t ? int(100 * w / t) : -1 }' "$N/flags.$be.folded")
	# the shared interpreter entry called by the workload's code, or by the
	# top level's (the workload's functions, interpreted: the top level,
	# which Module._compile calls, runs through it; main and the rest must
	# not). Not the entry called by itself anywhere: node's own functions
	# from its startup snapshot call each other through it (seen in about
	# one run in four: JS:~Stream;entry;entry, EventEmitter and its init)
	shared=$( (grep -o '[^;]*;Builtins_InterpreterEntryTrampoline;' "$N/flags.$be.folded" |
		grep -E 'phases\.js'
		grep -o 'JS:~Module\._compile [^;]*;Builtins_InterpreterEntryTrampoline;Builtins_InterpreterEntryTrampoline;' \
			"$N/flags.$be.folded") | sort | uniq -c)
	if ! grep -Eq ';node::Start;.*;JS:~Module\._compile [^;]*;([^;]*;)?JS:[~^+*]main [^;]*phases\.js:[0-9:]*;JS:[~^+*]until [^;]*phases\.js:[0-9:]*;JS:[~^+*]jsAlpha [^;]*phases\.js' \
		"$N/flags.$be.folded"; then
		not_ok "$name" "no node::Start;...;JS:~Module._compile;...;main;until;jsAlpha stack" "$(head -3 "$N/flags.$be.err")"
	elif ! grep -q ';JS:[~^+*]nativeDeflate [^;]*phases\.js:[0-9:]*;.*;node::.*;deflate' "$N/flags.$be.folded"; then
		not_ok "$name" "no nativeDeflate;...;node::...;deflate stack (native frames above the JS)"
	elif grep -q '\[perf-[0-9]*\.map\]' "$N/flags.$be.folded"; then
		not_ok "$name" "unnamed frames in the map:" "$(grep -c '\[perf-[0-9]*\.map\]' "$N/flags.$be.folded") stacks"
	elif [ -n "$shared" ]; then
		not_ok "$name" "interpreted frames left unnamed (the shared interpreter entry):" "$shared"
	elif [ "$whole" -lt 90 ]; then
		not_ok "$name" "$whole% of the phase samples reach node::Start"
	elif grep -q 'perf-basic-prof' "$N/flags.$be.err"; then
		not_ok "$name" "a notice about flags that were given:" "$(grep perf-basic-prof "$N/flags.$be.err")"
	else
		ok "$name"
	fi
	bad=$(phase_shares "$N/flags.$be.folded" "$N/flags.$be.times" 'jsAlpha=;JS:[~^+*]jsAlpha [^;]*phases\.js' \
		'jsBeta=;JS:[~^+*]jsBeta [^;]*phases\.js' 'nativeDeflate=;JS:[~^+*]nativeDeflate [^;]*phases\.js')
	if [ -z "$bad" ]; then ok "$sname"; else not_ok "$sname" "$bad" "$(cat "$N/flags.$be.times")"; fi

	name=$pname
	"$SCORCH" record --backend "$be" -F 499 -o "$N/plain.$be.folded" -- \
		sh -c "node '$N/work.js' 1 & node '$N/work.js' 1; wait" >/dev/null 2>"$N/plain.$be.err"
	n=$(grep -c 'start node with --perf-basic-prof --interpreted-frames-native-stack' "$N/plain.$be.err")
	if [ "$n" = 1 ]; then
		ok "$name"
	else
		not_ok "$name" "$n notices:" "$(cat "$N/plain.$be.err")"
	fi
done

# The graph's default palette draws JS frames apart from native ones
# (green, as flamegraph.pl's java palette draws Java; node::Start stays
# hot): record of a node with the flags, as an SVG.
name="record: an SVG of node draws its JS frames green, its native frames hot"
if command -v node >/dev/null 2>&1 && { [ "$bpf_ok" = 1 ] || [ "$perf_ok" = 1 ]; }; then
	(cd "$N" && "$SCORCH" record -F 499 -o "$N/w.svg" -- node --perf-basic-prof --interpreted-frames-native-stack work.js 1) \
		>/dev/null 2>"$N/svg.err"
	fills() { # NAME-PATTERN: the fills of frames whose title matches
		sed -n "s/.*<title>\\($1\\)[^<]*<\\/title><rect [^>]*fill=\"rgb(\\([0-9,]*\\))\".*/\\2/p" "$N/w.svg"
	}
	js=$(fills 'JS:[~^+*]fib ' | awk -F, '$2 <= $1 || $2 <= $3' | wc -l)
	njs=$(fills 'JS:[~^+*]fib ' | wc -l)
	hot=$(fills 'node::Start ' | awk -F, '$1 < $2 || $1 < $3' | wc -l)
	nhot=$(fills 'node::Start ' | wc -l)
	if [ "$njs" -ge 1 ] && [ "$js" = 0 ] && [ "$nhot" -ge 1 ] && [ "$hot" = 0 ]; then
		ok "$name"
	else
		not_ok "$name" "$njs fib frames ($js not green), $nhot node::Start ($hot not hot)" "$(tail -2 "$N/svg.err")"
	fi
	rm -f "$N"/isolate-*.log
else
	not_ok "$name" "node or a backend is missing"
fi
