# Errors that name the fix (issue 8): a missing file says "No such file"
# wherever it is named; a terminal on stdin is not read; a truncated
# perf.data suggests --keep-going; diff takes what collapse detects; record
# says what is missing for an unsupported event or another user's process.
. "${0%/*}/../lib.sh"
et=$TMPDIR/errors
mkdir -p "$et"
printf 'prog;main;func_a 3\n' >"$et/after.folded"
et_perfdata=tests/fuzz/corpus/perfdata/two-events.data

# err_case NAME EXIT PATTERN CMD...: exit status and a line of stderr.
err_case() {
	_n=$1 _x=$2 _p=$3
	shift 3
	"$SCORCH" "$@" >"$et/out" 2>"$et/err" </dev/null
	_rc=$?
	if [ $_rc = "$_x" ] && grep -q -e "$_p" "$et/err"; then
		ok "errors/$_n"
	else
		not_ok "errors/$_n" "exit $_rc, expected $_x" "$(head -5 "$et/err")"
	fi
}

nofile="cannot open '$et/nofile': No such file or directory"
err_case "flamegraph: missing input" 1 "$nofile" flamegraph "$et/nofile"
err_case "flamegraph: missing --nameattr file" 1 "$nofile" flamegraph --nameattr "$et/nofile" "$et/after.folded"
err_case "collapse: missing input" 1 "$nofile" collapse perf "$et/nofile"
err_case "collapse: missing input that could be a format name" 2 "'nofile' is neither a format (.*) nor a file (no such file)" collapse nofile
err_case "diff: missing BEFORE" 1 "$nofile" diff "$et/nofile" "$et/after.folded"
err_case "diff: missing AFTER" 1 "$nofile" diff "$et/after.folded" "$et/nofile"
err_case "report: missing FILE" 1 "$nofile" report "$et/nofile"
err_case "report: missing -i FILE" 1 "$nofile" report -i "$et/nofile"
(cd "$et" && "$SCORCH" report >/dev/null 2>"$et/err")
rc=$?
if [ $rc = 1 ] && grep -q "cannot open 'perf.data': No such file or directory" "$et/err"; then
	ok "errors/report: missing ./perf.data"
else
	not_ok "errors/report: missing ./perf.data" "exit $rc" "$(cat "$et/err")"
fi
# perf.data given to collapse perf (perf script's text expected): an error
# naming the file and report, not an empty profile and binary in warnings
err_case "collapse perf: a perf.data file" 1 "$et_perfdata: a perf.data file, not perf script text: scorch report reads it" collapse perf "$et_perfdata"
err_case "collapse perf -j2: a perf.data file" 1 "$et_perfdata: a perf.data file, not perf script text" collapse perf -j2 "$et/after.folded" "$et_perfdata"
# and to flamegraph (stacks expected): the same, naming report -o FILE.svg
err_case "flamegraph: a perf.data file" 1 "$et_perfdata: a perf.data file, not stacks: scorch report $et_perfdata -o FILE.svg" flamegraph "$et_perfdata"
err_case "report: missing --kallsyms file" 1 "--kallsyms: $nofile" report --kallsyms "$et/nofile" "$et_perfdata"
err_case "report: missing --symfs folder" 1 "--symfs: '$et/nofile': No such file or directory" report --symfs "$et/nofile" "$et_perfdata"
err_case "record: command not found" 127 "$et/nofile: command not found" record -q -- "$et/nofile"

# A truncated perf.data (cut inside a real capture): the byte offset, then
# the option that uses what was read.
head -c 3000 "$et_perfdata" >"$et/cut.data"
err_case "report: truncated perf.data is named with a byte offset" 1 "$et/cut.data: byte [0-9]*:" report "$et/cut.data"
expect_grep "errors/report: truncated perf.data suggests --keep-going" \
	"$et/cut.data is damaged or truncated.*--keep-going uses what was read before the damage" "$et/err"

