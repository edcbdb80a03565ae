#!/bin/sh
# record meets a JVM (OpenJDK 17) started with no flag: it asks the JVM for
# its JIT's perf map through HotSpot's attach protocol (Compiler.perfmap,
# src/runtime/hotspot_attach.c), so the program's own methods are named,
# and says once which flag makes Java stacks whole; with
# -XX:+PreserveFramePointer the stacks through Java code reach the
# thread's start. Also: a JVM that was running before record started (-p),
# and record's perf-map checks (another user's map refused, --force reads
# it). java and javac are required: a missing one fails the test.
. "${0%/*}/lib.sh" # the suite's: tests/lib.sh, the backends' probes (perf_ok, bpf_ok)

J=$TMPDIR/jvm
mkdir -p "$J"
jvm_missing=""
for tool in java javac; do
	command -v "$tool" >/dev/null 2>&1 || jvm_missing="$jvm_missing $tool"
done

# jvm_share FOLDED PATTERN: percentage (integer) of the samples of stacks
# matching 'Work\.' that also match PATTERN.
jvm_share() {
	awk -v pat="$2" '/Work\./ { n = $NF; t += n; if ($0 ~ pat) m += n }
		END { print t ? int(100 * m / t) : -1 }' "$1"
}

if [ -n "$jvm_missing" ]; then
	for be in perf bpf; do
		not_ok "record $be: a JVM's methods named with no flag" "missing:$jvm_missing (scripts/setup installs them)"
	done
else
	cat >"$J/Work.java" <<'EOF'
public class Work {
    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static double mathy(int n) {
        double s = 0;
        for (int i = 1; i < n; i++) s += Math.sqrt(i) * Math.sin(i);
        return s;
    }
    public static void main(String[] a) {
        long end = System.nanoTime() + (long) (Double.parseDouble(a[0]) * 1e9);
        long x = 0;
        while (System.nanoTime() < end) { x += fib(24); x += (long) mathy(200000); }
        System.out.println(x);
    }
}
EOF
	javac -d "$J" "$J/Work.java" 2>"$J/javac.err" || not_ok "record jvm: javac" "$(head -3 "$J/javac.err")"
	for be in perf bpf; do
		eval "be_ok=\$${be}_ok be_why=\$${be}_why"
		name="record $be: a JVM's methods named with no flag, the frame-pointer flag named once"
		if [ "$be_ok" != 1 ]; then
			not_ok "$name" "the $be backend cannot run here: $be_why"
			continue
		fi
		"$SCORCH" record --backend "$be" -F 499 -o "$J/plain.$be.folded" -- java -cp "$J" Work 2.5 \
			>/dev/null 2>"$J/plain.$be.err"
		notes=$(grep -c 'start the JVM with -XX:+PreserveFramePointer' "$J/plain.$be.err")
		if ! grep -q 'Work\.fib' "$J/plain.$be.folded" || ! grep -q 'Work\.mathy' "$J/plain.$be.folded"; then
			not_ok "$name" "no Work.fib/Work.mathy frame:" "$(head -3 "$J/plain.$be.err")" \
				"$(grep -o '\[perf-[0-9]*\.map\]' "$J/plain.$be.folded" | sort | uniq -c)"
		elif [ "$notes" != 1 ]; then
			not_ok "$name" "$notes notes about -XX:+PreserveFramePointer:" "$(cat "$J/plain.$be.err")"
		else
			ok "$name"
		fi

		name="record $be: with -XX:+PreserveFramePointer stacks through Java code are whole, no note"
		"$SCORCH" record --backend "$be" -F 499 -o "$J/pfp.$be.folded" -- java -XX:+PreserveFramePointer -cp "$J" \
			Work 2.5 >/dev/null 2>"$J/pfp.$be.err"
		whole=$(jvm_share "$J/pfp.$be.folded" '^java;start_thread;ThreadJavaMain;JavaMain;')
		if [ "$whole" -lt 95 ]; then
			not_ok "$name" "$whole% of the Work samples reach start_thread;ThreadJavaMain;JavaMain" \
				"$(grep 'Work\.' "$J/pfp.$be.folded" | grep -v '^java;start_thread' | head -3 | cut -c1-200)" \
				"$(grep -v '^scorch: no hardware' "$J/pfp.$be.err" | head -4)"
		elif ! grep -q ';Interpreter;' "$J/pfp.$be.folded"; then
			not_ok "$name" "no interpreted frame named Interpreter"
		elif grep -q 'PreserveFramePointer' "$J/pfp.$be.err"; then
			not_ok "$name" "a note about the flag that was given"
		else
			ok "$name"
		fi
	done

	name="record -p: a JVM running before record started gets its methods named"
	java -cp "$J" Work 6 >/dev/null 2>&1 &
	jpid=$!
	sleep 1.5
	"$SCORCH" record -p "$jpid" -d 2 -F 499 -o "$J/attach.folded" 2>"$J/attach.err"
	kill "$jpid" 2>/dev/null
	wait "$jpid" 2>/dev/null
	if grep -q 'Work\.fib' "$J/attach.folded" && grep -q 'Work\.mathy' "$J/attach.folded"; then
		ok "$name"
	else
		not_ok "$name" "$(head -3 "$J/attach.err")" "$(head -3 "$J/attach.folded" | cut -c1-200)"
	fi
	rm -f "/tmp/perf-$jpid.map"
fi

# record's perf-map checks: report_jit writes its map as root; it is given
# to another user while it runs: record then refuses it, --force reads it.
W=$BUILD/workloads/report_jit
name="record: a perf map owned by another user is refused with a warning, read with --force"
if [ "$(id -u)" != 0 ] || [ "$(uname -m)" != x86_64 ]; then
	skip "$name" "needs root on x86-64"
else
	for f in "" --force; do
		"$SCORCH" record -F 999 $f -o "$J/own$f.folded" -- sh -c \
			"$W 1 & echo \$! >$J/own.pid; sleep 0.3; chown 65534 /tmp/perf-\$!.map; wait" \
			2>"$J/own$f.err"
		rm -f "/tmp/perf-$(cat "$J/own.pid").map"
	done
	if grep -q jitted_spin "$J/own.folded" || ! grep -q 'perf-[0-9]*\.map\]' "$J/own.folded"; then
		not_ok "$name" "read although owned by 65534"
	elif ! grep -q 'perf-[0-9]*\.map: owned by uid 65534' "$J/own.err"; then
		not_ok "$name" "no warning:" "$(head -3 "$J/own.err")"
	elif ! grep -q jitted_spin "$J/own--force.folded"; then
		not_ok "$name" "--force did not read it" "$(head -3 "$J/own--force.err")"
	else
		ok "$name"
	fi
fi
