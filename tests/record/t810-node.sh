#!/bin/sh
# record meets Node.js: with --perf-basic-prof --interpreted-frames-native-stack
# every JavaScript frame is named from V8's perf map (no [perf-PID.map]
# frame left) and stacks through JS code reach node::Start; without those
# flags one notice names them. node is required: missing, the test fails.
. "${0%/*}/lib.sh" # the suite's: tests/lib.sh, the backends' probes (perf_ok, bpf_ok)

N=$TMPDIR/node
mkdir -p "$N"
cat >"$N/work.js" <<'EOF'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function mathy(n) { let s = 0; for (let i = 1; i < n; i++) s += Math.sqrt(i) * Math.sin(i); return s; }
const end = Date.now() + 1000 * Number(process.argv[2]);
let x = 0;
while (Date.now() < end) { x += fib(22); x += mathy(100000); }
console.log(x);
EOF

for be in perf bpf; do
	eval "be_ok=\$${be}_ok be_why=\$${be}_why"
	name="record $be: node with --perf-basic-prof --interpreted-frames-native-stack, JS frames named, whole"
	if ! command -v node >/dev/null 2>&1; then
		not_ok "$name" "node is not installed (scripts/setup installs nodejs)"
		continue
	elif [ "$be_ok" != 1 ]; then
		not_ok "$name" "the $be backend cannot run here: $be_why"
		continue
	fi
	# (in its folder: with --perf-basic-prof V8 also writes isolate-*.log files there)
	"$SCORCH" record --backend "$be" -F 499 --annotate-pid -o "$N/flags.$be.folded" -- sh -c \
		"cd '$N' && exec node --perf-basic-prof --interpreted-frames-native-stack work.js 2" \
		>/dev/null 2>"$N/flags.$be.err"
	p=$(sed -n 's/^node-\([0-9]*\);.*/\1/p' "$N/flags.$be.folded" | head -1)
	rm -f "$N"/isolate-*.log
	rm -f "/tmp/perf-$p.map"
	whole=$(awk '/JS:\*fib/ { t += $NF; if ($0 ~ /;node::Start;/) w += $NF } END { print t ? int(100 * w / t) : -1 }' \
		"$N/flags.$be.folded")
	if ! grep -q 'JS:[*^+~]fib .*work.js' "$N/flags.$be.folded"; then
		not_ok "$name" "no JS:*fib frame" "$(head -3 "$N/flags.$be.err")"
	elif grep -q '\[perf-[0-9]*\.map\]' "$N/flags.$be.folded"; then
		not_ok "$name" "unnamed frames in the map:" "$(grep -c '\[perf-[0-9]*\.map\]' "$N/flags.$be.folded") stacks"
	elif [ "$whole" -lt 90 ]; then
		not_ok "$name" "$whole% of the fib samples reach node::Start"
	elif grep -q 'perf-basic-prof' "$N/flags.$be.err"; then
		not_ok "$name" "a notice about flags that were given:" "$(grep perf-basic-prof "$N/flags.$be.err")"
	else
		ok "$name"
	fi

	name="record $be: node without flags, one notice names --perf-basic-prof --interpreted-frames-native-stack"
	"$SCORCH" record --backend "$be" -F 499 -o "$N/plain.$be.folded" -- \
		sh -c "node '$N/work.js' 1 & node '$N/work.js' 1; wait" >/dev/null 2>"$N/plain.$be.err"
	n=$(grep -c 'start node with --perf-basic-prof --interpreted-frames-native-stack' "$N/plain.$be.err")
	if [ "$n" = 1 ]; then
		ok "$name"
	else
		not_ok "$name" "$n notices:" "$(cat "$N/plain.$be.err")"
	fi
done
