# Golden tests of `scorch collapse perf`: tests/golden/collapse-perf/ (see
# its README). Sourced by tests/golden/run (lib.sh already loaded).
gp_dir=$(dirname "$0")/collapse-perf
gp_tmp=$TMPDIR/collapse-perf-golden
mkdir -p "$gp_tmp"

gp_expect_lines() { # file-with-lines input stderr -> prints missing lines
	while IFS= read -r want; do
		want=$(printf '%s' "$want" | sed "s|@IN@|$2|g")
		grep -qF -- "$want" "$3" || printf '%s\n' "$want"
	done <"$1"
}

gp_case() { # case
	c=$1 in=$gp_dir/$1.in
	name="golden/collapse-perf/$c"
	args=
	[ -f "$gp_dir/$c.args" ] && args=$(cat "$gp_dir/$c.args")
	case "$c" in
	# shellcheck disable=SC2086
	detect-*) "$SCORCH" collapse $args "$in" >"$gp_tmp/out" 2>"$gp_tmp/err" ;;
	# shellcheck disable=SC2086
	*) "$SCORCH" collapse perf $args "$in" >"$gp_tmp/out" 2>"$gp_tmp/err" ;;
	esac
	rc=$?
	if [ -f "$gp_dir/$c.err" ]; then
		missing=$(gp_expect_lines "$gp_dir/$c.err" "$in" "$gp_tmp/err")
		if [ $rc != 1 ]; then
			not_ok "$name" "exit $rc, expected 1" "$(head -3 "$gp_tmp/err")"
		elif [ -s "$gp_tmp/out" ]; then
			not_ok "$name" "error exit but output written"
		elif [ -n "$missing" ]; then
			not_ok "$name" "stderr lacks:" "$missing" "stderr:" "$(head -5 "$gp_tmp/err")"
		else
			ok "$name"
		fi
		return
	fi
	if [ $rc != 0 ]; then
		not_ok "$name" "exit $rc" "$(head -3 "$gp_tmp/err")"
		return
	fi
	if [ -f "$gp_dir/$c.warn" ]; then
		missing=$(gp_expect_lines "$gp_dir/$c.warn" "$in" "$gp_tmp/err")
		if [ -n "$missing" ]; then
			not_ok "$name" "stderr lacks:" "$missing" "stderr:" "$(head -5 "$gp_tmp/err")"
			return
		fi
	elif [ -s "$gp_tmp/err" ]; then
		not_ok "$name" "unexpected messages:" "$(head -3 "$gp_tmp/err")"
		return
	fi
	test_cmp "$name" "$gp_dir/$c.out" "$gp_tmp/out"
}

for f in "$gp_dir"/*.in; do
	[ -f "$f" ] || continue
	gp_case "$(basename "$f" .in)"
done
