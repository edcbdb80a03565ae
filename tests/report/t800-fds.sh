# Descriptor exhaustion is loud (issue 30 item 5): under `ulimit -n N` from
# too few to enough, report either writes exactly the output it writes
# without a limit, or names each file it could not open for symbols (with
# errno) and exits 1 leaving the old output; never another graph. Needs
# perf (a fresh capture of tests/workloads/report_mt): fails without it,
# skipped only where perf is refused a permission.
. "${0%/*}/lib.sh"
W=$BUILD/workloads/report_mt
F=$TMPDIR/fds
mkdir -p "$F"
if ! command -v perf >/dev/null 2>&1; then
	not_ok "report fds: ulimit -n ladder" "perf is not installed (scripts/setup installs linux-perf)"
elif ! perf record -q -g -F 999 -o "$F/mt.data" -- "$W" 0.3 >/dev/null 2>"$F/rec.err"; then
	# refused a permission: the machine's; any other failure is one
	fail="fail: "
	grep -q -i -E 'permission|not permitted|paranoid|EACCES|EPERM' "$F/rec.err" && fail=
	skip_or_fail "report fds: ulimit -n ladder" "${fail}perf record failed: $(head -1 "$F/rec.err" | cut -c1-70)"
else
	"$SCORCH" report -q -o "$F/want.folded" "$F/mt.data" 2>"$F/err"
	bad= loud=0 whole=0
	for n in 4 5 6 7 8 9 12; do
		for try in 1 2 3; do
			printf 'old\n' >"$F/got.folded"
			sh -c 'ulimit -n "$1" && exec "$2" report -q -o "$3" "$4"' sh "$n" "$SCORCH" \
				"$F/got.folded" "$F/mt.data" 2>"$F/err"
			rc=$?
			if [ "$rc" = 0 ]; then
				if cmp -s "$F/want.folded" "$F/got.folded"; then whole=$((whole + 1))
				else bad="$bad n=$n:exit-0-with-other-output"; fi
			elif grep -q "^scorch: error while loading shared libraries" "$F/err"; then
				: # too few for the dynamic loader: nothing of scorch ran
			elif [ "$rc" = 1 ]; then
				[ "$(cat "$F/got.folded")" = old ] || bad="$bad n=$n:old-output-changed"
				if grep -q "^scorch: warning: cannot open .* symbols.*: Too many open files" "$F/err" &&
				   grep -q "could not be opened" "$F/err"; then loud=$((loud + 1))
				else bad="$bad n=$n:exit-1($(tail -1 "$F/err" | cut -c1-80))"; fi
			else
				bad="$bad n=$n:exit-$rc"
			fi
		done
	done
	name="report fds: under ulimit -n 4..12 the same output or a loud exit 1"
	if [ -n "$bad" ]; then not_ok "$name" "$bad"
	elif [ "$loud" = 0 ]; then not_ok "$name" "no limit ran out of descriptors"
	elif [ "$whole" = 0 ]; then not_ok "$name" "no limit was enough"
	else ok "$name ($loud loud, $whole whole)"; fi

	sh -c 'ulimit -n 5 && exec "$1" report -q -k -o "$2" "$3"' sh "$SCORCH" "$F/kept.folded" "$F/mt.data" 2>"$F/err"
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$F/kept.folded" ] && grep -q "cannot open" "$F/err"; then
		ok "report fds: --keep-going draws what it could read, the files named"
	elif [ "$rc" = 0 ] && cmp -s "$F/want.folded" "$F/kept.folded"; then
		ok "report fds: --keep-going draws what it could read (all of it at 5)"
	else
		not_ok "report fds: --keep-going draws what it could read, the files named" "exit $rc" "$(tail -2 "$F/err")"
	fi
fi
