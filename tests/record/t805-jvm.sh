#!/bin/sh
# record meets a JVM (OpenJDK 17) started with no flag: it asks the JVM for
# its JIT's perf map through HotSpot's attach protocol (Compiler.perfmap,
# src/runtime/hotspot_attach.c), so the program's own methods are named,
# and says once which flag makes Java stacks whole; with
# -XX:+PreserveFramePointer the stacks through Java code reach the
# thread's start, in order. The workload (tests/workloads/java/Phases.java)
# times its phases with its threads' own CPU clocks: each phase method's
# share of the samples is held to that, within 0.05, with and without the
# flag (a phase's method is the leaf Java frame: named either way).
# Interpreted frames are named by their methods (read from the JVM's
# memory with its vmStructs, src/runtime/hotspot_*.c) as the perf map
# names compiled ones: with -Xint every Java frame is interpreted, and the
# stacks hold the program's own call chains, in order, with the shares of
# the phases. Also: a JVM that was running before record started (-p),
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
# with a phase's frame that also match PATTERN.
jvm_share() {
	awk -v pat="$2" '/Phases\$(Alpha|Beta|Spin)\.run/ { n = $NF; t += n; if ($0 ~ pat) m += n }
		END { print t ? int(100 * m / t) : -1 }' "$1"
}
# the phases and the frames that name them
JVM_PHASES='Alpha=;void Phases\$Alpha\.run( |;|$)
Beta=;void Phases\$Beta\.run( |;|$)
Spin=;void Phases\$Spin\.run( |;|$)'

if [ -n "$jvm_missing" ]; then
	for be in perf bpf; do
		for t in "a JVM's methods named with no flag, the frame-pointer flag named once" "a JVM with no flag, shares" \
			"with -XX:+PreserveFramePointer stacks through Java code are whole, in order, no note" \
			"a JVM with -XX:+PreserveFramePointer, shares" \
			"after the warm-up the Java threads run compiled, named methods" \
			"with -Xint interpreted methods are named by their methods, in order" "a JVM with -Xint, shares" \
			"with --call-graph fp interpreted frames stay Interpreter, and the summary says why"; do
			not_ok "record $be: $t" "missing:$jvm_missing (scripts/setup installs them)"
		done
	done
	not_ok "record -p: a JVM running before record started gets its methods named, shares" \
		"missing:$jvm_missing (scripts/setup installs them)"
else
	# (javac is a JVM: another recorder on the machine may attach to it, and a
	# SIGQUIT that comes as its listener starts prints a thread dump on stdout)
	javac -d "$J" "$WL_SRC/java/Phases.java" >"$J/javac.err" 2>&1 || not_ok "record jvm: javac" "$(head -3 "$J/javac.err")"
	IFS='
