# scripts/check-cycles: calls between object files go one way. First the
# script itself, on small objects built here with known dependencies (a
# cycle of two, one of three beside a file that only calls in, a one-way
# chain, a known exception), then the tree's own objects ($BUILD/obj):
# calls go one way (STYLE.md), which tests/run checks through this file.
. "${0%/*}/../lib.sh"
cy=$TMPDIR/cycles
mkdir -p "$cy"

# cy_objs DIR NAME:CALLS...: DIR/NAME.o defining NAME() and calling each of
# CALLS (comma-separated; '-' for none).
cy_objs() {
	_d=$1
	shift
	mkdir -p "$_d"
	for _spec in "$@"; do
		_n=${_spec%%:*} _calls=${_spec#*:}
		{
			[ "$_calls" = - ] || for _c in $(echo "$_calls" | tr , ' '); do echo "void $_c(void);"; done
			echo "void $_n(void);"
			echo "void $_n(void) {"
			[ "$_calls" = - ] || for _c in $(echo "$_calls" | tr , ' '); do echo "	$_c();"; done
			echo "}"
		} >"$_d/$_n.c"
		cc -c -o "$_d/$_n.o" "$_d/$_n.c" 2>>"$cy/cc.err" || return 1
	done
}

if ! command -v cc >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	not_ok "check-cycles: needs cc and nm (build-essential, binutils)"
elif ! cy_objs "$cy/two/obj/x" a:b b:a top:a ||
	! cy_objs "$cy/three/obj/y" p:q q:r r:p s:p,q ||
	! cy_objs "$cy/chain/obj/z" u:v v:w w:- ||
	! cy_objs "$cy/known/obj/x" a:b b:a; then
	not_ok "check-cycles: build the test objects" "$(head -5 "$cy/cc.err")"
else
	scripts/check-cycles "$cy/two/obj" >"$cy/two.out" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -qx 'cycle of 2 files: src/x/a.c src/x/b.c' "$cy/two.out" &&
		grep -qx '  src/x/a.c -> src/x/b.c -> src/x/a.c' "$cy/two.out" && ! grep -q top "$cy/two.out"; then
		ok "check-cycles: a cycle of two objects fails, printed with its path"
	else
		not_ok "check-cycles: a cycle of two objects fails" "exit $rc" "$(cat "$cy/two.out")"
	fi
	scripts/check-cycles "$cy/three/obj" >"$cy/three.out" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -qx 'cycle of 3 files: src/y/p.c src/y/q.c src/y/r.c' "$cy/three.out" &&
		grep -qx '  src/y/p.c -> src/y/q.c -> src/y/r.c -> src/y/p.c' "$cy/three.out"; then
		ok "check-cycles: a cycle of three fails, without the file that only calls into it"
	else
		not_ok "check-cycles: a cycle of three" "exit $rc" "$(cat "$cy/three.out")"
	fi
	scripts/check-cycles "$cy/chain/obj" >"$cy/chain.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -qx 'check-cycles: no cycle between 3 object files' "$cy/chain.out"; then
		ok "check-cycles: calls one way pass"
	else
		not_ok "check-cycles: calls one way pass" "exit $rc" "$(cat "$cy/chain.out")"
	fi
	printf '# being removed\nsrc/x/a.c src/x/b.c src/x/c.c\n' >"$cy/known.txt"
	scripts/check-cycles -k "$cy/known.txt" "$cy/known/obj" >"$cy/known.out" 2>&1
	rc=$?
	printf 'src/x/a.c src/x/c.c\n' >"$cy/other.txt"
	scripts/check-cycles -k "$cy/other.txt" "$cy/known/obj" >"$cy/other.out" 2>&1
	rc2=$?
	if [ "$rc" = 0 ] && grep -q '^known cycle (exception, being removed) of 2 files: src/x/a.c src/x/b.c$' "$cy/known.out" &&
		[ "$rc2" = 1 ] && grep -qx 'cycle of 2 files: src/x/a.c src/x/b.c' "$cy/other.out"; then
		ok "check-cycles: a known cycle is printed as an exception; one not wholly listed fails"
	else
		not_ok "check-cycles: known cycles" "exit $rc, then $rc2" "$(cat "$cy/known.out" "$cy/other.out")"
	fi
fi

# The tree: no cycle between the objects make built from src/.
if [ ! -d "$BUILD/obj" ]; then
	not_ok "check-cycles: no cycle between the objects of src/" "no $BUILD/obj (make)"
elif scripts/check-cycles -s "$BUILD/obj" >"$cy/tree.out" 2>&1; then
	ok "check-cycles: no cycle between the objects of src/ ($(sed -n 's/.*between \([0-9]*\) object files.*/\1/p' "$cy/tree.out") files)"
else
	not_ok "check-cycles: no cycle between the objects of src/" "$(cat "$cy/tree.out")"
fi
