# Every `scorch flamegraph` option listed in its help is accepted by report
# for -o FILE.svg (parsed by the shared table in cmd/graph_opts.c), except those about
# flamegraph's own input and output (--sample-index: pprof input), and --time (report's own, whose
# value "1" is no range: tests/report/t703-time.sh).
. "${0%/*}/lib.sh"
missing=""
for o in $("$SCORCH" flamegraph --help | grep -o -E '^ +(-o, )?--[a-z-]+' | sed 's/.*--//' | sort -u); do
	case "$o" in output | help | format | dump-frames | sample-index | time) continue ;; esac
	# --opt=1 for options with a value; a flag rejects "=1" and is then
	# tried alone.
	if "$SCORCH" report "--$o=1" -h >/dev/null 2>"$TMPDIR/report-opt.err"; then
		continue
	fi
	grep -q "allow an argument" "$TMPDIR/report-opt.err" && "$SCORCH" report "--$o" -h >/dev/null 2>&1 && continue
	missing="$missing --$o"
done
if [ -z "$missing" ]; then
	ok "report: accepts every flamegraph option"
else
	not_ok "report: accepts every flamegraph option" "missing:$missing"
fi
