# Shared helpers for the shell test suites, sourced first by every test
# file (through its suite's lib.sh where it has one). Each file prints one
# TAP-style line per test ("ok - NAME", "not ok - NAME", "ok - NAME # SKIP
# why"); the top-level tests/run counts them. tests/README.md says more.
#
# Environment (set by tests/run and tests/run-suite; the defaults work from
# the repository root):
#   SCORCH       the binary under test   BUILD   its build directory
#   TMPDIR       this file's scratch directory
#   TEST_SHARED  a scratch directory kept for every file of a suite's run
#   CONFORMANCE  FlameGraph's and inferno's test data, unpacked from
#                tests/data/conformance.tar.xz (flamegraph/, inferno/)
#   CORPUS       real perf captures and their references (tests/data/corpus)
# Every file a test reads is in the repository (tests/data/README.md).

: "${SCORCH:=$PWD/scorch}" # absolute: some tests cd elsewhere
: "${BUILD:=build}"
: "${TMPDIR:=/tmp}"
: "${TEST_SHARED:=$TMPDIR/shared}"
: "${CORPUS:=tests/data/corpus}"
if [ -z "${CONFORMANCE:-}" ] && ! CONFORMANCE=$(tests/data/unpack "$BUILD/test-data"); then
	printf 'not ok - unpack tests/data/conformance.tar.xz (needs tar and xz)\n'
	exit 1
fi

ok() { printf 'ok - %s\n' "$1"; }
not_ok() {
	printf 'not ok - %s\n' "$1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/#   /'
	return 0
}
skip() { printf 'ok - %s # SKIP %s\n' "$1" "$2"; }
# skip_or_fail NAME WHY: a test that cannot run. WHY from a probe starts
# with "fail: " when what is missing is a component scorch needs and
# scripts/setup installs (perf, a compiler, a tool, a library): the test
# fails. Any other WHY is something this machine lacks by design (no
# perf_event_open permission, no BPF, not root): the test is skipped.
skip_or_fail() {
	case $2 in
	"fail: "*) not_ok "$1" "${2#fail: }" ;;
	*) skip "$1" "$2" ;;
	esac
}

# test_cmp NAME EXPECTED ACTUAL: pass when the files are byte-identical,
# else print the first lines of the diff.
test_cmp() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" 2>&1 | head -20 | sed 's/^/#   /'
	fi
}

# missing_lines WANT ACTUAL [IN]: print each line of file WANT that no line
# of file ACTUAL contains (fixed strings), "$IN" in WANT standing for IN.
missing_lines() {
	while IFS= read -r _line; do
		_text= _rest=$_line
		while :; do
			case "$_rest" in
			*'$IN'*) _text=$_text${_rest%%'$IN'*}${3:-} _rest=${_rest#*'$IN'} ;;
			*) break ;;
			esac
		done
		_text=$_text$_rest
		grep -qF -- "$_text" "$2" || printf '%s\n' "$_text"
	done <"$1"
}

# expect_exit NAME CODE CMD...: run CMD, pass when it exits with CODE.
expect_exit() {
	_name=$1 _want=$2
	shift 2
	"$@" >"$TMPDIR/out" 2>"$TMPDIR/err"
	_got=$?
	if [ "$_got" = "$_want" ]; then
		ok "$_name"
	else
		not_ok "$_name" "exit $_got, expected $_want" "$(head -5 "$TMPDIR/err")"
	fi
}

# expect_grep NAME PATTERN FILE: pass when FILE has a line matching PATTERN.
expect_grep() {
	if grep -q -e "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "no line matching '$2' in $3:" "$(head -5 "$3")"
	fi
}

# manifest_compare OUT EXPECTED MODE SCRATCH [drop-zero]: the inferno
# MANIFEST's "exact" and "strip-quotes" modes. Expected lines lose trailing
# whitespace; strip-quotes deletes ' and " from the output; drop-zero removes
# zero-count lines from the expectation (a listed known difference).
manifest_compare() {
	awk '{ sub(/[ \t\r\f\v]+$/, ""); print }' "$2" >"$4.exp"
	[ "${5:-}" = drop-zero ] && { grep -v ' 0$' "$4.exp" >"$4.exp2"; mv "$4.exp2" "$4.exp"; }
	if [ "$3" = strip-quotes ]; then
		tr -d "'\"" <"$1" >"$4.act"
	else
		cp "$1" "$4.act"
	fi
	cmp -s "$4.exp" "$4.act"
}
