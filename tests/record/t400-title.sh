# A recorded graph says what was recorded, where, when and how, unless
# --title/--subtitle say otherwise. Uses lib.sh's $WL and probes.
. "${0%/*}/lib.sh"

svg_text() { sed -n "s/.*<text id=\"$2\"[^>]*>\\([^<]*\\)<.*/\\1/p" "$1"; }

if [ "$perf_ok" = 1 ] || [ "$bpf_ok" = 1 ]; then
	# run as ./burn: a long TMPDIR would make the title reach its 100-byte cut
	# arguments a shell would need quoted are quoted as it would type them
	(cd "$WL" && "$SCORCH" record -q -F 499 -o "$TMPDIR/title.svg" -- ./burn 0.2 '<&>' "a b's" 2>"$TMPDIR/title.err")
	title=$(svg_text "$TMPDIR/title.svg" title)
	sub=$(svg_text "$TMPDIR/title.svg" subtitle)
	# the sample count the subtitle states is the root frame's
	all=$(sed -n 's/.*<title>all (\([0-9,]*\) samples, 100%)<\/title>.*/\1/p' "$TMPDIR/title.svg")
	host=$(hostname)
	if [ "$title" = "scorch record: ./burn 0.2 '&lt;&amp;&gt;' 'a b'\\''s'" ] && [ -n "$all" ] &&
		echo "$sub" | grep -q -E "^host $host · 20[0-9]{2}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9] UTC · (cpu-clock|cycles) 499 Hz · [0-9]+\.[0-9] s · $all samples$"; then
		ok "record: a graph's title and subtitle say what, where, when and how"
	else
		not_ok "record: a graph's title and subtitle say what, where, when and how" "title: $title" \
			"subtitle: $sub" "root: $all samples"
	fi

	# a newline or tab in an argument is written as bash's $'...' would type
	# it (no raw control byte, which the SVG would draw as U+FFFD), and the
	# 100-byte cut never splits a UTF-8 character
	nl='
'
	long=$(printf 'é%.0s' $(seq 60))
	(cd "$WL" && "$SCORCH" record -q -F 499 -o "$TMPDIR/nl.svg" -- ./burn 0.1 "a${nl}b	c'd" "$long" 2>/dev/null)
	nt=$(svg_text "$TMPDIR/nl.svg" title)
	want="scorch record: ./burn 0.1 \$'a\\nb\\tc\\'d' '"
	room=$(((100 - $(printf %s "$want" | wc -c)) / 2)) # two bytes an é
	want="$want$(printf 'é%.0s' $(seq $room))..."
	if [ "$nt" = "$want" ] && ! grep -q "$(printf '\357\277\275')" "$TMPDIR/nl.svg"; then
		ok "record: a title writes control bytes as \$'...' and cuts at a character"
	else
		not_ok "record: a title writes control bytes as \$'...' and cuts at a character" "title: $nt" "want:  $want"
	fi

	"$WL/burn" 1 &
	bp=$!
	sleep 0.1
	"$SCORCH" record -q -F 499 -p $bp -d 0.3 -o "$TMPDIR/ptitle.svg" 2>/dev/null
	"$SCORCH" record -q -F 499 -a -d 0.3 -o "$TMPDIR/atitle.svg" 2>/dev/null
	kill $bp 2>/dev/null
	wait $bp 2>/dev/null
	pt=$(svg_text "$TMPDIR/ptitle.svg" title)
	at=$(svg_text "$TMPDIR/atitle.svg" title)
	if [ "$pt" = "scorch record: PID $bp (burn)" ] && [ "$at" = "scorch record: all CPUs" ]; then
		ok "record: a graph's title names the PIDs or all CPUs"
	else
		not_ok "record: a graph's title names the PIDs or all CPUs" "-p: $pt" "-a: $at"
	fi

	"$SCORCH" record -q -F 499 --title Mine --subtitle 'Sub <x>' -o "$TMPDIR/own.svg" -- "$WL/burn" 0.2 2>/dev/null
	if [ "$(svg_text "$TMPDIR/own.svg" title)" = Mine ] &&
		[ "$(svg_text "$TMPDIR/own.svg" subtitle)" = 'Sub &lt;x&gt;' ]; then
		ok "record: --title and --subtitle replace the defaults"
	else
		not_ok "record: --title and --subtitle replace the defaults" "$(grep -o '<text id="[a-z]*title"[^<]*' "$TMPDIR/own.svg")"
	fi
else
	for n in "a graph's title and subtitle say what, where, when and how" \
		"a title writes control bytes as \$'...' and cuts at a character" \
		"a graph's title names the PIDs or all CPUs" "--title and --subtitle replace the defaults"; do
		skip_or_fail "record: $n" "$perf_why"
	done
fi
