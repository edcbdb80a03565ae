#!/bin/sh
# Stripped code named through a real debuginfod server (elfutils'), as perf
# and gdb get it: a program built with -g, its debug part split off
# (objcopy --only-keep-debug) into a folder the server scans, the program
# itself stripped of its .symtab. The server is started here on loopback,
# on a random high port, and killed by its pid at the end; the client's
# cache is in TMPDIR. report and record then name its static functions;
# --no-debuginfod does not ask; a server that stops answering costs one
# bounded wait and one notice. debuginfod, objcopy, strip and perf are
# required: a missing one fails the test.
. "$(dirname "$0")/../lib.sh"

D=$TMPDIR/debuginfod
rm -rf "$D"
mkdir -p "$D/debug" "$D/bin"
dbg_missing=""
for tool in debuginfod objcopy strip perf cc curl; do
	command -v "$tool" >/dev/null 2>&1 || dbg_missing="$dbg_missing $tool"
done
dbg_name="debuginfod: report names a stripped program's static functions from a local server"

if [ -n "$dbg_missing" ]; then
	not_ok "$dbg_name" "missing:$dbg_missing (scripts/setup installs debuginfod, binutils, linux-perf)"
else
	cat >"$D/spin.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static __attribute__((noinline)) unsigned long stripped_leaf(unsigned long x) { for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ul + 1; return x; }
static __attribute__((noinline)) unsigned long stripped_caller(unsigned long x) { return stripped_leaf(x) ^ 1; }
int main(int argc, char **argv) {
	double end = now() + (argc > 1 ? atof(argv[1]) : 0.5);
	unsigned long x = 1;
	while (now() < end) x = stripped_caller(x);
	volatile unsigned long sink = x;
	(void)sink;
	return 0;
}
EOF
	cc -g -O1 -fno-omit-frame-pointer -o "$D/full" "$D/spin.c"
	objcopy --only-keep-debug "$D/full" "$D/debug/spin.debug"
	cp "$D/full" "$D/bin/spin"
	strip --strip-all "$D/bin/spin"
	id=$(readelf -n "$D/bin/spin" | sed -n 's/.*Build ID: *//p')
	# a random high port; 0.188 has no listen-address option (it binds *)
	port=$((20000 + $$ % 20000))
	debuginfod -F -p "$port" -d "$D/db.sqlite" -t 0 -g 0 "$D/debug" >"$D/server.log" 2>&1 &
	server=$!
	# (killed however this file ends; continued first, in case it is stopped)
	trap 'kill -CONT "$server" 2>/dev/null; kill "$server" 2>/dev/null' EXIT
	ready=0
	for _ in $(seq 1 100); do
		if curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/debuginfo"; then
			ready=1
			break
		fi
		sleep 0.2
	done
	export DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$D/cache"
	if [ $ready = 0 ]; then
		not_ok "$dbg_name" "the server did not serve $id in 20 s:" "$(tail -3 "$D/server.log")"
	elif ! perf record -q -g -F 999 -o "$D/spin.data" -- "$D/bin/spin" 0.5 >/dev/null 2>"$D/rec.err"; then
		not_ok "$dbg_name" "perf record failed: $(head -2 "$D/rec.err")"
	else
		"$SCORCH" report -i "$D/spin.data" >"$D/got" 2>"$D/got.err"
		if grep -q ';main;\(stripped_caller;\)\{0,1\}stripped_leaf' "$D/got" && [ -s "$D/cache/$id/debuginfo" ]; then
			ok "$dbg_name"
		else
			not_ok "$dbg_name" "$(head -3 "$D/got")" "$(head -3 "$D/got.err")" "$(ls "$D/cache" 2>&1 | head -3)"
		fi

		name="debuginfod: report --no-debuginfod does not ask (the program's frames stay [spin])"
		rm -rf "$D/cache"
		"$SCORCH" report --no-debuginfod -i "$D/spin.data" >"$D/no" 2>"$D/no.err"
		if grep -q stripped_leaf "$D/no" || [ -e "$D/cache/$id" ] || ! grep -q '\[spin\]' "$D/no"; then
			not_ok "$name" "$(head -3 "$D/no")"
		else
			ok "$name"
		fi

		name="debuginfod: record names a stripped program's static functions from the server"
		rm -rf "$D/cache"
		"$SCORCH" record -F 999 -o "$D/rec.folded" -- "$D/bin/spin" 0.5 2>"$D/rec.err"
		if grep -q 'main;stripped_caller;stripped_leaf' "$D/rec.folded"; then
			ok "$name"
		else
			not_ok "$name" "$(head -3 "$D/rec.folded")" "$(head -3 "$D/rec.err")"
		fi

		# A server that stops answering: SIGSTOP keeps its socket
		# accepting connections (the kernel's backlog) but nothing replies.
		name="debuginfod: a server that does not answer costs one bounded wait and one notice"
		rm -rf "$D/cache"
		kill -STOP "$server"
		DEBUGINFOD_TIMEOUT=2 timeout 60 "$SCORCH" report -i "$D/spin.data" >"$D/stall" 2>"$D/stall.err"
		rc=$?
		kill -CONT "$server"
		n=$(grep -c 'debuginfod: no answer' "$D/stall.err")
		if [ $rc != 0 ]; then
			not_ok "$name" "exit $rc (124: it hung)" "$(head -3 "$D/stall.err")"
		elif [ "$n" != 1 ]; then
			not_ok "$name" "$n notices:" "$(head -3 "$D/stall.err")"
		elif ! grep -q '\[spin\]' "$D/stall"; then
			not_ok "$name" "the program's frames are not [spin]:" "$(head -3 "$D/stall")"
		else
			ok "$name"
		fi

		name="debuginfod: a dead server (nothing listening) costs one notice, no hang"
		rm -rf "$D/cache"
		DEBUGINFOD_URLS="http://127.0.0.1:1" timeout 60 "$SCORCH" report -i "$D/spin.data" >"$D/dead" 2>"$D/dead.err"
		rc=$?
		n=$(grep -c 'debuginfod: no answer' "$D/dead.err")
		if [ $rc = 0 ] && [ "$n" = 1 ] && grep -q '\[spin\]' "$D/dead"; then
			ok "$name"
		else
			not_ok "$name" "exit $rc, $n notices" "$(head -3 "$D/dead.err")"
		fi
	fi
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
fi
