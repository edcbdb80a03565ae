# Conformance of `scorch collapse perf` with stackcollapse-perf.pl (the
# reference), read straight from the upstream manifests (tests/data:
# conformance.tar.xz, unpacked as $CONFORMANCE, and corpus/); one TAP line
# per case:
#   1. flamegraph/MANIFEST.txt: the 78 flag cases of
#      FlameGraph's test.sh; the 8 marked STALE are compared with what the
#      script at HEAD writes (generated-by-head/collapse/*.HEAD.txt);
#   2. generated-by-head/collapse/*-collapsed-default.txt: no flag, and the
#      example-perf-stacks.txt.gz default and --all collapses;
#   3. the inferno-collapse-perf records of inferno/MANIFEST.txt
#      (compare modes exact / strip-quotes / log / rule); where inferno's
#      expectation is not what stackcollapse-perf.pl writes, the case is
#      skipped with the reason (tests/conformance/known-differences.txt);
#   4. tests/data/corpus/refs: real captures of this machine kind, every
#      recorded variant (under $SCORCH_SANITIZED only the small captures);
#   5. output identical for 1, 2, 3 and 7 threads on captures and test inputs;
#   6. fast path against state machine: the same input with a line "!"
#      after every line (ignored by the script, but it sends every sample
#      through the line-by-line path) folds to the same output;
#   7. detection: `scorch collapse FILE` (no format name) gives exactly the
#      output of `scorch collapse perf FILE` for every perf input above
#      (all header variants: with and without pid, cpu, period; # headers),
#      or, where that output is empty, exits 1 saying no stacks were found.
. "${0%/*}/../lib.sh"

cp_fg=$CONFORMANCE/flamegraph
cp_inf=$CONFORMANCE/inferno
cp_tmp=$TMPDIR/collapse-perf
mkdir -p "$cp_tmp"

cp_ready() {
	printf 'xx 1 1.0: 1 cycles:\n\t1 f (m)\n\n' >"$cp_tmp/probe.txt"
	"$SCORCH" collapse perf "$cp_tmp/probe.txt" >"$cp_tmp/probe.out" 2>/dev/null &&
		[ "$(cat "$cp_tmp/probe.out")" = "xx;f 1" ]
}

# cp_case NAME EXPECTED ARGS...: run scorch collapse ARGS, compare bytes.
cp_case() {
	_n=$1 _e=$2
	shift 2
	if [ ! -f "$_e" ]; then
		not_ok "$_n" "missing expected file $_e"
		return
	fi
	"$SCORCH" collapse "$@" >"$cp_tmp/out" 2>"$cp_tmp/err"
	_rc=$?
	if [ $_rc != 0 ]; then
		not_ok "$_n" "exit $_rc" "$(head -3 "$cp_tmp/err")"
	elif cmp -s "$_e" "$cp_tmp/out"; then
		ok "$_n"
	else
		not_ok "$_n" "output differs from $_e"
		diff "$_e" "$cp_tmp/out" | head -6 | sed 's/^/#   /'
	fi
}

# The inferno MANIFEST's exact / strip-quotes modes (tests/lib.sh).
cp_inferno_cmp() { # out expected mode
	manifest_compare "$1" "$2" "$3" "$cp_tmp/icmp"
}

