# report -o x.pb.gz: pprof Mappings with the files and build-ids perf
# recorded, and Location addresses a symboliser can use. Oracles:
#   - perf buildid-list -i on the same perf.data (every build-id scorch
#     writes is the one perf recorded for that file, or readelf's for a
#     file perf recorded none for);
#   - go tool pprof -traces gives back report's folded stacks and counts
#     (the mappings change nothing in the stacks);
#   - live: go tool pprof -symbolize=force reads the binary's symbols and
#     line tables at each address and must find the names scorch wrote.
# Uses lib.sh's corpus_setup ($C, $K, $H: the capture kernel's kallsyms)
# and live_setup ($L, $live_why).
. "${0%/*}/lib.sh"
corpus_setup
live_setup
. tests/pprof.sh

pm_names="corpus-build-ids corpus-traces kernel-build-id merge-mappings merge-places"
if [ -n "$corpus_why" ]; then
	for n in $pm_names; do skip_or_fail "report pprof: $n" "$corpus_why"; done
elif ! command -v go >/dev/null 2>&1; then
	for n in $pm_names; do not_ok "report pprof: $n" "no go (scripts/setup installs Debian's golang-go)"; done
else
	for c in a-fp-mt c-kernel; do
		xz -dc "$C/$c.data.xz" >"$K/$c.data"
		HOME=$H "$SCORCH" report -q -o "$K/$c.pb.gz" "$K/$c.data" 2>"$K/err"
		pp_mapping_ids "$K/$c.pb.gz" >"$K/$c.ids"
		perf buildid-list -i "$K/$c.data" 2>/dev/null | awk '{ id = $1; sub(/^[^ ]+ /, ""); print $0, id }' |
			LC_ALL=C sort -u >"$K/$c.perf-ids"
		# a file perf recorded no build-id for (hit only in callchains) is
		# read from disk, as perf script reads it: readelf's answer
		awk '{ print $1 }' "$K/$c.perf-ids" >"$K/$c.perf-files"
		awk '{ print $1 }' "$K/$c.ids" | grep -vxF -f "$K/$c.perf-files" | while read -r f; do
			printf '%s %s\n' "$f" "$(readelf -n "$f" 2>/dev/null | sed -n 's/.*Build ID: //p')"
		done >>"$K/$c.perf-ids"
		LC_ALL=C sort -o "$K/$c.perf-ids" "$K/$c.perf-ids"
		missing=$(LC_ALL=C comm -23 "$K/$c.ids" "$K/$c.perf-ids")
		if [ -s "$K/$c.ids" ] && [ -z "$missing" ]; then
			ok "report pprof: $c: $(wc -l <"$K/$c.ids") Mappings with the build-ids perf recorded"
		else
			not_ok "report pprof: $c: Mappings with the build-ids perf recorded" "not in perf buildid-list: $missing" \
				"$(cat "$K/err")"
		fi
	done
	if grep -qx '\[kernel.kallsyms\] 6ecd6ec21ec69416e50a8aa6737e500901ddb47a' "$K/c-kernel.ids"; then
		ok "report pprof: the kernel's Mapping carries its build-id"
	else
		not_ok "report pprof: the kernel's Mapping carries its build-id" "$(cat "$K/c-kernel.ids")"
	fi
	HOME=$H "$SCORCH" report -q "$K/a-fp-mt.data" | awk '{ c = $NF; sub(/ [^ ]*$/, ""); n[$0] += c }
		END { for (s in n) printf "%s %.0f\n", s, n[s] }' | LC_ALL=C sort >"$K/a-fp-mt.want"
	pp_traces_folded "$K/a-fp-mt.pb.gz" ns >"$K/a-fp-mt.traces"
	[ -s "$K/a-fp-mt.want" ] || not_ok "report pprof: a-fp-mt: report folded nothing"
	test_cmp "report pprof: a-fp-mt: go tool pprof -traces gives back report's stacks ($(wc -l <"$K/a-fp-mt.want") stacks)" \
		"$K/a-fp-mt.want" "$K/a-fp-mt.traces"
	# merge keeps them: from the perf.data (folded as report folds it) and
	# from report's pprof, under a root per host
	HOME=$H "$SCORCH" merge h1="$K/a-fp-mt.data" h2="$K/a-fp-mt.pb.gz" -o "$K/merged.pb.gz" 2>"$K/err"
	pp_mapping_ids "$K/merged.pb.gz" >"$K/merged.ids"
	test_cmp "report pprof: merge of perf.data and pprof keeps the Mappings and build-ids" \
		"$K/a-fp-mt.ids" "$K/merged.ids"
	pp_name_offsets "$K/a-fp-mt.pb.gz" >"$K/a-fp-mt.offsets"
	pp_name_offsets "$K/merged.pb.gz" >"$K/merged.offsets"
	test_cmp "report pprof: ... and each function's place in its file ($(wc -l <"$K/a-fp-mt.offsets") functions)" \
		"$K/a-fp-mt.offsets" "$K/merged.offsets"
	rm -f "$K/a-fp-mt.data" "$K/c-kernel.data"
fi

# Live: the addresses symbolise again to scorch's names. (A binary from
# the corpus cannot serve: the go tool pprof of Debian 12 reads no build-id
# from binaries whose first note is .note.gnu.property and refuses them
# from PPROF_BINARY_PATH; a binary at its recorded path is used as is.)
if [ -n "$live_why" ]; then
	skip_or_fail "report pprof: live addresses symbolise again" "$live_why"
elif ! command -v go >/dev/null 2>&1; then
	not_ok "report pprof: live addresses symbolise again" "no go (scripts/setup installs Debian's golang-go)"
else
	demo=$(readlink -f "$BUILD/workloads/demo")
	perf record -q -g -F 999 -o "$L/demo.data" -- "$demo" 0.5 >/dev/null 2>&1
	"$SCORCH" report -q -o "$L/demo.pb.gz" "$L/demo.data" 2>"$L/err"
	pp_resymbolize_diff "$L/demo.pb.gz" "$demo" >"$L/demo.diff"
	if [ "$(cat "$L/demo.diff")" != "checked 0" ] && [ "$(wc -l <"$L/demo.diff")" = 1 ]; then
		ok "report pprof: live addresses symbolise again to the same names ($(cat "$L/demo.diff") locations)"
	else
		not_ok "report pprof: live addresses symbolise again to the same names" "$(head -5 "$L/demo.diff")" \
			"$(cat "$L/err")"
	fi
fi
