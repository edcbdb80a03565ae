#!/bin/sh
# record -p and -t look only at their targets: a python3 and a JVM that
# start while `record -p BURN` (or -t) runs are neither attached to nor
# named in a notice or the summary, on both backends. (The BPF backend's
# side band sees every process of the machine; its runtimes once looked at
# each: "Python: 1 process (CPython 3.11.2)" for -p of a C program, and
# attach requests sent to unrelated JVMs, which held the output ~10 s.)
# The other processes are real: /usr/bin/python3 and OpenJDK's java,
# required (missing, the tests fail).
. "${0%/*}/lib.sh" # the suite's: tests/lib.sh, the backends' probes (perf_ok, bpf_ok)

D=$TMPDIR/targets
mkdir -p "$D"
cat >"$D/Spin.java" <<'EOF'
public class Spin {
	public static void main(String[] a) {
		long end = System.nanoTime() + 1_500_000_000L, x = 0;
		while (System.nanoTime() < end) x += x * 31 + 7;
		System.out.println(x);
	}
}
EOF
missing=""
for tool in java javac /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -n "$missing" ] || javac -d "$D" "$D/Spin.java" >"$D/javac.err" 2>&1 || missing=" javac failed: $(head -1 "$D/javac.err")"

for be in perf bpf; do
	for how in -p -t; do
		name="record $be $how BURN: a python3 and a JVM started meanwhile get no attach, notice or summary line"
		eval "be_ok=\$${be}_ok be_why=\$${be}_why"
		if [ -n "$missing" ]; then
			not_ok "$name" "missing:$missing (scripts/setup installs them)"
			continue
		elif [ "$be_ok" != 1 ]; then
			skip_or_fail "$name" "the $be backend cannot run here: $be_why"
			continue
		fi
		"$WL/burn" 4 &
		bp=$!
		sleep 0.2
		"$SCORCH" record --backend "$be" "$how" "$bp" -d 2.5 -o "$D/r.folded" 2>"$D/r.$be$how.err" &
		rp=$!
		sleep 0.5
		(cd "$D" && exec java -cp "$D" Spin) >/dev/null 2>&1 &
		jp=$!
		/usr/bin/python3 -c 'import time
t = time.time()
while time.time() - t < 1.2: pass'
		wait "$rp"
		rc=$?
		wait "$jp"
		kill "$bp" 2>/dev/null
		wait "$bp" 2>/dev/null
		others=$(grep -E -i 'python|java|jvm|attach' "$D/r.$be$how.err")
		if [ "$rc" != 0 ] || ! grep -q '^burn' "$D/r.folded"; then
			not_ok "$name" "record exited $rc" "$(head -3 "$D/r.$be$how.err")"
		elif [ -n "$others" ]; then
			not_ok "$name" "lines about processes that are not targets:" "$others"
		elif ls -a "$D" | grep -q '^\.attach_pid'; then
			not_ok "$name" "an attach file was left in the JVM's folder"
		else
			ok "$name"
		fi
	done
done