cp_flamegraph_manifest() {
	while read -r expected flag input status rest; do
		case "$expected" in test/results/*) ;; *) continue ;; esac
		name="conformance/flamegraph/$(basename "$expected" .txt)"
		exp=$cp_fg/$expected
		case "$status" in
		STALE*)
			exp=$cp_fg/generated-by-head/collapse/$(basename "$expected" .txt).HEAD.txt
			name="$name (HEAD)" ;;
		esac
		cp_case "$name" "$exp" perf "$flag" "$cp_fg/$input"
	done <"$cp_fg/MANIFEST.txt"
}

cp_flamegraph_default() {
	for exp in "$cp_fg"/generated-by-head/collapse/perf-*-collapsed-default.txt; do
		b=$(basename "$exp" -collapsed-default.txt)
		cp_case "conformance/flamegraph/$b-collapsed-default" "$exp" perf "$cp_fg/test/$b.txt"
	done
	# gzip input is read directly (input_load decompresses by magic).
	g=$cp_fg/generated-by-head/collapse
	cp_case "conformance/flamegraph/example-perf-stacks-collapsed-default" \
		"$g/example-perf-stacks-collapsed-default.txt" perf "$cp_fg/example-perf-stacks.txt.gz"
	cp_case "conformance/flamegraph/example-perf-stacks-collapsed-all" \
		"$g/example-perf-stacks-collapsed-all.txt" perf --all "$cp_fg/example-perf-stacks.txt.gz"
}

# How an inferno expectation relates to stackcollapse-perf.pl's output:
#   ""            it is the script's output: compare as the MANIFEST says;
#   "eof"         inferno (like FlameGraph before 2020) also folds a last
#                 sample that has no blank line after it, which the script
#                 drops: compare against the input plus one blank line;
#   "strip-j"     inferno's jitdump (/tmp/jitted-*.so) _[j] annotation,
#                 which the script does not have, is removed from the
#                 expectation;
#   "strip-k"     the same for inferno's _[k] on versioned vmlinux-X.Y
#                 modules (the script wants a module ending in "vmlinux");
#   "skip:WHY"    not comparable.
cp_inferno_relation() { # id input expected
	case "$1" in
	perf/rust-dcpu/*)
		echo "skip:inferno's own output, which repairs partly demangled Rust symbols (.. -> ::, \$LT\$ -> <, drops ::h<hash>); stackcollapse-perf.pl keeps them, checked by conformance/flamegraph/perf-rust-Yamakaky-dcpu-*"
		return ;;
	perf/skip-after-*)
		echo "skip:--skip-after is an inferno-only option; stackcollapse-perf.pl has no equivalent"
		return ;;
	perf/single-event)
		echo "skip:inferno's own output repairs a partly demangled Rust symbol (GcBox\$LT\$T\$GT\$::new::_\$u7b\$... -> GcBox<T>::new::_{{closure}}); stackcollapse-perf.pl keeps it as printed"
		return ;;
	perf/single-line-stacks)
		echo "skip:the samples' event lines are indented and carry the frame on the same line; inferno parses them, stackcollapse-perf.pl reads each as a frame line without a sample and outputs nothing (scorch: the same, with a warning naming the line)"
		return ;;
	esac
	case "$2" in gz:*|*" "*) return ;; esac
	case "$1" in
	perf/upstream/*|perf/cli-all*)
		# Expected files from FlameGraph@57207af; the reference is 41fee1f.
		b=$(basename "$3")
		if grep "^test/results/$b " "$cp_fg/MANIFEST.txt" | grep -q STALE; then
			echo "skip:expected file is FlameGraph@57207af's; at the reference snapshot 41fee1f the script strips Java 'L' prefixes with --pid/--tid too (STALE in the FlameGraph MANIFEST) and drops an unterminated last sample; checked against 41fee1f by conformance/flamegraph/${b%.txt} (HEAD)"
			return
		fi ;;
	esac
	rel=
	if [ -n "$(tail -c 1 "$cp_inf/$2")" ] || [ "$(tail -c 2 "$cp_inf/$2" | od -An -c | tr -d ' ')" != '\n\n' ]; then
		rel=eof
	fi
	case "$1" in
	perf/sourcepawn-jitdump/*) rel="$rel strip-j" ;;
	perf/versioned-vmlinux/*) rel="$rel strip-k" ;;
	esac
	echo $rel
}

cp_inferno_manifest() {
	while IFS= read -r rec; do
		case "$rec" in '#'*|'') continue ;; esac
		f1=${rec%% | *}; r=${rec#* | }
		f2=${r%% | *}; r=${r#* | }
		f3=${r%% | *}; r=${r#* | }
		f4=${r%% | *}; r=${r#* | }
		f5=${r%% | *}; f6=${r#* | }
		[ "$f2" = inferno-collapse-perf ] || continue
		id=${f1%% *}
		name="conformance/inferno/$id"
		args=
		for a in $f3; do
			case "$a" in -|--nthreads|[0-9]*) ;; *) args="$args $a" ;; esac
		done
		rel=$(cp_inferno_relation "$id" "$f4" "$f5")
		case "$rel" in
		skip:*)
			skip "$name" "known difference: ${rel#skip:}"
			continue ;;
		esac
		case "$f4" in
		*" "*) input= ;;
		gz:*)
			if ! gzip -dc "$cp_inf/${f4#gz:}" >"$cp_tmp/in"; then
				not_ok "$name" "cannot unpack $cp_inf/${f4#gz:}"
				continue
			fi
			input=$cp_tmp/in ;;
		*) input=$cp_inf/$f4 ;;
		esac
		expected=$cp_inf/$f5
		case " $rel " in
		*" eof "*)
			# Terminate the last sample as inferno does.
			{ cat "$input"; echo; } >"$cp_tmp/in-eof"
			input=$cp_tmp/in-eof
			name="$name (input + final blank line)" ;;
		esac
		case " $rel " in
		*" strip-j "*|*" strip-k "*)
			a=j; case " $rel " in *" strip-k "*) a=k ;; esac
			sed "s/_\\[$a\\]//g" "$expected" >"$cp_tmp/exp-strip"
			expected=$cp_tmp/exp-strip
			name="$name (expected without inferno-only _[$a])" ;;
		esac
		case "$f6" in
		exact|strip-quotes)
			# shellcheck disable=SC2086
			"$SCORCH" collapse perf $args "$input" >"$cp_tmp/out" 2>"$cp_tmp/err"
			rc=$?
			if [ $rc != 0 ]; then
				not_ok "$name" "exit $rc" "$(head -3 "$cp_tmp/err")"
			elif ! cp_inferno_cmp "$cp_tmp/out" "$expected" "$f6"; then
				not_ok "$name" "output differs from $f5"
				diff "$cp_tmp/iexp" "$cp_tmp/iact" | head -6 | sed 's/^/#   /'
			else
				case "$id" in
				*"[cli]"*)
					# shellcheck disable=SC2086
					"$SCORCH" collapse perf $args <"$input" >"$cp_tmp/out2" 2>/dev/null
					if cmp -s "$cp_tmp/out" "$cp_tmp/out2"; then ok "$name"
					else not_ok "$name" "stdin output differs from file output"; fi ;;
				*) ok "$name" ;;
				esac
			fi ;;
		log:WARN:*)
			# inferno logs one "Weird ... line" warning; scorch reports the
			# line once with file:line and still exits 0.
			"$SCORCH" collapse perf "$input" >"$cp_tmp/out" 2>"$cp_tmp/err"
			rc=$?
			nwarn=$(grep -c "warning: .*:[0-9][0-9]*: " "$cp_tmp/err")
			if [ $rc = 0 ] && [ "$nwarn" = 1 ]; then
				ok "$name"
			else
				not_ok "$name" "exit $rc, $nwarn file:line warnings (want 1)" "$(head -3 "$cp_tmp/err")"
			fi ;;
		rule:*)
			case "$id" in
			perf/multithread-equivalence)
				bad=
				gzip -dc "$cp_inf/flamegraph/example-perf-stacks.txt.gz" >"$cp_tmp/ex.txt" ||
					bad="$bad example-perf-stacks.txt.gz:unreadable"
				for f in "$cp_tmp/ex.txt" "$cp_inf"/flamegraph/test/*.txt \
					"$cp_inf"/tests/data/collapse-perf/empty-line.txt \
					"$cp_inf"/tests/data/collapse-perf/go-stacks.txt \
					"$cp_inf"/tests/data/collapse-perf/java-inline.txt \
					"$cp_inf"/tests/data/collapse-perf/weird-stack-line.txt \
					"$cp_inf"/tests/data/collapse-perf/cpp-stacks-std-function.txt; do
					"$SCORCH" collapse perf -j 1 "$f" >"$cp_tmp/t1" 2>/dev/null
					[ -s "$cp_tmp/t1" ] || bad="$bad $(basename "$f"):no-output"
					for n in 2 3 7 16; do
						"$SCORCH" collapse perf -j $n "$f" >"$cp_tmp/tn" 2>/dev/null
						cmp -s "$cp_tmp/t1" "$cp_tmp/tn" || bad="$bad $(basename "$f"):$n"
					done
				done
				if [ -z "$bad" ]; then ok "$name"; else not_ok "$name" "differs:$bad"; fi ;;
			*) not_ok "$name" "unknown rule" ;;
			esac ;;
		*) not_ok "$name" "unknown compare mode '$f6'" ;;
		esac
	done <"$cp_inf/MANIFEST.txt"
}

# Real captures: refs/<input>.<variant>.folded.xz.
cp_bench_refs() {
	corpus=$CORPUS
	if [ -n "${SCORCH_SANITIZED:-}" ]; then
		inputs="c-kernel f1-cpuclock-F997 f2-two-events"
	else
		inputs="a-fp-mt a-fp-mt-pidfmt b-sys-gcc c-kernel e-cxx-dwarf f1-cpuclock-F997 f2-two-events"
	fi
	for f in $inputs; do
		if [ ! -f "$corpus/$f.perf.txt.xz" ]; then
			not_ok "conformance/corpus/$f" "missing $corpus/$f.perf.txt.xz"
			continue
		fi
		# scorch reads .xz itself; the reference is unpacked for cmp.
		for ref in "$corpus"/refs/"$f".*.folded.xz; do
			v=${ref#"$corpus/refs/$f."}
			v=${v%.folded.xz}
			case "$v" in
			default) opt= ;;
			ev-*) opt=--event-filter=${v#ev-} ;;
			*) opt=--$v ;;
			esac
			xz -dc "$ref" >"$cp_tmp/ref"
			# shellcheck disable=SC2086
			cp_case "conformance/corpus/$f.$v" "$cp_tmp/ref" perf $opt "$corpus/$f.perf.txt.xz"
		done
		if [ "$f" = a-fp-mt ] || [ "$f" = c-kernel ]; then
			# From a plain file: mapped, parsed pages dropped as it goes
			# (a-fp-mt is 46 MB, several drop windows).
			xz -dc "$corpus/$f.perf.txt.xz" >"$cp_tmp/plain.txt"
			xz -dc "$corpus/refs/$f.tid.folded.xz" >"$cp_tmp/ref"
			cp_case "conformance/corpus/$f.tid (mapped file, 2 threads)" "$cp_tmp/ref" perf --tid -j 2 "$cp_tmp/plain.txt"
			rm -f "$cp_tmp/plain.txt"
		fi
		if [ "$f" = f2-two-events ]; then
			"$SCORCH" collapse perf "$corpus/$f.perf.txt.xz" >/dev/null 2>"$cp_tmp/err"
			expect_grep "conformance/corpus/$f default filter is reported" \
				"keeping only the first seen, 'page-faults'.*'cpu-clock'" "$cp_tmp/err"
		fi
	done
}

# The same output for any thread count, on real captures.
cp_threads() {
	corpus=$CORPUS
	for f in c-kernel f2-two-events; do
		xz -dc "$corpus/$f.perf.txt.xz" >"$cp_tmp/cap.txt"
		"$SCORCH" collapse perf --tid -j 1 "$cp_tmp/cap.txt" >"$cp_tmp/t1" 2>/dev/null
		bad=
		for n in 2 3 7; do
			"$SCORCH" collapse perf --tid -j $n "$cp_tmp/cap.txt" >"$cp_tmp/tn" 2>/dev/null
			cmp -s "$cp_tmp/t1" "$cp_tmp/tn" || bad="$bad $n"
		done
		if [ -z "$bad" ] && [ -s "$cp_tmp/t1" ]; then
			ok "conformance/corpus/$f threads 1,2,3,7 identical"
		else
			not_ok "conformance/corpus/$f threads 1,2,3,7 identical" "differs at:$bad"
		fi
	done
}

cp_general_path() {
	corpus=$CORPUS
	for f in "$cp_fg/test/perf-vertx-stacks-01.txt" "$cp_fg/test/perf-cycles-instructions-01.txt" \
		"$corpus/c-kernel.perf.txt.xz"; do
		name="conformance/fast-vs-general/$(basename "$f")"
		case "$f" in
		*.xz) xz -dc "$f" >"$cp_tmp/g.txt" ;;
		*) cp "$f" "$cp_tmp/g.txt" ;;
		esac
		awk '{ print; print "!" }' "$cp_tmp/g.txt" >"$cp_tmp/g-bang.txt"
		"$SCORCH" collapse perf --all "$cp_tmp/g.txt" >"$cp_tmp/g1" 2>/dev/null
		"$SCORCH" collapse perf --all "$cp_tmp/g-bang.txt" >"$cp_tmp/g2" 2>"$cp_tmp/gerr"
		if [ ! -s "$cp_tmp/g1" ]; then
			not_ok "$name" "no output"
		elif ! grep -q 'unrecognized perf script lines skipped' "$cp_tmp/gerr"; then
			not_ok "$name" "the ! lines were not reported"
		elif cmp -s "$cp_tmp/g1" "$cp_tmp/g2"; then
			ok "$name"
		else
			not_ok "$name" "outputs differ"
			diff "$cp_tmp/g1" "$cp_tmp/g2" | head -4 | sed 's/^/#   /'
		fi
	done
	rm -f "$cp_tmp/g.txt" "$cp_tmp/g-bang.txt"
}

cp_detect() {
	corpus=$CORPUS
	set -- "$cp_fg"/test/*.txt "$cp_fg/example-perf-stacks.txt.gz" \
		"$cp_inf"/tests/data/collapse-perf/*.txt
	if [ -n "${SCORCH_SANITIZED:-}" ]; then
		set -- "$@" "$corpus/c-kernel.perf.txt.xz" "$corpus/f2-two-events.perf.txt.xz"
	else
		set -- "$@" "$corpus"/*.perf.txt.xz
	fi
	for f in "$@"; do
		name="conformance/detect/$(basename "$f")"
		"$SCORCH" collapse "$f" >"$cp_tmp/d1" 2>"$cp_tmp/derr"
		rc=$?
		"$SCORCH" collapse perf "$f" >"$cp_tmp/d2" 2>/dev/null
		if [ ! -s "$cp_tmp/d2" ] && [ -s "$f" ]; then
			# nothing folds (as the script): detection says so
			if [ $rc = 1 ] && grep -q "no stacks found" "$cp_tmp/derr"; then
				ok "$name (no stacks: an error)"
			else
				not_ok "$name" "exit $rc on input that folds to nothing" "$(head -2 "$cp_tmp/derr")"
			fi
		elif [ $rc != 0 ]; then
			not_ok "$name" "exit $rc" "$(head -2 "$cp_tmp/derr")"
		elif cmp -s "$cp_tmp/d1" "$cp_tmp/d2"; then
			ok "$name"
		else
			not_ok "$name" "detected output differs from 'collapse perf'"
		fi
	done
}

if ! cp_ready; then
	not_ok "conformance/collapse-perf" "scorch collapse perf does not work in this build"
else
	cp_flamegraph_manifest
	cp_flamegraph_default
	cp_inferno_manifest
	cp_bench_refs
	cp_threads
	cp_general_path
	cp_detect
fi
