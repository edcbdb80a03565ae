# -o on every kind of file, for every command that writes one (the rules
# are in src/base/out.h): a regular file is replaced keeping its mode and
# owner, a symbolic link's target is replaced, a hard-linked file is
# rewritten in place, a device or FIFO is written directly, a directory is
# an error; no temporary file is left, even when a signal ends the run.
# Device nodes are made here with mknod (root only), never the real ones.
. "${0%/*}/../lib.sh"
ot=$TMPDIR/outputs
mkdir -p "$ot"
printf 'main;a;b 3\nmain;a;c 2\nmain;d 5\n' >"$ot/in.folded"
out_perfdata=tests/fuzz/corpus/perfdata/two-events.data
is_root=0
[ "$(id -u)" = 0 ] && is_root=1

# out_run CMD PATH: run CMD writing to PATH (- for stdout).
out_run() {
	case $1 in
	flamegraph) "$SCORCH" flamegraph "$ot/in.folded" -o "$2" ;;
	collapse) "$SCORCH" collapse folded "$ot/in.folded" -o "$2" ;;
	diff) "$SCORCH" diff "$ot/in.folded" "$ot/in.folded" -o "$2" ;;
	report) "$SCORCH" report -q "$out_perfdata" -o "$2" ;;
	esac
}

# out_same NAME EXPECTED ACTUAL: same bytes
out_same() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(cmp "$2" "$3" 2>&1)"; fi
}

for c in flamegraph collapse diff report; do
	d=$ot/$c
	mkdir -p "$d"
	out_run $c - >"$d/expected" 2>"$d/err"
	if [ ! -s "$d/expected" ]; then
		not_ok "outputs/$c: reference output on stdout" "$(head -3 "$d/err")"
		continue
	fi

	# A file that does not exist yet: created with the umask's mode.
	(umask 027 && out_run $c "$d/new") 2>"$d/err"
	out_same "outputs/$c: -o a new file" "$d/expected" "$d/new"
	if [ "$(stat -c %a "$d/new")" = 640 ]; then
		ok "outputs/$c: a new file gets the umask's mode"
	else
		not_ok "outputs/$c: a new file gets the umask's mode" "mode $(stat -c %a "$d/new")"
	fi

	# A 0600 file owned by another user keeps its mode and owner.
	if [ $is_root = 1 ]; then
		echo old >"$d/theirs"
		chown 65534:65534 "$d/theirs" && chmod 0600 "$d/theirs"
		out_run $c "$d/theirs" 2>"$d/err"
		out_same "outputs/$c: -o another user's 0600 file is replaced" "$d/expected" "$d/theirs"
		got=$(stat -c '%a %u %g' "$d/theirs")
		if [ "$got" = "600 65534 65534" ]; then
			ok "outputs/$c: the replaced file keeps mode 0600 and its owner"
		else
			not_ok "outputs/$c: the replaced file keeps mode 0600 and its owner" "now: $got"
		fi
	else
		skip "outputs/$c: -o another user's 0600 file" "not root (chown)"
	fi

	# A symbolic link (relative, through a second link): the target is
	# replaced, the links stay links.
	echo old >"$d/target"
	ln -s target "$d/link1"
	ln -s link1 "$d/link2"
	out_run $c "$d/link2" 2>"$d/err"
	out_same "outputs/$c: -o a symbolic link replaces its target" "$d/expected" "$d/target"
	if [ -L "$d/link2" ] && [ -L "$d/link1" ] && [ "$(readlink "$d/link2")" = link1 ]; then
		ok "outputs/$c: the symbolic links stay links"
	else
		not_ok "outputs/$c: the symbolic links stay links" "$(ls -l "$d")"
	fi
	# A dangling link: its target is created, as the shell's > does.
	ln -s created "$d/dangling"
	out_run $c "$d/dangling" 2>"$d/err"
	if [ -L "$d/dangling" ] && cmp -s "$d/expected" "$d/created"; then
		ok "outputs/$c: -o a dangling link creates its target"
	else
		not_ok "outputs/$c: -o a dangling link creates its target" "$(ls -l "$d")"
	fi

	# A file with two hard links: rewritten in place, both names see it.
	echo old >"$d/hard1"
	ln "$d/hard1" "$d/hard2"
	ino=$(stat -c %i "$d/hard1")
	out_run $c "$d/hard1" 2>"$d/err"
	out_same "outputs/$c: -o a hard-linked file writes the new content" "$d/expected" "$d/hard1"
	if [ "$(stat -c '%i %h' "$d/hard1")" = "$ino 2" ] && cmp -s "$d/hard1" "$d/hard2"; then
		ok "outputs/$c: the hard link is not split (same inode, both names updated)"
	else
		not_ok "outputs/$c: the hard link is not split (same inode, both names updated)" \
			"before: inode $ino; now: $(stat -c '%i %h' "$d/hard1" "$d/hard2")"
	fi

	# A character device (a null device made here): written, not replaced.
	if [ $is_root = 1 ] && mknod "$d/null" c 1 3 2>/dev/null; then
		out_run $c "$d/null" 2>"$d/err"
		rc=$?
		if [ $rc = 0 ] && [ -c "$d/null" ] && [ "$(stat -c '%t,%T' "$d/null")" = 1,3 ]; then
			ok "outputs/$c: -o a character device writes to it and keeps it"
		else
			not_ok "outputs/$c: -o a character device writes to it and keeps it" "exit $rc" \
				"$(ls -l "$d/null")" "$(head -3 "$d/err")"
		fi
	else
		skip "outputs/$c: -o a character device" "cannot mknod here (not root)"
	fi

	# A FIFO with a reader: the reader gets the whole output. (The timeout
	# only ends a reader that a broken -o left waiting for a writer.)
	mkfifo "$d/fifo"
	timeout 20 cat "$d/fifo" >"$d/fifo.out" &
	reader=$!
	out_run $c "$d/fifo" 2>"$d/err"
	wait $reader
	out_same "outputs/$c: -o a FIFO: its reader gets the output" "$d/expected" "$d/fifo.out"
	if [ -p "$d/fifo" ]; then ok "outputs/$c: the FIFO stays a FIFO"; else not_ok "outputs/$c: the FIFO stays a FIFO"; fi

	# A link to /proc/self/fd/1 (what /dev/stdout is, made here: a broken
	# -o must not replace the real one) with stdout a pipe: readlink gives
	# pipe:[N], which is no path; the pipe gets the output.
	ln -s /proc/self/fd/1 "$d/stdout"
	out_run $c "$d/stdout" 2>"$d/err" | cat >"$d/stdout.out"
	out_same "outputs/$c: -o a link to /proc/self/fd/1 writes to the pipe" "$d/expected" "$d/stdout.out"

	# A directory: an error naming it, and the directory is untouched.
	mkdir "$d/dir"
	out_run $c "$d/dir" >/dev/null 2>"$d/err"
	rc=$?
	if [ $rc = 1 ] && grep -q "cannot write '$d/dir': Is a directory" "$d/err" &&
		[ -z "$(ls -A "$d/dir")" ]; then
		ok "outputs/$c: -o a directory is an error naming it"
	else
		not_ok "outputs/$c: -o a directory is an error naming it" "exit $rc" "$(cat "$d/err")"
	fi

	# A folder that does not exist: the message names the path given.
	out_run $c "$d/nowhere/x" >/dev/null 2>"$d/err"
	if grep -q "cannot create '$d/nowhere/x': No such file or directory" "$d/err"; then
		ok "outputs/$c: -o in a missing folder names the path given"
	else
		not_ok "outputs/$c: -o in a missing folder names the path given" "$(cat "$d/err")"
	fi

	leftover=$(find "$d" -name '*.tmp.*')
	if [ -z "$leftover" ]; then
		ok "outputs/$c: no temporary file is left"
	else
		not_ok "outputs/$c: no temporary file is left" "$leftover"
	fi