'
	set -- $JVM_PHASES
	unset IFS
	for be in perf bpf; do
		eval "be_ok=\$${be}_ok be_why=\$${be}_why"
		name="record $be: a JVM's methods named with no flag, the frame-pointer flag named once"
		if [ "$be_ok" != 1 ]; then
			not_ok "$name" "the $be backend cannot run here: $be_why"
			not_ok "record $be: a JVM with no flag, shares" "the $be backend cannot run here"
			not_ok "record $be: with -XX:+PreserveFramePointer stacks through Java code are whole, in order, no note" \
				"the $be backend cannot run here"
			not_ok "record $be: a JVM with -XX:+PreserveFramePointer, shares" "the $be backend cannot run here"
			not_ok "record $be: after the warm-up the Java threads run compiled, named methods" "the $be backend cannot run here"
			not_ok "record $be: with -Xint interpreted methods are named by their methods, in order" \
				"the $be backend cannot run here"
			not_ok "record $be: a JVM with -Xint, shares" "the $be backend cannot run here"
			not_ok "record $be: with --call-graph fp interpreted frames stay Interpreter, and the summary says why" \
				"the $be backend cannot run here"
			continue
		fi
		"$SCORCH" record --backend "$be" -F 499 -o "$J/plain.$be.folded" -- java -cp "$J" Phases "$J/plain.$be.times" 4 \
			>/dev/null 2>"$J/plain.$be.err"
		notes=$(grep -c 'start the JVM with -XX:+PreserveFramePointer' "$J/plain.$be.err")
		if ! grep -q 'Phases\$Alpha\.run' "$J/plain.$be.folded" || ! grep -q 'Phases\$Beta\.run' "$J/plain.$be.folded"; then
			not_ok "$name" "no Phases\$Alpha.run/Phases\$Beta.run frame:" "$(head -3 "$J/plain.$be.err")" \
				"$(grep -o '\[perf-[0-9]*\.map\]' "$J/plain.$be.folded" | sort | uniq -c)"
		elif [ "$notes" != 1 ]; then
			not_ok "$name" "$notes notes about -XX:+PreserveFramePointer:" "$(cat "$J/plain.$be.err")"
		else
			ok "$name"
		fi
		bad=$(phase_shares "$J/plain.$be.folded" "$J/plain.$be.times" "$@")
		if [ -z "$bad" ]; then ok "record $be: a JVM with no flag, shares"; else
			not_ok "record $be: a JVM with no flag, shares" "$bad" "$(cat "$J/plain.$be.times")"; fi

		name="record $be: with -XX:+PreserveFramePointer stacks through Java code are whole, in order, no note"
		"$SCORCH" record --backend "$be" -F 499 -o "$J/pfp.$be.folded" -- java -XX:+PreserveFramePointer -cp "$J" \
			Phases "$J/pfp.$be.times" 4 >/dev/null 2>"$J/pfp.$be.err"
		# (main and the spinner's loop stay interpreted, or run OSR-compiled
		# code that may inline Phases.call: named either way; Phases.call,
		# called once a phase, is interpreted or compiled: named either way)
		whole=$(jvm_share "$J/pfp.$be.folded" '^(java;start_thread;ThreadJavaMain;JavaMain;|spinner;start_thread;thread_native_entry;)')
		if [ "$whole" -lt 95 ]; then
			not_ok "$name" "$whole% of the phase samples reach the thread's start" \
				"$(grep 'Phases\$' "$J/pfp.$be.folded" | grep -Ev '^(java|spinner);start_thread' | head -3 | cut -c1-200)" \
				"$(grep -v '^scorch: no hardware' "$J/pfp.$be.err" | head -4)"
		elif ! grep -Eq '^java;start_thread;ThreadJavaMain;JavaMain;jni_CallStaticVoidMethod;.*;StubRoutines ;void Phases\.main;(void Phases\.call;)?void Phases\$Alpha\.run ' "$J/pfp.$be.folded" ||
			! grep -Eq '^spinner;start_thread;thread_native_entry;.*;thread_entry;.*;StubRoutines ;void java\.lang\.Thread\.run;void Phases\$\$Lambda[^;]*\.run;void Phases\.lambda\$main\$1;(void Phases\.call;)?void Phases\$Spin\.run ' "$J/pfp.$be.folded"; then
			not_ok "$name" "no main;...;Phases.main;Phases.call;Phases\$Alpha.run or spinner;...;Thread.run;...;Phases\$Spin.run stack" \
				"$(grep 'Phases\$' "$J/pfp.$be.folded" | head -3 | cut -c1-300)"
		elif grep -q 'PreserveFramePointer' "$J/pfp.$be.err"; then
			not_ok "$name" "a note about the flag that was given"
		else
			ok "$name"
		fi
		bad=$(phase_shares "$J/pfp.$be.folded" "$J/pfp.$be.times" "$@")
		if [ -z "$bad" ]; then ok "record $be: a JVM with -XX:+PreserveFramePointer, shares"; else
			not_ok "record $be: a JVM with -XX:+PreserveFramePointer, shares" "$bad" "$(cat "$J/pfp.$be.times")"; fi
		# the methods that run most get compiled early, so in a run of 4 s
		# 90% or more of the samples in Java code (under
		# JavaCalls::call_helper) of the two threads have a phase's frame
		# (compiled, named from the perf map; interpreted, from its Method*)
		name="record $be: after the warm-up the Java threads run compiled, named methods"
		compiled=$(awk '/^(java|spinner);.*;JavaCalls::call_helper;/ { t += $NF; if ($0 ~ /Phases\$(Alpha|Beta|Spin)\.run/) n += $NF }
			END { print t ? int(100 * n / t) : -1 }' "$J/pfp.$be.folded")
		if [ "$compiled" -ge 90 ]; then ok "$name"; else
			not_ok "$name" "$compiled% of their samples in Java code have a compiled phase frame" \
				"$(grep '^java;.*JavaCalls::call_helper;' "$J/pfp.$be.folded" | grep -v 'Phases\$' | sort -t' ' -k2 -nr | head -3 | cut -c1-200)"; fi

		# -Xint: every Java frame is interpreted (the interpreter links
		# rbp: whole chains without the flag), so every phase frame is
		# named from its Method*, not the perf map; the expectation is the
		# program's own calls: main -> call -> Alpha/Beta.run, and
		# Thread.run -> the lambda's run -> lambda$main$1 -> call ->
		# Spin.run; 95% or more of the Java samples have no Interpreter
		# frame left (a frame whose slot is outside the stack copy stays
		# one: deep class loading under a call). (Names are read from
		# the JVM as its samples are collected: record stops it after 4 s,
		# so that all of them are, even on a loaded machine or in a
		# sanitizer build, where collecting lags seconds behind; it
		# writes its times as it is stopped.)
		name="record $be: with -Xint interpreted methods are named by their methods, in order"
		"$SCORCH" record --backend "$be" -F 499 -d 4 -o "$J/xint.$be.folded" -- java -Xint -cp "$J" Phases \
			"$J/xint.$be.times" 60 >/dev/null 2>"$J/xint.$be.err"
		inorder=$(jvm_share "$J/xint.$be.folded" ';StubRoutines ;void Phases\.main;void Phases\.call;void Phases\$(Alpha|Beta)\.run( |;|$)|;StubRoutines ;void java\.lang\.Thread\.run;void Phases\$\$Lambda[^;]*\.run;void Phases\.lambda\$main\$1;void Phases\.call;void Phases\$Spin\.run( |;|$)')
		named=$(awk '/^(java|spinner);.*;JavaCalls::call_helper;StubRoutines ;/ { t += $NF; if ($0 !~ /;Interpreter(;| [0-9]+$)/) n += $NF }
			END { print t ? int(100 * n / t) : -1 }' "$J/xint.$be.folded")
		if [ "$inorder" -lt 99 ]; then
			not_ok "$name" "$inorder% of the phase samples have the program's call chain" \
				"$(grep 'Phases\$' "$J/xint.$be.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-300)"
		elif [ "$named" -lt 95 ]; then
			not_ok "$name" "$named% of the Java samples have every interpreted frame named" \
				"$(grep ';Interpreter[; ]' "$J/xint.$be.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-300)"
		elif ! grep -q '^scorch: Java: 1 JVM read, ' "$J/xint.$be.err"; then
			not_ok "$name" "no summary line for the JVM:" "$(cat "$J/xint.$be.err")"
		else
			ok "$name"
		fi
		bad=$(phase_shares "$J/xint.$be.folded" "$J/xint.$be.times" "$@")
		if [ -z "$bad" ]; then ok "record $be: a JVM with -Xint, shares"; else
			not_ok "record $be: a JVM with -Xint, shares" "$bad" "$(cat "$J/xint.$be.times")"; fi

		# --call-graph fp: no stack copy, so no frame's Method* slot as
		# sampled: every interpreted frame stays Interpreter (with -Xint no
		# Java frame has a name at all), never a name read later
		name="record $be: with --call-graph fp interpreted frames stay Interpreter, and the summary says why"
		"$SCORCH" record --backend "$be" --call-graph fp -F 499 -d 2 -o "$J/xfp.$be.folded" -- java -Xint -cp "$J" \
			Phases "$J/xfp.$be.times" 60 >/dev/null 2>"$J/xfp.$be.err"
		if ! grep -q ';Interpreter;Interpreter' "$J/xfp.$be.folded"; then
			not_ok "$name" "no Interpreter frames:" "$(head -3 "$J/xfp.$be.folded" | cut -c1-200)"
		elif grep -Eq ';void Phases[.$]' "$J/xfp.$be.folded"; then
			not_ok "$name" "a Java method named without a stack copy:" \
				"$(grep -E ';void Phases[.$]' "$J/xfp.$be.folded" | head -3 | cut -c1-300)"
		elif ! grep -q '^scorch: Java: 1 JVM read, 0\.0% of [0-9]* interpreted frames named by their method (100\.0% in samples without a stack copy, --call-graph fp: they stay Interpreter)$' "$J/xfp.$be.err"; then
			not_ok "$name" "the summary does not say why:" "$(tail -2 "$J/xfp.$be.err")"
		else
			ok "$name"
		fi
	done

	# (its phases timed over its whole run, the samples over the rest of it, after
	# its warm-up: a steady state, the shares of the main thread's phases are
	# the same; not Spin's, on another thread: how the scheduler shares the
	# CPUs between the two threads and other work changes over time)
	name="record -p: a JVM running before record started gets its methods named, shares"
	java -XX:+PreserveFramePointer -cp "$J" Phases "$J/attach.times" 8 >/dev/null 2>&1 &
	jpid=$!
	sleep 1.5
	# (until it exits, at 999 Hz: at load 17 a 2 s window at 499 Hz held
	# ~150 of its main thread's samples, too few for 0.05)
	"$SCORCH" record -p "$jpid" -F 999 -o "$J/attach.folded" 2>"$J/attach.err"
	wait "$jpid"
	bad=$(phase_shares "$J/attach.folded" "$J/attach.times" "$1" "$2")
	if ! grep -q 'Phases\$Alpha\.run' "$J/attach.folded" || ! grep -q 'Phases\$Beta\.run' "$J/attach.folded"; then
		not_ok "$name" "$(head -3 "$J/attach.err")" "$(head -3 "$J/attach.folded" | cut -c1-200)"
	elif [ -n "$bad" ]; then
		not_ok "$name" "$bad" "$(cat "$J/attach.times")"
	else
		ok "$name"
	fi
	rm -f "/tmp/perf-$jpid.map"
