# Golden tests of the text collapsers: tests/golden/collapse-<format>/ holds
# inputs and what `scorch collapse <format>` must do with them. Sourced by
# tests/golden/run (lib.sh already loaded). Each directory's README says
# where its inputs come from and how the expectations were derived.
#
# For each CASE.in:
#   CASE.args  extra options (one line, split on spaces), optional
#   CASE.out   expected stdout, exit 0
#   CASE.warn  exit 0 and stderr contains this text and "INPUT:LINE:"
#   CASE.err   exit non-zero, stdout empty, stderr contains this text and
#              "INPUT:LINE:"
# The format is the directory name after "collapse-"; a case whose name
# starts with "detect-" runs without a format name and must give CASE.out.

cg_dir=$(dirname "$0")
cg_tmp=$TMPDIR/collapse-golden
mkdir -p "$cg_tmp"

cg_ready() {
	printf 'a;b 1\n' >"$cg_tmp/probe"
	"$SCORCH" collapse folded "$cg_tmp/probe" >"$cg_tmp/probe.out" 2>/dev/null &&
		[ "$(cat "$cg_tmp/probe.out")" = "a;b 1" ]
}

cg_case() { # format dir case
	fmt=$1 dir=$2 c=$3
	in=$dir/$c.in
	name="golden/collapse-$fmt/$c"
	args=
	[ -f "$dir/$c.args" ] && args=$(cat "$dir/$c.args")
	case "$c" in
	detect-*) set -- collapse $args "$in" ;;
	*) set -- collapse "$fmt" $args "$in" ;;
	esac
	"$SCORCH" "$@" >"$cg_tmp/out" 2>"$cg_tmp/err"
	rc=$?
	if [ -f "$dir/$c.err" ]; then
		want=$(cat "$dir/$c.err")
		if [ $rc = 0 ]; then
			not_ok "$name" "exit 0, expected an error '$want'"
		elif [ -s "$cg_tmp/out" ]; then
			not_ok "$name" "error exit but output written"
		elif ! grep -qF -- "$want" "$cg_tmp/err"; then
			not_ok "$name" "stderr lacks '$want':" "$(head -3 "$cg_tmp/err")"
		elif ! grep -q -- "$in:[0-9][0-9]*:" "$cg_tmp/err"; then
			not_ok "$name" "error does not name $in:LINE:" "$(head -3 "$cg_tmp/err")"
		else
			ok "$name"
		fi
		return
	fi
	if [ $rc != 0 ]; then
		not_ok "$name" "exit $rc" "$(head -3 "$cg_tmp/err")"
		return
	fi
	if [ -f "$dir/$c.warn" ]; then
		want=$(cat "$dir/$c.warn")
		if ! grep -qF -- "$want" "$cg_tmp/err" || ! grep -q -- "$in:[0-9][0-9]*:" "$cg_tmp/err"; then
			not_ok "$name" "stderr lacks '$want' at $in:LINE:" "$(head -3 "$cg_tmp/err")"
			return
		fi
	elif [ -s "$cg_tmp/err" ]; then
		not_ok "$name" "unexpected messages:" "$(head -3 "$cg_tmp/err")"
		return
	fi
	if [ -f "$dir/$c.out" ]; then
		test_cmp "$name" "$dir/$c.out" "$cg_tmp/out"
	else
		ok "$name"
	fi
}

if ! cg_ready; then
	skip "golden/collapse-* (text formats)" "scorch collapse FORMAT FILE does not work in this build yet"
else
	for dir in "$cg_dir"/collapse-*/; do
		dir=${dir%/}
		fmt=${dir##*/collapse-}
		[ -f "$dir/README" ] || continue
		grep -q '^owner: cx' "$dir/README" || continue # other helpers' dirs run their own way
		for f in "$dir"/*.in; do
			[ -f "$f" ] || continue
			c=$(basename "$f" .in)
			cg_case "$fmt" "$dir" "$c"
		done
	done
fi
