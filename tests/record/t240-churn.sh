# scorch record under process churn (issue 30 item 3): what it holds
# follows the code that runs and the processes alive, not how many
# processes have come and gone. A shell (the recorded command, so that
# scorch is its parent) starts short-lived processes and, at checkpoints,
# reads scorch's own /proc/PID/status and fd/ (its parent's). Properties,
# on both backends (no timing in them):
#   - the same few programs (ls, sort, burn) run 2000 times each, every
#     process at addresses of its own (address randomisation): scorch's
#     RSS grows less than 10% from the run's middle to its end (today's
#     stacks are one per code path, not per process; before, stacks were
#     kept by address and the maps of every process ever seen: +13% in
#     that half of this run; what still grows, 2-5% in runs on a quiet
#     machine, is the new distinct stacks the kernel's side keeps bringing,
#     and at 7% the test failed one run in a few);
#   - 200 distinct copies of one ELF file, each run once: scorch's open
#     descriptors after the last are within 4 of those after the first 50
#     (before: one more per file, held for the inline expansion).
. "${0%/*}/lib.sh"

cat >"$TMPDIR/churn.sh" <<'SH'
# $1 iterations, $2 a folder of ELF copies (or ""), $3 the checkpoints file
n=$1 i=0
while [ $i -lt "$n" ]; do
	case $i in $((n / 4)) | $((n / 2)) | $((n - 1)))
		echo "$i $(awk '/^VmRSS/ { print $2 }' /proc/$PPID/status) $(ls /proc/$PPID/fd | wc -l)" >>"$3" ;;
	esac
	ls / >/dev/null
	sort /etc/hostname >/dev/null
	if [ -n "$2" ]; then "$2/burn-$i" 0.01; else "$WL/burn" 0.005; fi
	i=$((i + 1))
done
SH
mkdir -p "$TMPDIR/bin"
i=0
while [ $i -lt 200 ]; do cp "$WL/burn" "$TMPDIR/bin/burn-$i"; i=$((i + 1)); done
export WL

for be in perf bpf; do
	eval "okv=\$${be}_ok why=\$${be}_why"
	if [ "$okv" != 1 ]; then
		skip_or_fail "record $be: churn: RSS flat over 6000 short-lived processes" "$why"
		skip_or_fail "record $be: churn: descriptors flat over 200 distinct ELF files" "$why"
		continue
	fi
	rm -f "$TMPDIR/rss.$be" "$TMPDIR/fds.$be"
	# (under ASan, freed memory waits in its quarantine, 256 MB by default,
	# and the RSS measured would be that, and a quarantine of a few MB
	# comes and goes by more than the growth looked for: none in this run)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
		"$SCORCH" record -q --backend $be -F 999 -o "$TMPDIR/rss.$be.folded" -- \
		sh "$TMPDIR/churn.sh" 2000 "" "$TMPDIR/rss.$be" 2>"$TMPDIR/rss.$be.err"
	st=$?
	mid=$(awk 'NR == 2 { print $2 }' "$TMPDIR/rss.$be" 2>/dev/null)
	last=$(awk 'NR == 3 { print $2 }' "$TMPDIR/rss.$be" 2>/dev/null)
	if [ $st = 0 ] && [ -n "$mid" ] && [ -n "$last" ] && grep -q 'burn;.*main;burn_a' "$TMPDIR/rss.$be.folded" &&
		awk -v a="$mid" -v b="$last" 'BEGIN { exit !(b < a * 1.10) }'; then
		ok "record $be: churn: RSS flat over 6000 short-lived processes ($mid -> $last KiB)"
	else
		not_ok "record $be: churn: RSS flat over 6000 short-lived processes" \
			"exit $st; checkpoints (iteration, RSS KiB, fds): $(tr '\n' ';' <"$TMPDIR/rss.$be" 2>/dev/null)" \
			"want the last RSS under 1.10 x the middle one" "$(tail -3 "$TMPDIR/rss.$be.err")"
	fi
	"$SCORCH" record -q --backend $be -F 999 -o "$TMPDIR/fds.$be.folded" -- \
		sh "$TMPDIR/churn.sh" 200 "$TMPDIR/bin" "$TMPDIR/fds.$be" 2>"$TMPDIR/fds.$be.err"
	st=$?
	first=$(awk 'NR == 1 { print $3 }' "$TMPDIR/fds.$be" 2>/dev/null)
	last=$(awk 'NR == 3 { print $3 }' "$TMPDIR/fds.$be" 2>/dev/null)
	if [ $st = 0 ] && [ -n "$first" ] && [ -n "$last" ] && [ "$last" -le $((first + 4)) ] &&
		grep -q 'burn-1[0-9][0-9];.*main;burn_a' "$TMPDIR/fds.$be.folded"; then
		ok "record $be: churn: descriptors flat over 200 distinct ELF files ($first -> $last)"
	else
		not_ok "record $be: churn: descriptors flat over 200 distinct ELF files" \
			"exit $st; checkpoints (iteration, RSS KiB, fds): $(tr '\n' ';' <"$TMPDIR/fds.$be" 2>/dev/null)" \
			"$(tail -3 "$TMPDIR/fds.$be.err")"
	fi
done
