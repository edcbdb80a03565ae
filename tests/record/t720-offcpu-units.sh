# record --off-cpu written as pprof and speedscope says what it counts:
# microseconds of blocked time (time/microseconds in pprof, which go tool
# pprof then shows as time; "microseconds" in speedscope), not a count of
# samples. Uses lib.sh's probes.
. "${0%/*}/lib.sh"
ou_names="pprof-time-microseconds pprof-round-trip-us speedscope-microseconds summary-counts"
if [ "$perf_ok" = 1 ]; then ou_backend=perf; elif [ "$bpf_ok" = 1 ]; then ou_backend=bpf; else ou_backend=; fi
if [ -z "$ou_backend" ]; then
	for n in $ou_names; do skip_or_fail "record --off-cpu units: $n" "${perf_why:-$bpf_why}"; done
elif ! command -v go >/dev/null 2>&1; then
	for n in $ou_names; do not_ok "record --off-cpu units: $n" "no go (scripts/setup installs Debian's golang-go)"; done
else
	ou=$TMPDIR/offcpu-units
	mkdir -p "$ou"
	"$SCORCH" record -q --backend $ou_backend --off-cpu -o "$ou/o.pb.gz" -- sleep 0.3 2>"$ou/pb.err"
	PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$ou/o.pb.gz" >"$ou/o.raw" 2>&1
	# sleep's nanosleep alone blocks 0.3 s: the values are microseconds
	ou_sum=$(awk '/^Samples:/ { in_s = 1; next } /^[A-Z]/ { in_s = 0 } in_s && /^ +[0-9]+: / { t += $1 }
		END { print t + 0 }' "$ou/o.raw")
	if grep -q '^time/microseconds\[dflt\]$' "$ou/o.raw" && [ "$ou_sum" -ge 300000 ] && [ "$ou_sum" -lt 30000000 ]; then
		ok "record --off-cpu units: pprof-time-microseconds"
	else
		not_ok "record --off-cpu units: pprof-time-microseconds" "sum $ou_sum" "$(head -9 "$ou/o.raw")" "$(cat "$ou/pb.err")"
	fi
	# read back: flamegraph's tooltips count the same total in us
	"$SCORCH" flamegraph "$ou/o.pb.gz" -o "$ou/o.svg" 2>"$ou/svg.err"
	if grep -q "<title>all ($(printf "%s" "$ou_sum" | sed ':a;s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/;ta') us, 100%)</title>" "$ou/o.svg"; then
		ok "record --off-cpu units: pprof-round-trip-us"
	else
		not_ok "record --off-cpu units: pprof-round-trip-us" "want $ou_sum us" \
			"$(grep -o '<title>all [^<]*' "$ou/o.svg")" "$(cat "$ou/svg.err")"
	fi
	"$SCORCH" record --backend $ou_backend --off-cpu -o "$ou/o.speedscope.json" -- sleep 0.1 2>"$ou/ss.err"
	"$SCORCH" flamegraph "$ou/o.pb.gz" -o "$ou/back.speedscope.json" 2>>"$ou/ss.err"
	if grep -q '"unit":"microseconds"' "$ou/o.speedscope.json" && grep -q '"unit":"microseconds"' "$ou/back.speedscope.json"; then
		ok "record --off-cpu units: speedscope-microseconds"
	else
		not_ok "record --off-cpu units: speedscope-microseconds" \
			"$(grep -o '"unit":"[^"]*"' "$ou/o.speedscope.json" "$ou/back.speedscope.json")" "$(cat "$ou/ss.err")"
	fi
	# the summary's counts read as its blocks do: digits grouped by
	# thousands, "1 distinct stack" (sleep's one nanosleep: usually 1)
	ou_line=$(grep '^scorch: .* distinct stack' "$ou/ss.err")
	ou_n=$(printf '%s\n' "$ou_line" | sed -n 's/.*, \([0-9,]*\) distinct stacks*,.*/\1/p')
	ou_word=$(printf '%s\n' "$ou_line" | sed -n 's/.*, [0-9,]* distinct \(stacks*\),.*/\1/p')
	if printf '%s\n' "$ou_n" | grep -Eq '^[0-9]{1,3}(,[0-9]{3})*$' &&
		{ { [ "$ou_n" = 1 ] && [ "$ou_word" = stack ]; } || { [ "$ou_n" != 1 ] && [ "$ou_word" = stacks ]; }; }; then
		ok "record --off-cpu units: summary-counts"
	else
		not_ok "record --off-cpu units: summary-counts" "'$ou_n' '$ou_word'" "$(cat "$ou/ss.err")"
	fi
fi
