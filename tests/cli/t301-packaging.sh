# Packaging: the version, `help help` and `help version`, `make install`
# with PREFIX and DESTDIR, and manual pages that say what the help says.
. "${0%/*}/../lib.sh"

# The version: the release in the Makefile plus, from a git checkout, the
# commit built (git describe), the same for --version, -V and version.
pk=$TMPDIR/packaging
mkdir -p "$pk"
"$SCORCH" --version >"$pk/v1" 2>&1
"$SCORCH" -V >"$pk/v2" 2>&1
"$SCORCH" version >"$pk/v3" 2>&1
test_cmp "version/-V prints what --version prints" "$pk/v1" "$pk/v2"
test_cmp "version/'scorch version' prints what --version prints" "$pk/v1" "$pk/v3"
pk_release=$(sed -n 's/^RELEASE *:= *//p' Makefile)
pk_first=$(head -n 1 "$pk/v1")
if ! printf '%s\n' "$pk_release" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
	not_ok "version/the Makefile's RELEASE is MAJOR.MINOR.PATCH" "RELEASE is '$pk_release'"
elif ! printf '%s\n' "$pk_first" | grep -Eq '^scorch [0-9]+\.[0-9]+\.[0-9]+( \(git [0-9A-Za-z._-]+\))?$'; then
	not_ok "version/format 'scorch X.Y.Z (git DESCRIBE)'" "got '$pk_first'"
else
	case "$pk_first" in
	"scorch $pk_release" | "scorch $pk_release (git "*) ok "version/carries the Makefile's RELEASE" ;;
	*) not_ok "version/carries the release" "got '$pk_first', the Makefile says $pk_release" ;;
	esac