# diff: non-folded input is collapsed as collapse would (perf script text
# here), so BEFORE counts are the collapsed ones, not zero.
printf 'prog 1234 100.000000: 1 cpu-clock:\n\t      401000 func_a+0x10 (/bin/prog)\n\t      400800 main+0x20 (/bin/prog)\n\nprog 1234 100.100000: 1 cpu-clock:\n\t      401000 func_b+0x10 (/bin/prog)\n\t      400800 main+0x20 (/bin/prog)\n\n' \
	>"$et/before.perf"
"$SCORCH" collapse perf "$et/before.perf" >"$et/before.folded" 2>"$et/err"
"$SCORCH" diff "$et/before.folded" "$et/after.folded" >"$et/diff.expected" 2>>"$et/err"
"$SCORCH" diff "$et/before.perf" "$et/after.folded" >"$et/diff.out" 2>"$et/err"
if grep -q '^prog;main;func_a 1 3$' "$et/diff.expected" && cmp -s "$et/diff.expected" "$et/diff.out" && [ ! -s "$et/err" ]; then
	ok "errors/diff: perf script input is collapsed first"
else
	not_ok "errors/diff: perf script input is collapsed first" "$(cat "$et/diff.out" "$et/err")"
fi

# A terminal on stdin (a pseudo-terminal made by python3): not read, a
# usage error saying so. (The timeout only ends a scorch that waits.)
on_tty() { # CMD...: run with stdin a pty; its stderr in $et/err
	python3 -c '
import os, subprocess, sys
m, s = os.openpty()
try:
    p = subprocess.run(sys.argv[1:], stdin=s, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
except subprocess.TimeoutExpired:
    sys.stderr.write("still waiting after 20 s\n")
    sys.exit(99)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)' "$SCORCH" "$@" 2>"$et/err"
}
if command -v python3 >/dev/null; then
	for args in "flamegraph:stacks" "flamegraph -:stacks" "collapse:profiler output" \
		"collapse perf -:profiler output" "diff - $et/after.folded:stacks" "report -:a perf.data stream"; do
		a=${args%%:*} what=${args#*:}
		cmd=${a%% *}
		# shellcheck disable=SC2086
		on_tty $a
		rc=$?
		if [ $rc = 2 ] && grep -q "^scorch: $cmd: reading $what from the terminal; pipe input or name a file (see 'scorch help $cmd')$" "$et/err"; then
			ok "errors/$a: a terminal on stdin is not read"
		else
			not_ok "errors/$a: a terminal on stdin is not read" "exit $rc" "$(cat "$et/err")"
		fi
	done
else
	not_ok "errors: a terminal on stdin is not read" "no python3 (scripts/setup installs it)"
fi

# record -e cycles where there is no hardware PMU: the message names
# cpu-clock. (Where there is one, cycles works: nothing to check.)
if "$SCORCH" record -q --backend perf -e cycles -d 0.1 -o "$et/cycles.folded" 2>"$et/err" ||
	! grep -q 'not supported' "$et/err"; then
	skip "errors/record: an unsupported event suggests cpu-clock" "cycles can be sampled here (or: $(head -1 "$et/err"))"
else
	expect_grep "errors/record: an unsupported event suggests cpu-clock" "event not supported.*-e cpu-clock works everywhere" "$et/err"
fi

# record -p of another user's process, as uid 65534 against a process of
# ours: what is missing, by name.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -x /bin/sleep ]; then
	/bin/sleep 30 &
	sp=$!
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SCORCH" record -q --backend perf -p $sp -d 1 \
		>/dev/null 2>"$et/err"
	rc=$?
	kill $sp
	wait $sp 2>/dev/null
	if [ $rc = 1 ] && grep -q "sampling process $sp: not permitted: it belongs to uid 0, scorch runs as uid 65534.*CAP_SYS_PTRACE.*CAP_PERFMON.*perf_event_paranoid" "$et/err"; then
		ok "errors/record: -p of another user's process says what permission is missing"
	else
		not_ok "errors/record: -p of another user's process says what permission is missing" "exit $rc" "$(cat "$et/err")"
	fi
else
	skip "errors/record: -p of another user's process says what permission is missing" "not root, or no setpriv"
fi