fi

# A JVM that cannot be attached (-XX:+DisableAttachMechanism) and exits
# while record waits for its listener: one notice says why its JIT frames
# are unnamed, and every trigger file record made (strace: it may not be
# the only one: another recorder on the machine can attach to the same
# JVM, with the same file name) it removed, through the directory, which
# /proc/PID/cwd no longer leads to once the JVM is gone.
name="record: a JVM that exits before it answers the attach gets a notice, and its trigger file is removed"
if [ -n "$jvm_missing" ] || ! command -v strace >/dev/null 2>&1; then
	not_ok "$name" "missing:$jvm_missing $(command -v strace >/dev/null || echo strace) (scripts/setup installs them)"
else
	mkdir -p "$J/cwd"
	# (LeakSanitizer cannot run under ptrace: off for this run of a sanitized build)
	(cd "$J/cwd" && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -ff -qq -e trace=openat,unlink,unlinkat -o "$J/noattach.strace" "$SCORCH" record -F 99 \
		-o "$J/noattach.folded" -- java -XX:+DisableAttachMechanism -cp "$J" Phases "$J/noattach.times" 1.5 \
		>/dev/null 2>"$J/noattach.err")
	# (a file per thread, -ff: with one file, a call that another thread's
	# interrupts is split in two lines, "<unfinished ...>" and its result)
	cat "$J"/noattach.strace.* >"$J/noattach.strace"
	# (strace pads a call's line to its result: ") *=")
	made=$(grep -c 'openat(.*\.attach_pid[0-9]*", [^)]*O_CREAT[^)]*) *= [0-9]' "$J/noattach.strace")
	removed=$(grep -c 'unlink.*\.attach_pid[0-9]*".*) *= 0' "$J/noattach.strace")
	# (another recorder's file there already: record uses it, and leaves it to its owner)
	theirs=$(grep -c 'openat(.*\.attach_pid[0-9]*", [^)]*O_CREAT[^)]*) *= -1 EEXIST' "$J/noattach.strace")
	if [ "$(grep -c "java [0-9]*: its JIT code is not named: it exited before it answered the attach request" "$J/noattach.err")" != 1 ]; then
		not_ok "$name" "no notice:" "$(cat "$J/noattach.err")"
	elif [ "$made$theirs" = 00 ] || [ "$made" != "$removed" ]; then
		not_ok "$name" "$made trigger files made, $removed removed:" "$(grep 'attach_pid' "$J/noattach.strace")"
	else
		ok "$name"
	fi