done

# A fatal signal while the output is being written: the temporary file is
# removed, the old file stays (or the new one is complete), and the process
# dies of the signal. The signal is sent as soon as the temporary file
# appears (a 50 MB graph takes a while to write); a run that ends before
# that is retried, then skipped.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "main;f%d;g%d;h%d 1\n", i, i % 7, i % 3 }' \
	>"$ot/big.folded"
for sig_num in INT:2 TERM:15 HUP:1 PIPE:13; do
	sig=${sig_num%:*} num=${sig_num#*:}
	name="outputs: SIG$sig while writing -o leaves no temporary file"
	hit=0
	for try in 1 2 3; do
		rm -f "$ot/big.svg"
		echo old >"$ot/big.svg"
		# A background job of a script ignores SIGINT, and a suite started
		# under nohup ignores SIGHUP (scorch then leaves them ignored, as
		# it should): give the signals sent here their default action.
		env --default-signal=INT,TERM,HUP,PIPE "$SCORCH" flamegraph --minwidth 0 "$ot/big.folded" \
			-o "$ot/big.svg" 2>/dev/null &
		pid=$!
		sent=0
		while [ $sent = 0 ] && kill -0 $pid 2>/dev/null; do
			for f in "$ot"/big.svg.tmp.*; do
				[ -e "$f" ] && kill -$sig $pid && sent=1
			done
		done
		wait $pid 2>/dev/null
		rc=$?
		[ $sent = 1 ] && [ $rc -gt 128 ] && { hit=1; break; }
	done
	if [ $hit = 0 ]; then
		skip "$name" "the run always ended before the signal (exit $rc)"
		continue
	fi
	leftover=$(find "$ot" -name 'big.svg.tmp.*')
	content=$(tail -c 7 "$ot/big.svg")
	if [ $rc = $((128 + num)) ] && [ -z "$leftover" ] &&
		{ [ "$content" = old ] || [ "$content" = "</svg>" ]; }; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "left: $leftover" "target ends with: $content"
	fi
done
rm -f "$ot/big.folded" "$ot/big.svg"
