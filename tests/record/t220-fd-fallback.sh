# record -a falls back to the perf backend wherever the BPF backend runs
# out of descriptors (issue 30 item 6): loading, sampling events, ring and
# perf buffers. Under ulimit -n 10..40 (on two CPUs; shifted by two per
# CPU beyond, as the perf backend needs descriptors per CPU) every run
# writes a profile.
. "${0%/*}/lib.sh"

if [ "$bpf_ok" != 1 ]; then
	skip_or_fail "record: -a under ulimit -n 10..40 falls back and records" "$bpf_why"
else
	bad=
	off=$(($(nproc) * 2 - 4))
	[ "$off" -lt 0 ] && off=0
	for n in 10 12 14 16 18 20 22 24 26 28 30 32 36 40; do
		n=$((n + off))
		sh -c 'ulimit -n "$1" && exec timeout -k 5 30 "$2" record -a -d 0.3 -o "$3"' sh "$n" "$SCORCH" \
			"$TMPDIR/a$n.folded" >/dev/null 2>"$TMPDIR/a$n.err"
		rc=$?
		if [ "$rc" != 0 ] || [ ! -s "$TMPDIR/a$n.folded" ]; then
			bad="$bad n=$n:exit-$rc($(grep -v PMU "$TMPDIR/a$n.err" | tail -1 | cut -c1-90))"
		fi
	done
	if [ -z "$bad" ]; then ok "record: -a under ulimit -n 10..40 falls back and records"
	else not_ok "record: -a under ulimit -n 10..40 falls back and records" "$bad"; fi
fi