fi
if [ -e .git ] && command -v git >/dev/null 2>&1 && git rev-parse HEAD >/dev/null 2>&1; then
	# git describe names the commit: TAG, TAG-N-gHASH or HASH, maybe -dirty.
	pk_desc=${pk_first#*(git }
	pk_desc=${pk_desc%)}
	pk_desc=${pk_desc%-dirty}
	case "$pk_desc" in *-g*) pk_desc=${pk_desc##*-g} ;; esac
	if [ "$pk_desc" != "$pk_first" ] &&
		[ "$(git rev-parse -q --verify "$pk_desc^{commit}")" = "$(git rev-parse HEAD)" ]; then
		ok "version/the git describe names the commit checked out"
	else
		not_ok "version/the git describe names the commit checked out" "'$pk_first', HEAD is $(git rev-parse --short HEAD)"
	fi
else
	# a source tarball is no git checkout, by design
	skip "version/the git describe names the commit checked out" "not a git checkout"
fi

# `help` knows every command it lists, help and version included.
expect_exit "help/help help exits 0" 0 "$SCORCH" help help
expect_grep "help/help help prints its usage" "^usage: scorch help \[COMMAND\]" "$TMPDIR/out"
expect_exit "help/help version exits 0" 0 "$SCORCH" help version
expect_grep "help/help version prints its usage" "^usage: scorch version" "$TMPDIR/out"
"$SCORCH" help >"$pk/overview"
pk_commands=$(awk '/^commands:/ { on = 1; next } on && /^$/ { on = 0 } on { print $1 }' "$pk/overview")
pk_bad=
for c in $pk_commands; do
	"$SCORCH" help "$c" >"$pk/h" 2>&1 && grep -q "^usage: scorch $c" "$pk/h" || pk_bad="$pk_bad $c"
done
if [ -n "$pk_commands" ] && [ -z "$pk_bad" ]; then
	ok "help/every listed command has help ($(echo $pk_commands))"
else
	not_ok "help/every listed command has help" "no usage for:$pk_bad"
fi

# make install. -o keeps make from rebuilding the binary under test (the
# sanitizer pass builds with flags this make call does not repeat).
pk_bin=${SCORCH#"$(pwd)"/}
pk_make() { make -s --no-print-directory -o "$pk_bin" O="$BUILD" "$@" >"$pk/make.log" 2>&1; }
pk_dest=$TMPDIR/dest
if ! pk_make DESTDIR="$pk_dest" PREFIX=/opt/scorch install; then
	not_ok "install/make install DESTDIR PREFIX" "$(tail -5 "$pk/make.log")"
else
	ok "install/make install DESTDIR PREFIX"
	pk_root=$pk_dest/opt/scorch
	if [ -x "$pk_root/bin/scorch" ] && "$pk_root/bin/scorch" --version >"$pk/iv" 2>&1 &&
		cmp -s "$pk/iv" "$pk/v1"; then
		ok "install/PREFIX/bin/scorch is the binary built"
	else
		not_ok "install/PREFIX/bin/scorch is the binary built" "$(ls -l "$pk_root/bin" 2>&1)"
	fi
	pk_missing=
	for c in scorch $(printf 'scorch-%s ' $pk_commands); do
		case "$c" in scorch-help | scorch-version) continue ;; esac
		[ -f "$pk_root/share/man/man1/$c.1" ] || pk_missing="$pk_missing $c.1"
	done
	for f in README.md LICENSE; do
		[ -f "$pk_root/share/doc/scorch/$f" ] || pk_missing="$pk_missing doc/$f"
	done
	if [ -z "$pk_missing" ]; then
		ok "install/a manual page per command, README and LICENSE"
	else
		not_ok "install/a manual page per command, README and LICENSE" "missing:$pk_missing"
	fi
	pk_outside=$(find "$pk_dest" ! -type d | grep -v "^$pk_root/" | head -3)
	if [ -z "$pk_outside" ]; then
		ok "install/nothing outside DESTDIR/PREFIX"
	else
		not_ok "install/nothing outside DESTDIR/PREFIX" "$pk_outside"
	fi
	if command -v man >/dev/null 2>&1; then
		if MANPATH=$pk_root/share/man man -w scorch-report >"$pk/manw" 2>&1 &&
			grep -q "^$pk_root/share/man/man1/scorch-report.1" "$pk/manw"; then
			ok "install/man finds the pages under PREFIX/share/man"
		else
			not_ok "install/man finds the pages under PREFIX/share/man" "$(cat "$pk/manw")"
		fi
	fi
	if pk_make DESTDIR="$pk_dest" PREFIX=/opt/scorch uninstall &&
		[ -z "$(find "$pk_dest" ! -type d)" ]; then
		ok "install/make uninstall removes every file"
	else
		not_ok "install/make uninstall removes every file" "$(find "$pk_dest" ! -type d | head -3)"
	fi
fi
if pk_make DESTDIR="$TMPDIR/dest2" install && [ -x "$TMPDIR/dest2/usr/local/bin/scorch" ] &&
	[ -f "$TMPDIR/dest2/usr/local/share/man/man1/scorch.1" ]; then
	ok "install/PREFIX defaults to /usr/local"
else
	not_ok "install/PREFIX defaults to /usr/local" "$(tail -3 "$pk/make.log")" "$(find "$TMPDIR/dest2" -type f | head -3)"
fi

# The manual pages in step with the help texts: each page renders without
# a warning, and its synopsis and description are, word for word, the help
# text (scorch.1: `scorch help`; scorch-CMD.1: `scorch help CMD`), so a help
# text the page lost or garbled (roff eats a line starting with "." or "'")
# fails here.
pk_man=$TMPDIR/dest2/usr/local/share/man/man1
pk_words() { tr -d ':' | tr -s ' \t' '\n\n' | grep -v '^$'; }
if ! command -v groff >/dev/null 2>&1; then
	not_ok "man/pages match the help texts" "groff is not installed (scripts/setup installs groff-base)"
elif [ ! -f "$pk_man/scorch.1" ]; then
	not_ok "man/pages match the help texts" "no pages installed in $pk_man"
else
	for c in "" $pk_commands; do
		case "$c" in help | version) continue ;; esac
		page=$pk_man/scorch${c:+-$c}.1
		name=man/$(basename "$page")
		groff -man -Tutf8 -ww -z "$page" >"$pk/warn" 2>&1
		if [ -s "$pk/warn" ]; then
			not_ok "$name renders without warnings" "$(head -3 "$pk/warn")"
			continue
		fi
		# one line per paragraph (no wrapping, no hyphenation), plain text
		groff -man -Tutf8 -rLL=10000n -rHY=0 -P-cbou "$page" 2>/dev/null |
			awk '/^SYNOPSIS$/ { on = 1; next } /^SEE ALSO$/ { on = 0 } on && !/^DESCRIPTION$/' |
			pk_words >"$pk/page.words"
		# shellcheck disable=SC2086
		"$SCORCH" help $c | sed '1s/^usage: //' | pk_words >"$pk/help.words"
		if cmp -s "$pk/help.words" "$pk/page.words"; then
			ok "$name says what 'scorch help${c:+ $c}' says ($(wc -l <"$pk/help.words") words)"
		else
			not_ok "$name says what 'scorch help${c:+ $c}' says" \
				"$(diff "$pk/help.words" "$pk/page.words" | head -6)"
		fi
	done
fi
