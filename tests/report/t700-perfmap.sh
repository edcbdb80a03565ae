#!/bin/sh
# report and /tmp/perf-PID.map files, against the classic pipeline itself:
# `perf script | stackcollapse-perf.pl` (FlameGraph's own Perl script,
# tests/data/flamegraph/). A real JVM (OpenJDK 17) recorded by `perf record
# -g` with -XX:+DumpPerfMapAtExit (HotSpot writes "0x%016lx 0x%016lx name")
# must fold byte for byte as the pipeline folds it. Then a map written by
# tests/workloads/report_jit, rewritten after the capture: without "0x" and
# with, owned by another user (refused unless --force), a symbolic link
# (refused, --force or not). java, javac, perf and perl are required: a
# missing one fails the test.
. "$(dirname "$0")/../lib.sh"

PM=$TMPDIR/perfmap
mkdir -p "$PM"
SC=tests/data/flamegraph/stackcollapse-perf.pl
pm_missing=""
for tool in java javac perf perl; do
	command -v "$tool" >/dev/null 2>&1 || pm_missing="$pm_missing $tool"
done

# pm_pid_of FOLDED-SCRIPT: the pid of the first sample of COMM in perf script text.
pm_pid_of() { awk -v c="$2" '$1 == c { print $2; exit }' "$1"; }

if [ -n "$pm_missing" ]; then
	not_ok "report perfmap: JVM with DumpPerfMapAtExit equals perf script | stackcollapse-perf.pl" \
		"missing:$pm_missing (scripts/setup installs them)"
else
	cat >"$PM/Work.java" <<'EOF'
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
	name="report perfmap: JVM with DumpPerfMapAtExit equals perf script | stackcollapse-perf.pl"
	if ! javac -d "$PM" "$PM/Work.java" 2>"$PM/javac.err"; then
		not_ok "$name" "javac failed: $(head -3 "$PM/javac.err")"
	elif ! perf record -q -g -F 499 -o "$PM/jvm.data" -- java -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -cp "$PM" Work 1.5 >/dev/null 2>"$PM/rec.err"; then
		not_ok "$name" "perf record failed: $(head -3 "$PM/rec.err")"
	else
		perf script -i "$PM/jvm.data" 2>/dev/null >"$PM/jvm.script"
		perl "$SC" "$PM/jvm.script" >"$PM/jvm.want"
		"$SCORCH" report -i "$PM/jvm.data" >"$PM/jvm.got" 2>"$PM/jvm.err"
		jpid=$(pm_pid_of "$PM/jvm.script" java)
		if ! grep -q 'Work\.fib' "$PM/jvm.want" || ! grep -q ';Interpreter' "$PM/jvm.want"; then
			not_ok "$name" "the pipeline names no Work.fib or Interpreter frame: is the map there?" \
				"$(ls -l "/tmp/perf-$jpid.map" 2>&1)"
		else
			test_cmp "$name" "$PM/jvm.want" "$PM/jvm.got"
		fi
		for opt in --pid --jit; do
			perl "$SC" $opt "$PM/jvm.script" >"$PM/jvm.want$opt"
			"$SCORCH" report $opt -i "$PM/jvm.data" >"$PM/jvm.got$opt" 2>/dev/null
			test_cmp "report perfmap: JVM, $opt as stackcollapse-perf.pl $opt" "$PM/jvm.want$opt" "$PM/jvm.got$opt"
		done
		rm -f "/tmp/perf-$jpid.map"
	fi
fi

# A map rewritten after the capture: report reads it when it folds.
W=$BUILD/workloads/report_jit
name="report perfmap: report_jit's map with and without 0x"
if [ -n "$pm_missing" ] || [ "$(uname -m)" != x86_64 ]; then
	not_ok "$name" "needs perf and perl on x86-64 (missing:$pm_missing)"
elif ! perf record -q -g -F 999 -o "$PM/jit.data" -- "$W" 0.4 >/dev/null 2>"$PM/jit.err"; then
	not_ok "$name" "perf record failed: $(head -3 "$PM/jit.err")"
else
	perf script -i "$PM/jit.data" 2>/dev/null >"$PM/jit.script"
	p=$(pm_pid_of "$PM/jit.script" report_jit)
	map=/tmp/perf-$p.map
	cp "$map" "$PM/plain.map"
	# the same entries as HotSpot writes them
	while read -r a b rest; do printf '0x%016x 0x%016x %s\n' "0x$a" "0x$b" "$rest"; done \
		<"$PM/plain.map" >"$PM/hex.map"
	ok_all=1
	for form in plain hex; do
		cp "$PM/$form.map" "$map"
		perf script -i "$PM/jit.data" 2>/dev/null | perl "$SC" --jit >"$PM/jit.want.$form"
		"$SCORCH" report --jit -i "$PM/jit.data" >"$PM/jit.got.$form" 2>/dev/null
		grep -q 'jitted_spin_\[j\]' "$PM/jit.want.$form" || ok_all=0
		cmp -s "$PM/jit.want.$form" "$PM/jit.got.$form" || ok_all=0
	done
	if [ $ok_all = 1 ]; then
		ok "$name"
	else
		not_ok "$name" "$(head -3 "$PM/hex.map")" "$(diff "$PM/jit.want.hex" "$PM/jit.got.hex" | head -5)"
	fi

	name="report perfmap: another user's map is refused with one warning, read with --force"
	cp "$PM/plain.map" "$map"
	if [ "$(id -u)" != 0 ]; then
		skip "$name" "needs root to give the map to another user"
	else
		chown 65534:65534 "$map"
		"$SCORCH" report -i "$PM/jit.data" >"$PM/own.got" 2>"$PM/own.err"
		"$SCORCH" report -f -i "$PM/jit.data" >"$PM/own.forced" 2>"$PM/own.ferr"
		if grep -q jitted_spin "$PM/own.got" || ! grep -q "perf-$p.map" "$PM/own.got"; then
			not_ok "$name" "read although owned by 65534: $(grep -c jitted_spin "$PM/own.got") lines"
		elif [ "$(grep -c "perf-$p.map: owned by uid 65534" "$PM/own.err")" != 1 ]; then
			not_ok "$name" "no single warning:" "$(head -3 "$PM/own.err")"
		elif ! grep -q jitted_spin "$PM/own.forced" || [ -s "$PM/own.ferr" ]; then
			not_ok "$name" "--force did not read it" "$(head -3 "$PM/own.ferr")"
		else
			ok "$name"
		fi
		chown 0:0 "$map"
	fi

	name="report perfmap: a symbolic link at /tmp/perf-PID.map is not followed"
	mv "$map" "$PM/target.map"
	ln -s "$PM/target.map" "$map"
	"$SCORCH" report -f -i "$PM/jit.data" >"$PM/link.got" 2>"$PM/link.err"
	if grep -q jitted_spin "$PM/link.got"; then
		not_ok "$name" "the link was followed"
	elif ! grep -q "perf-$p.map: a symbolic link" "$PM/link.err"; then
		not_ok "$name" "no warning:" "$(head -3 "$PM/link.err")"
	else
		ok "$name"
	fi
	rm -f "$map"
fi
