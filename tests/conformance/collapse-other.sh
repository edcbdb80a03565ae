# Conformance of the non-perf collapsers against inferno's expected outputs
# ($CONFORMANCE/inferno/MANIFEST.txt) and FlameGraph's stackcollapse.pl
# result for the DTrace example: one TAP line per MANIFEST record.
#
# inferno-collapse-X runs as `scorch collapse X`; inferno-collapse-guess as
# `scorch collapse FILE` (format detection). Options keep inferno's
# meaning in scorch's spelling (--includeoffset -> --include-offsets,
# --time/--ticks/--bytes -> --ghcprof-column=C); --nthreads is dropped
# (scorch's output never depends on threads; the multithread rule uses -j).
# Compare modes are the MANIFEST's; deliberate differences are listed in
# tests/conformance/known-differences.txt and applied here where marked.
. "${0%/*}/../lib.sh"

cx_man=$CONFORMANCE/inferno/MANIFEST.txt
cx_root=$CONFORMANCE/inferno
cx_tmp=$TMPDIR/collapse-other
mkdir -p "$cx_tmp"

cx_cli_ready() {
	printf 'a;b 1\n' >"$cx_tmp/probe.folded"
	"$SCORCH" collapse folded "$cx_tmp/probe.folded" >"$cx_tmp/probe.out" 2>/dev/null &&
		[ "$(cat "$cx_tmp/probe.out")" = "a;b 1" ]
}

cx_has_format() {
	"$SCORCH" collapse --list 2>/dev/null | awk '{print $1}' | grep -qx "$1"
}

# The MANIFEST's compare modes (tests/lib.sh), with zero-count lines
# dropped from the expectation when cx_drop_zero is set (known difference).
cx_compare() { # out expected mode
	manifest_compare "$1" "$2" "$3" "$cx_tmp/cmp" ${cx_drop_zero:+drop-zero}
}

# dtrace/multithread-equivalence: output identical whatever the thread
# count.
cx_rule_threads() { # name
	if ! "$SCORCH" collapse dtrace --threads 2 "$cx_root/tests/data/collapse-dtrace/java.txt" \
		>/dev/null 2>&1; then
		not_ok "$1" "scorch collapse dtrace --threads 2 failed"
		return
	fi
	bad=
	for f in flamegraph/example-dtrace-stacks.txt tests/data/collapse-dtrace/flamegraph-bug.txt \
		tests/data/collapse-dtrace/hex-addresses.txt tests/data/collapse-dtrace/java.txt \
		tests/data/collapse-dtrace/only-header-lines.txt \
		tests/data/collapse-dtrace/scope_with_no_argument_list.txt; do
		"$SCORCH" collapse dtrace --threads 1 "$cx_root/$f" >"$cx_tmp/t1" 2>/dev/null
		"$SCORCH" collapse dtrace --threads 2 "$cx_root/$f" >"$cx_tmp/t2" 2>/dev/null
		cmp -s "$cx_tmp/t1" "$cx_tmp/t2" || bad="$bad $f"
	done
	if [ -z "$bad" ]; then ok "$1"; else not_ok "$1" "output depends on threads:$bad"; fi
}

