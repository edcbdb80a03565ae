# Readers of `go tool pprof`'s text output, for the suites that check
# scorch's pprof files with it (cli, report, record). Sourced after lib.sh;
# PPROF_TMPDIR keeps pprof's own files in the test's scratch folder.

# `go tool pprof -traces` -> folded lines "root;...;leaf count", sorted. A
# block is the value and the leaf (after the value's column, which grows
# for long values), then one caller per line, names from column 14. With UNIT (ns for cpu/nanoseconds profiles) values
# are printed in it, not scaled to ms, and the unit is dropped.
pp_traces_folded() { # PROFILE [UNIT]
	PPROF_TMPDIR=$TMPDIR go tool pprof -traces ${2:+-unit=$2} "$1" 2>"$TMPDIR/pprof.err" | awk -v unit="$2" '
		/^-----------\+/ { if (s != "") print s, c; s = ""; in_block = 1; next }
		in_block && substr($0, 1, 13) !~ /^ *$/ && match($0, /^ *[0-9][0-9.]*[a-zA-Z]* +/) {
			c = substr($0, 1, RLENGTH); gsub(/ /, "", c)
			if (unit != "") sub(unit "$", "", c)
			s = substr($0, RLENGTH + 1); next
		}
		in_block { s = substr($0, 14) ";" s }
		END { if (s != "") print s, c }' | LC_ALL=C sort
}

# The Mappings of `go tool pprof -raw` that carry a build-id, as
# "FILE BUILD-ID" lines, sorted.
pp_mapping_ids() { # PROFILE
	PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$1" 2>"$TMPDIR/pprof.err" | awk '
		/^Mappings/ { m = 1; next }
		m && / \[FN\]$/ && $(NF - 1) ~ /^[0-9a-f]+$/ && length($(NF - 1)) >= 16 {
			line = $0; sub(/^[0-9]+: [^ ]+ /, "", line); sub(/ [0-9a-f]+ \[FN\]$/, "", line)
			print line, $(NF - 1)
		}' | LC_ALL=C sort -u
}

# Where scorch's names and pprof's own symbolisation disagree: for every
# Location in a mapping of FILE, scorch's name (-raw) and the name pprof
# finds itself from the mapping and the address (-symbolize=force, which
# reads FILE's symbols and line tables) when it finds a source line.
# Prints "address ours theirs" for each difference, then "checked N" (the
# number of locations pprof symbolised).
pp_resymbolize_diff() { # PROFILE FILE
	PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$1" >"$TMPDIR/pp-ours.raw" 2>"$TMPDIR/pprof.err"
	PPROF_TMPDIR=$TMPDIR go tool pprof -symbolize=force -lines -raw "$1" >"$TMPDIR/pp-theirs.raw" 2>>"$TMPDIR/pprof.err"
	_mid=$(awk -v file="$2" '
		/^Mappings/ { maps = 1; next }
		maps { line = $0; sub(/^[0-9]+: [^ ]+ /, "", line); sub(/ ([0-9a-f]+ )?\[FN\]$/, "", line)
			if (line == file) { id = $1; sub(/:$/, "", id); print "M=" id; exit } }' "$TMPDIR/pp-ours.raw")
	awk -v m="$_mid" '
		FNR == 1 { pass++ }
		/^Locations/ { loc = 1; next }
		/^Mappings/ { loc = 0; next }
		loc && pass == 1 && $3 == m { ours[$2] = $4 }
		loc && pass == 2 && $3 == m && $5 ~ /:[1-9][0-9]*$/ { theirs[$2] = $4 }
		END {
			for (a in theirs) if (a in ours) { n++; if (ours[a] != theirs[a]) print a, ours[a], theirs[a] }
			print "checked", n + 0
		}' "$TMPDIR/pp-ours.raw" "$TMPDIR/pp-theirs.raw"
}

# "NAME FILE OFFSET" for each function of each Location of `go tool pprof
# -raw` in a Mapping (inlined ones too; OFFSET: address - start + offset in
# hex, the place in FILE, whatever the mapping's layout), sorted.
pp_name_offsets() { # PROFILE
	PPROF_TMPDIR=$TMPDIR go tool pprof -raw "$1" 2>"$TMPDIR/pprof.err" | awk '
		function hex(s,   i, v, c) { v = 0; s = tolower(substr(s, 3))
			for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
			return v }
		/^Locations/ { loc = 1; maps = 0; next }
		/^Mappings/ { loc = 0; maps = 1; next }
		loc && $3 ~ /^M=/ { n++; raw[n] = substr($2, 3); addr[n] = hex($2); map[n] = substr($3, 3); name[n] = $4; next }
		loc && /^              *[^ ]/ && n { n++; raw[n] = raw[n - 1]; addr[n] = addr[n - 1]; map[n] = map[n - 1]; name[n] = $1 }
		maps && $1 ~ /^[0-9]+:$/ { id = substr($1, 1, length($1) - 1); split($2, g, "/")
			start[id] = hex(g[1]); off[id] = hex(g[3]); same[id] = g[1] == g[3]; file[id] = $3 }
		END { for (i = 1; i <= n; i++) if (map[i] in start) {
			# awk numbers are doubles: kernel addresses only as text
			a = same[map[i]] ? raw[i] : sprintf("%x", addr[i] - start[map[i]] + off[map[i]])
			print name[i], file[map[i]], a } }' |
		LC_ALL=C sort -u
}
