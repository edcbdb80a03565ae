# Out of memory is an error, not an abort (issue 30 item 4): under address
# space limits from too small to enough (prlimit --as; from the least in
# which scorch's libraries load, that is scorch --version runs), every output format
# either succeeds or exits 1 with a message, leaving no temporary file
# beside -o and the old output as it was; the smallest limits run out of
# memory and say so, the largest (384 MB) succeeds.
. "${0%/*}/../lib.sh"
om=$TMPDIR/oom
mkdir -p "$om"
# 60,000 stacks of 11 frames (5 MB): a few tens of MB to draw.
awk 'BEGIN { for (i = 0; i < 60000; i++) { s = "main"; x = i
	for (d = 0; d < 10; d++) { s = s ";fn_" d "_" (x % 37); x = int(x / 3) + d }
	print s, (i % 97) + 1 } }' >"$om/in.folded"
cp tests/fuzz/corpus/perfdata/fp-true.data "$om/perf.data"

# om_ladder NAME OUTPUT CMD...: CMD (writing OUTPUT) under each limit.
om_ladder() {
	_name=$1 _out=$2
	shift 2
	_bad= _oom=0 _top=
	for _mb in 16 24 32 40 48 64 80 96 128 192 256 384; do
		# below what the dynamic loader needs for scorch's libraries,
		# nothing of scorch runs: not a case
		prlimit --as=$((_mb * 1024 * 1024)) "$SCORCH" --version >/dev/null 2>&1 || continue
		printf 'old\n' >"$_out"
		prlimit --as=$((_mb * 1024 * 1024)) "$@" >/dev/null 2>"$om/err"
		_rc=$?
		_left=$(ls "$_out".tmp.* 2>/dev/null | wc -l)
		grep -q "out of memory" "$om/err" && _oom=$((_oom + 1))
		if [ "$_left" != 0 ]; then
			_bad="$_bad ${_mb}MB:$_left-temporary-files"
		elif [ "$_rc" = 0 ]; then
			[ "$(cat "$_out")" = old ] && _bad="$_bad ${_mb}MB:exit-0-without-output"
		elif [ "$_rc" = 1 ]; then
			[ "$(cat "$_out")" = old ] || _bad="$_bad ${_mb}MB:old-output-changed"
			grep -q '^scorch: ' "$om/err" || _bad="$_bad ${_mb}MB:exit-1-without-a-message"
		else
			_bad="$_bad ${_mb}MB:exit-$_rc($(grep -v '^Fontconfig' "$om/err" | tail -1))"
		fi
		_top=$_rc
	done
	if [ -n "$_bad" ]; then
		not_ok "oom: $_name: exit 0, or 1 with a message, old output kept" "$_bad"
	elif [ "$_oom" = 0 ]; then
		not_ok "oom: $_name: exit 0, or 1 with a message, old output kept" "no limit ran out of memory"
	elif [ "$_top" != 0 ]; then
		not_ok "oom: $_name: exit 0, or 1 with a message, old output kept" "384 MB did not succeed"
	else
		ok "oom: $_name: exit 0, or 1 with a message, old output kept"
	fi
}

if [ -n "${SCORCH_SANITIZED:-}" ]; then
	# AddressSanitizer reserves terabytes of address space at start
	skip "oom: every output format under prlimit --as" "address-space limits do not apply under ASan (run in the normal pass)"
else
for ext in svg html png pb.gz speedscope.json; do
	om_ladder "flamegraph -o x.$ext" "$om/x.$ext" "$SCORCH" flamegraph -o "$om/x.$ext" "$om/in.folded"
done
om_ladder "collapse -o x.folded" "$om/x.folded" "$SCORCH" collapse -o "$om/x.folded" "$om/in.folded"
om_ladder "merge -o x.folded" "$om/m.folded" "$SCORCH" merge -o "$om/m.folded" "$om/in.folded" "$om/in.folded"
om_ladder "report -o x.svg" "$om/r.svg" "$SCORCH" report -o "$om/r.svg" "$om/perf.data"
fi