cx_run_record() { # id tool args inputs expected compare
	id=$1 tool=$2 args=$3 inputs=$4 expected=$5 compare=$6
	name="conformance/inferno/$id"
	fmt=${tool#inferno-collapse-}
	cli=0
	case "$id" in *"[cli]"*) cli=1 ;; esac
	set -- collapse
	[ "$fmt" = guess ] || set -- "$@" "$fmt"
	for a in $args; do
		case "$a" in
		-|--nthreads|[0-9]*) ;;
		--includeoffset) set -- "$@" --include-offsets ;;
		--time|--ticks|--bytes) set -- "$@" "--ghcprof-column=${a#--}" ;;
		*) set -- "$@" "$a" ;;
		esac
	done
	if [ "$compare" = usage-error ] && [ "$fmt" = ghcprof ]; then
		# One option takes the column, so two cannot conflict; an unknown
		# column must still be refused (known-differences.txt).
		if "$SCORCH" collapse ghcprof --ghcprof-column=ticks-and-bytes "$cx_root/${inputs%% *}" \
			>/dev/null 2>&1; then
			not_ok "$name" "an unknown --ghcprof-column value was accepted"
		else
			ok "$name # (as: an unknown --ghcprof-column is refused)"
		fi
		return
	fi
	cx_drop_zero=
	if [ "$fmt" = ghcprof ]; then cx_drop_zero=1; fi
	case "$id" in
	guess/perf-*)
		if ! cx_has_format perf; then
			not_ok "$name" "scorch collapse --list has no perf format"
			return
		fi ;;
	esac
	case "$inputs" in
	inline:*)
		# dtrace/non-utf8: 100 valid stacks, one with invalid UTF-8, 100 more.
		: >"$cx_tmp/in"
		i=0; while [ $i -lt 100 ]; do printf 'genunix`cv_broadcast+0x1\n1\n\n' >>"$cx_tmp/in"; i=$((i+1)); done
		printf 'genunix`cv_broadcast+0x1\360\050\214\274\n1\n\n' >>"$cx_tmp/in"
		i=0; while [ $i -lt 100 ]; do printf 'genunix`cv_broadcast+0x1\n1\n\n' >>"$cx_tmp/in"; i=$((i+1)); done
		# The header is the first line up to the first blank line; make
		# the first stack the header as the reference test does.
		input=$cx_tmp/in ;;
	gz:*)
		if ! gzip -dc "$cx_root/${inputs#gz:}" >"$cx_tmp/in"; then
			not_ok "$name" "cannot unpack $cx_root/${inputs#gz:}"
			return
		fi
		input=$cx_tmp/in ;;
	*"{"*)
		input= ;; # multi-file rule record, handled below
	*)
		input=$cx_root/${inputs%% *} ;;
	esac

	case "$id" in
	dtrace/multithread*)
		cx_rule_threads "$name"
		return ;;
	esac
	"$SCORCH" "$@" "$input" >"$cx_tmp/out" 2>"$cx_tmp/err"
	rc=$?
	case "$compare" in
	exact|strip-quotes)
		if [ $rc != 0 ]; then
			not_ok "$name" "exit $rc" "$(head -3 "$cx_tmp/err")"
			return
		fi
		if [ "$fmt" = guess ] && [ "${expected#*collapse-perf/}" != "$expected" ] &&
			! cx_compare "$cx_tmp/out" "$cx_root/$expected" "$compare"; then
			# Detection is what this record tests here: the input must be
			# read as perf. Whether scorch's perf output (stackcollapse-
			# perf.pl's) equals inferno's is collapse-perf.sh's business,
			# with its known differences.
			"$SCORCH" collapse perf "$input" >"$cx_tmp/perf.out" 2>/dev/null
			if cmp -s "$cx_tmp/out" "$cx_tmp/perf.out"; then
				ok "$name (detected as perf; output = scorch collapse perf)"
			else
				not_ok "$name" "not read as perf: output differs from scorch collapse perf"
			fi
			return
		fi
		if ! cx_compare "$cx_tmp/out" "$cx_root/$expected" "$compare"; then
			not_ok "$name" "output differs from $expected"
			diff "$cx_tmp/exp" "$cx_tmp/act" | head -6 | sed 's/^/#   /'
			return
		fi
		if [ $cli = 1 ]; then
			"$SCORCH" "$@" <"$input" >"$cx_tmp/out2" 2>"$cx_tmp/err2"
			if ! cmp -s "$cx_tmp/out" "$cx_tmp/out2"; then
				not_ok "$name" "stdin output differs from file output"
				return
			fi
		fi
		ok "$name"
		# The same input without the format name: detection must choose
		# this format (recursive is a transformation, never detected).
		if [ "$fmt" != guess ] && [ "$fmt" != recursive ]; then
			shift 2
			"$SCORCH" collapse "$@" "$input" >"$cx_tmp/out3" 2>/dev/null
			if cmp -s "$cx_tmp/out" "$cx_tmp/out3"; then
				ok "$name (detected)"
			else
				not_ok "$name (detected)" "scorch collapse without a format name gives other output"
			fi
		fi ;;
	fail:*)
		text=${compare#fail:}
		if [ $rc = 0 ]; then
			not_ok "$name" "exit 0, expected a failure '$text'"
		elif ! grep -qiF -- "$text" "$cx_tmp/err"; then
			not_ok "$name" "error lacks '$text':" "$(head -3 "$cx_tmp/err")"
		elif ! grep -q ':[0-9][0-9]*: ' "$cx_tmp/err"; then
			not_ok "$name" "error does not name file and line:" "$(head -3 "$cx_tmp/err")"
		else
			ok "$name"
		fi ;;
	log:*)
		rest=${compare#log:}
		level=${rest%%:*}; rest=${rest#*:}
		n=${rest%%:*}; text=${rest#*:}
		text=${text%%   (*}
		got=$(grep -ciF -- "$text" "$cx_tmp/err")
		if [ "$level" = ERROR ] && [ "${id#guess/invalid-perf}" != "$id" ] && [ $rc = 0 ] &&
			"$SCORCH" collapse perf "$input" 2>/dev/null | cmp -s - "$cx_tmp/out"; then
			# Known difference: scorch's perf reads this input as
			# stackcollapse-perf.pl does (a sample with no frames, then
			# frames without an event line, reported); inferno's guess
			# refuses it.
			ok "$name (read as perf, as stackcollapse-perf.pl reads it)"
		elif [ "$level" = ERROR ]; then
			# No format claims the input: scorch reports it; stdout stays
			# empty (known difference: scorch exits non-zero).
			# The message is the CLI's own wording, so only its presence
			# is checked.
			if [ -s "$cx_tmp/err" ] && [ ! -s "$cx_tmp/out" ] && [ $rc != 0 ]; then
				ok "$name"
			else
				not_ok "$name" "exit $rc, $got messages '$text', stdout $(wc -c <"$cx_tmp/out") bytes"
			fi
		elif [ $rc = 0 ] && [ "$got" = "$n" ] && grep -q 'warning' "$cx_tmp/err"; then
			ok "$name"
		else
			not_ok "$name" "exit $rc, $got warnings '$text' (want $n):" "$(head -3 "$cx_tmp/err")"
		fi ;;
	usage-error)
		if [ $rc = 2 ]; then ok "$name"; else not_ok "$name" "exit $rc, expected a usage error (2)"; fi ;;
	rule:*)
		case "$id" in
		dtrace/non-utf8*)
			if [ $rc = 0 ] && grep -q '^genunix`cv_broadcast 200$' "$cx_tmp/out"; then
				ok "$name"
			else
				not_ok "$name" "exit $rc:" "$(head -3 "$cx_tmp/out")" "$(head -3 "$cx_tmp/err")"
			fi ;;
		*) not_ok "$name" "unknown rule" ;;
		esac ;;
	*) not_ok "$name" "unknown compare mode '$compare'" ;;
	esac
}

