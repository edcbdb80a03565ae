# report --per-cpu: a "CPU N" root frame per stack, as record --per-cpu has
# it. Expected, for every CPU N of a capture with CPU numbers
# (--sample-cpu): the stacks of `perf script --cpu N | scorch collapse perf`
# under "CPU N".
. "${0%/*}/lib.sh"
live_setup
if [ -n "$live_why" ]; then
	skip_or_fail "report --per-cpu" "$live_why"
else
	live_fp_data
	perf record -q -g --sample-cpu -F 1999 -o "$L/cpu.data" -- "$W" "$secs" >/dev/null 2>&1
	"$SCORCH" report -q --per-cpu "$L/cpu.data" >"$L/percpu.ours" 2>"$L/err"
	: >"$L/percpu.want"
	for cpu in $(perf script -i "$L/cpu.data" -F cpu 2>/dev/null | tr -d '[] ' | awk '{ print $1 + 0 }' | sort -un); do
		perf script -i "$L/cpu.data" --cpu "$cpu" 2>/dev/null | "$SCORCH" collapse perf 2>/dev/null |
			sed "s/^/CPU $cpu;/" >>"$L/percpu.want"
	done
	LC_ALL=C sort "$L/percpu.want" >"$L/percpu.want.sorted"
	LC_ALL=C sort "$L/percpu.ours" >"$L/percpu.ours.sorted"
	if [ "$(cut -d';' -f1 "$L/percpu.ours" | sort -u | wc -l)" -ge 1 ] && [ -s "$L/percpu.want" ]; then
		test_cmp "report --per-cpu (perf script --cpu N per CPU)" "$L/percpu.want.sorted" "$L/percpu.ours.sorted"
	else
		not_ok "report --per-cpu" "no stacks" "$(cat "$L/err")"
	fi

	# Without CPU numbers in the file: "CPU ?" and a warning saying why.
	"$SCORCH" report -q --per-cpu "$L/fp.data" >"$L/percpu.none" 2>"$L/err"
	if [ "$(cut -d';' -f1 "$L/percpu.none" | sort -u)" = "CPU ?" ] &&
		grep -q 'without CPU numbers' "$L/err"; then
		ok "report --per-cpu without CPU numbers: CPU ? and a warning"
	else
		not_ok "report --per-cpu without CPU numbers: CPU ? and a warning" "$(cat "$L/err")"
	fi
fi
