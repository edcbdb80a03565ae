# A report graph names what its counts are: report sums the samples'
# periods (as stackcollapse-perf does), so cpu-clock counts nanoseconds,
# other events count events, and a file without periods counts samples.
# Fresh captures of report_mt (lib.sh's live_setup: $W, $L, $live_why).
. "${0%/*}/lib.sh"
live_setup

units="cpu-clock-ns fixed-period-samples page-faults-events countname-override"
if [ -n "$live_why" ]; then
	for n in $units; do skip_or_fail "report unit: $n" "$live_why"; done
else
	# tooltip FILE: the unit word of the first frame's tooltip after the root's.
	tooltip_unit() { grep -o '<title>[^<]*</title>' "$1" | sed -n '2s/.*(\([0-9,.]*\) \([^,]*\), .*/\2/p'; }
	perf record -q -e cpu-clock -g -F 499 -o "$L/u-ns.data" -- "$W" 0.2 >/dev/null 2>&1
	perf record -q -e cpu-clock -c 1000000 -g -o "$L/u-c.data" -- "$W" 0.2 >/dev/null 2>&1
	perf record -q -e page-faults -g -o "$L/u-pf.data" -- "$W" 0.2 >/dev/null 2>&1
	for c in "ns:cpu-clock-ns" "c:fixed-period-samples" "pf:page-faults-events"; do
		f=${c%%:*} name=${c#*:} want=${name##*-}
		"$SCORCH" report -q -o "$L/u-$f.svg" "$L/u-$f.data" 2>"$L/err"
		got=$(tooltip_unit "$L/u-$f.svg")
		if [ "$got" = "$want" ]; then
			ok "report unit: $name"
		else
			not_ok "report unit: $name" "tooltip unit '$got', want '$want'" "$(cat "$L/err")"
		fi
	done
	"$SCORCH" report -q --countname=widgets -o "$L/u-ov.svg" "$L/u-ns.data" 2>"$L/err"
	got=$(tooltip_unit "$L/u-ov.svg")
	if [ "$got" = widgets ]; then
		ok "report unit: countname-override"
	else
		not_ok "report unit: countname-override" "tooltip unit '$got'"
	fi
fi

# pprof says the same: cpu/nanoseconds for cpu-clock period sums, and the
# values are report's folded counts (summed by awk, compared with
# go tool pprof -top's total).
if [ -n "$live_why" ]; then
	skip_or_fail "report unit: pprof cpu/nanoseconds" "$live_why"
elif ! command -v go >/dev/null 2>&1; then
	not_ok "report unit: pprof cpu/nanoseconds" "no go (scripts/setup installs Debian's golang-go)"
else
	"$SCORCH" report -q -o "$L/u-ns.pb.gz" "$L/u-ns.data" 2>"$L/err"
	"$SCORCH" report -q "$L/u-ns.data" >"$L/u-ns.folded" 2>>"$L/err"
	want=$(awk '{ t += $NF } END { printf "%.0f\n", t }' "$L/u-ns.folded")
	PPROF_TMPDIR=$L go tool pprof -raw "$L/u-ns.pb.gz" >"$L/u-ns.raw" 2>&1
	got=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /:/ { t += $1 } END { printf "%.0f\n", t }' "$L/u-ns.raw")
	if grep -q '^cpu/nanoseconds\[dflt\]$' "$L/u-ns.raw" && [ "$got" = "$want" ] && [ "$want" != 0 ]; then
		ok "report unit: pprof cpu/nanoseconds"
	else
		not_ok "report unit: pprof cpu/nanoseconds" "total $got, want $want" "$(head -6 "$L/u-ns.raw")" "$(cat "$L/err")"
	fi
fi

# A report graph's title is perf's command line from the file's header,
# its subtitle the host, the event and the number of samples (what perf
# report --header-only and perf script say about the same file).
if [ -n "$live_why" ]; then
	skip_or_fail "report: a graph's title and subtitle come from the header" "$live_why"
else
	title=$(sed -n 's/.*<text id="title"[^>]*>\([^<]*\)<.*/\1/p' "$L/u-ns.svg")
	sub=$(sed -n 's/.*<text id="subtitle"[^>]*>\([^<]*\)<.*/\1/p' "$L/u-ns.svg")
	cmdline=$(perf report -i "$L/u-ns.data" --header-only 2>/dev/null | sed -n 's/^# cmdline : //p' |
		sed 's/^[^ ]*\/\([^ \/]*\) /\1 /; s/ *$//')
	host=$(perf report -i "$L/u-ns.data" --header-only 2>/dev/null | sed -n 's/^# hostname : //p')
	n=$(perf script -i "$L/u-ns.data" -F period 2>/dev/null | grep -c .)
	want_sub="host $host · cpu-clock · $(echo "$n" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta') samples · $L/u-ns.data"
	if [ "$title" = "scorch report: $cmdline" ] && [ "$sub" = "$want_sub" ]; then
		ok "report: a graph's title and subtitle come from the header"
	else
		not_ok "report: a graph's title and subtitle come from the header" "title: $title" \
			"want:  scorch report: $cmdline" "subtitle: $sub" "want:     $want_sub"
	fi
fi
