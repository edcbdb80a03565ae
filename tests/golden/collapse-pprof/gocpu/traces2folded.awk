# `go tool pprof -traces` -> folded lines (unsorted, one per block): the
# value is the block's first word (a unit suffix such as "ns" dropped), the
# names follow three spaces; "(inline)" marks are dropped. Used to derive
# the expected output of scorch's binary pprof reader independently of it.
/^-----------\+/ { if (s != "") print s, c; s = ""; in_block = 1; next }
in_block {
	line = $0
	if (line ~ /^ *[0-9]/) {
		c = $1; sub(/[a-z]+$/, "", c)
		match(line, /^ *[^ ]+   /); name = substr(line, RLENGTH + 1)
	} else {
		name = substr(line, 14)
	}
	sub(/ \(inline\)$/, "", name)
	s = s == "" ? name : name ";" s
}
END { if (s != "") print s, c }