if ! cx_cli_ready; then
	not_ok "conformance/inferno collapse (non-perf)" "scorch collapse folded does not work in this build"
else
	while IFS= read -r rec; do
		case "$rec" in '#'*|'') continue ;; esac
		# Split on " | ".
		f1=${rec%% | *}; r=${rec#* | }
		f2=${r%% | *}; r=${r#* | }
		f3=${r%% | *}; r=${r#* | }
		f4=${r%% | *}; r=${r#* | }
		f5=${r%% | *}; f6=${r#* | }
		case "$f2" in
		inferno-collapse-perf|inferno-flamegraph*|inferno-diff-folded) continue ;;
		inferno-collapse-*) ;;
		*) continue ;;
		esac
		cx_run_record "$f1" "$f2" "$f3" "$f4" "$f5" "$f6"
	done <"$cx_man"

	# FlameGraph's own stackcollapse.pl output for its DTrace example.
	fg=$CONFORMANCE/flamegraph
	"$SCORCH" collapse dtrace "$fg/example-dtrace-stacks.txt" >"$cx_tmp/out" 2>"$cx_tmp/err"
	if cx_compare "$cx_tmp/out" "$fg/generated-by-head/collapse/example-dtrace-stacks-collapsed.txt" exact; then
		ok "conformance/flamegraph/stackcollapse.pl example-dtrace"
	else
		not_ok "conformance/flamegraph/stackcollapse.pl example-dtrace" "output differs"
	fi
fi