fi

# A trigger file already in the JVM's working directory (another client's,
# asking at the same moment, or one a crashed client left): record uses it
# (the JVM only looks for the file) and leaves it to its owner.
name="record -p: a JVM with another client's attach trigger file gets its methods named, the file left"
if [ -n "$jvm_missing" ]; then
	not_ok "$name" "missing:$jvm_missing (scripts/setup installs them)"
else
	mkdir -p "$J/cwd2"
	(cd "$J/cwd2" && exec java -cp "$J" Phases "$J/theirs.times" 5 >/dev/null 2>&1) &
	jpid=$!
	: >"$J/cwd2/.attach_pid$jpid"
	sleep 1.5
	"$SCORCH" record -p "$jpid" -d 2 -F 499 -o "$J/theirs.folded" 2>"$J/theirs.err"
	wait "$jpid"
	rm -f "/tmp/perf-$jpid.map"
	if ! grep -q 'Phases\$Alpha\.run' "$J/theirs.folded"; then
		not_ok "$name" "no Phases\$Alpha.run frame:" "$(grep -v 'no hardware PMU' "$J/theirs.err" | head -3)"
	elif [ ! -e "$J/cwd2/.attach_pid$jpid" ]; then
		not_ok "$name" "the other client's trigger file was removed"
	else
		ok "$name"
	fi
fi

# record's perf-map checks: report_jit writes its map as root; it is given
# to another user while it runs: record then refuses it, --force reads it.
W=$BUILD/workloads/report_jit
name="record: a perf map owned by another user is refused with a warning, read with --force"
# (report_jit's code is x86-64 machine code; chown needs root: both are the
# machine's, which scripts/setup cannot change)
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
