#!/bin/sh
# The one case where record waits for a command before it writes (issue 30
# item 1, doc/recording.md): a JVM still running when sampling ends may
# write its perf map as it exits (-XX:+DumpPerfMapAtExit), so the JIT
# runtime asks record to see its exit (within the grace period) before
# naming. The JVM here cannot be attached (-XX:+DisableAttachMechanism):
# its methods can be named only from the map it writes at exit, after -d
# ends sampling and it gets SIGTERM. java and javac are required: a
# missing one fails the test.
. "${0%/*}/lib.sh"

J=$TMPDIR/jvm-exit
mkdir -p "$J"
missing=""
for tool in java javac; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
name_of() { echo "record $1: a JVM's methods named from the map it writes as it exits on SIGTERM"; }
if [ -n "$missing" ]; then
	for be in perf bpf; do not_ok "$(name_of $be)" "missing:$missing (scripts/setup installs them)"; done
	exit 0
fi
javac -d "$J" "$WL_SRC/java/Phases.java" >"$J/javac.err" 2>&1 || not_ok "record jvm-exit: javac" "$(head -3 "$J/javac.err")"
for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "$(name_of $be)" "$why"
		continue
	fi
	# (stdout: a JVM without its attach listener prints a thread dump at
	# each SIGQUIT an attach attempt sends)
	timeout -k 5 60 "$SCORCH" record --backend $be -d 2 -F 499 -o "$J/$be.folded" -- java -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -XX:+DisableAttachMechanism -cp "$J" Phases "$J/$be.times" 30 >"$J/$be.out" 2>"$J/$be.err"
	rc=$?
	jpid=$(sed -n 's/^scorch: java \([0-9]*\): .*/\1/p' "$J/$be.err" | head -1)
	[ -n "$jpid" ] && rm -f "/tmp/perf-$jpid.map"
	if [ "$rc" != 0 ]; then
		not_ok "$(name_of $be)" "exit $rc" "$(tail -3 "$J/$be.err")"
	elif ! grep -Eq 'Phases\$(Alpha|Beta|Spin)\.run' "$J/$be.folded"; then
		not_ok "$(name_of $be)" "no Phases\$Alpha/Beta/Spin.run frame:" "$(grep -v 'no hardware PMU' "$J/$be.err" | head -3)" \
			"$(grep -o '\[perf-[0-9]*\.map\]' "$J/$be.folded" | sort | uniq -c)"
	elif grep -q 'SIGKILL' "$J/$be.err"; then
		not_ok "$(name_of $be)" "the JVM was killed:" "$(grep SIGKILL "$J/$be.err")"
	else
		ok "$(name_of $be)"
	fi
done
