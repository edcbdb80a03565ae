# Damaged perf.data: a clear error naming the byte offset, exit 1, never a
# crash; --keep-going writes what was read before the damage. The input is
# the fuzz corpus's small real capture (tests/fuzz/corpus/perfdata/).
. "${0%/*}/lib.sh"

B=$TMPDIR/bad
mkdir -p "$B"
src=$(dirname "$0")/../fuzz/corpus/perfdata/fp-true.data
if [ ! -f "$src" ]; then
	not_ok "report bad input: corpus file $src missing"
else
	size=$(wc -c <"$src")
	"$SCORCH" report -q "$src" >"$B/full" 2>"$B/err"
	full_rc=$?
	[ "$full_rc" = 0 ] && ok "report bad input: intact file reads" ||
		not_ok "report bad input: intact file reads" "$(head -3 "$B/err")"
	for cut in 0 10 50 104 200 $((size / 2)) $((size - 9)); do
		head -c "$cut" "$src" >"$B/cut.data"
		"$SCORCH" report "$B/cut.data" >"$B/out" 2>"$B/err"
		rc=$?
		if [ "$rc" = 1 ] && grep -q 'byte [0-9]' "$B/err" && [ ! -s "$B/out" ]; then
			ok "report bad input: cut at $cut: exit 1, error names the offset"
		else
			not_ok "report bad input: cut at $cut (exit $rc)" "$(head -3 "$B/err")"
		fi
	done
	# --keep-going on a file cut inside its data: whatever came before
	head -c $((size * 3 / 4)) "$src" >"$B/cut.data"
	"$SCORCH" report -k "$B/cut.data" >"$B/out" 2>"$B/err"
	rc=$?
	if [ "$rc" = 0 ] && grep -q 'byte [0-9]' "$B/err"; then
		ok "report bad input: --keep-going exit 0, damage still reported"
	else
		not_ok "report bad input: --keep-going (exit $rc)" "$(head -3 "$B/err")"
	fi
	# a record with size 0 in the middle of the data section
	dataoff=$(od -An -t u8 -j 40 -N 8 "$src" | tr -d ' ')
	cp "$src" "$B/zero.data"
	printf '\000\000' | dd of="$B/zero.data" bs=1 seek=$((dataoff + 6)) conv=notrunc 2>/dev/null
	"$SCORCH" report "$B/zero.data" >"$B/out" 2>"$B/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "byte $dataoff: .*size 0" "$B/err"; then
		ok "report bad input: zero-sized record at byte $dataoff"
	else
		not_ok "report bad input: zero-sized record (exit $rc)" "$(head -3 "$B/err")"
	fi
	# An MMAP2 record whose file name lost its NUL padding: the name is read
	# as perf reads it, up to the first NUL in the record (here in the
	# sample-id trailer after it: perf script -i ... --show-mmap-events
	# prints ".../ld-linux-x86-64.so.2XX[$" for this file); and a name
	# running to the record's very end is read without going past it.
	ld=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
	datasize=$(od -An -t u8 -j 48 -N 8 "$src" | tr -d ' ')
	at=$(grep -obUa "$ld" "$src" | cut -d: -f1 | while read -r o; do
		[ "$o" -ge "$dataoff" ] && [ "$o" -lt $((dataoff + datasize)) ] && echo "$o"; done | head -1)
	if [ -z "$at" ]; then
		not_ok "report bad input: no MMAP2 of $ld in $src"
	else
		from=$((at + ${#ld}))
		pad=$(((8 - (from - dataoff) % 8) % 8))
		xs=$(printf '%*s' "$pad" '' | tr ' ' X)
		cp "$src" "$B/name.data"
		printf '%s' "$xs" | dd of="$B/name.data" bs=1 seek="$from" conv=notrunc 2>/dev/null
		rest=$(dd if="$B/name.data" bs=1 skip=$((from + pad)) count=64 2>/dev/null | tr '\000' '\n' | head -1)
		"$SCORCH" report --script "$B/name.data" >"$B/out" 2>"$B/err"
		rc=$?
		if [ "$rc" = 0 ] && [ "$pad" -gt 0 ] && [ -n "$rest" ] && grep -qF "($ld$xs$rest)" "$B/out" &&
			! grep -qF "($ld)" "$B/out"; then
			ok "report bad input: an MMAP2 file name without its NUL padding ends at the record's first NUL"
		else
			not_ok "report bad input: MMAP2 file name without NUL padding (exit $rc, pad $pad)" \
				"$(grep -F "$ld" "$B/out" | head -2; head -3 "$B/err")"
		fi
		# no NUL from the name to the record's end (the trailer too)
		rsize=$(od -An -t u2 -j $((at - 72 + 6)) -N 2 "$src" | tr -d ' ')
		rend=$((at - 72 + rsize))
		printf '%*s' $((rend - from)) '' | tr ' ' X |
			dd of="$B/name.data" bs=1 seek="$from" conv=notrunc 2>/dev/null
		"$SCORCH" report --script "$B/name.data" >"$B/out" 2>"$B/err"
		rc=$?
		if [ "$rc" = 0 ] && [ "$(od -An -t u4 -j $((at - 72)) -N 4 "$src" | tr -d ' ')" = 10 ] &&
			grep -q 'cpu-clock' "$B/out"; then
			ok "report bad input: an MMAP2 file name running to the record's end"
		else
			not_ok "report bad input: MMAP2 file name to the record's end (exit $rc)" "$(head -3 "$B/err")"
		fi
	fi
fi
# a record type nobody knows is skipped (pipe mode: records run to EOF)
pipe=$(dirname "$0")/../fuzz/corpus/perfdata/pipe-true.data
cp "$pipe" "$B/unknown.data"
printf '\347\003\000\000\000\000\020\000ABCDEFGH' >>"$B/unknown.data" # type 999, size 16
"$SCORCH" report -q "$pipe" >"$B/known.out" 2>&1
"$SCORCH" report -q "$B/unknown.data" >"$B/unknown.out" 2>"$B/err"
rc=$?
if [ "$rc" = 0 ] && [ -s "$B/known.out" ] && cmp -s "$B/known.out" "$B/unknown.out"; then
	ok "report bad input: unknown record type skipped"
else
	not_ok "report bad input: unknown record type (exit $rc)" "$(head -3 "$B/err")"
fi

printf 'not perf data at all\n' >"$B/text.data"
"$SCORCH" report "$B/text.data" >"$B/out" 2>"$B/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'byte 0: not a perf.data file' "$B/err"; then
	ok "report bad input: text file"
else
	not_ok "report bad input: text file (exit $rc)" "$(head -3 "$B/err")"
fi
expect_exit "report bad input: missing file" 1 "$SCORCH" report "$B/does-not-exist.data"
expect_exit "report bad input: unknown option" 2 "$SCORCH" report --no-such-option
