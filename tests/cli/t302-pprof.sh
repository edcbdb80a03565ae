# pprof output checked by its reference reader, Debian's `go tool pprof`:
# -traces gives back the folded stacks and counts, -top the self totals
# (computed here from the folded input with awk, independently of scorch).
. "${0%/*}/../lib.sh"
pp=$TMPDIR/pprof-out
mkdir -p "$pp"

. tests/pprof.sh # pp_traces_folded

# `go tool pprof -top` -> "name flat" for every function with self time.
pp_top_self() { # PROFILE
	PPROF_TMPDIR=$pp go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$1" \
		2>"$pp/pprof.err" | awk '
		/^ *flat  flat%/ { in_table = 1; next }
		in_table {
			line = $0; flat = $1
			sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", line)
			if (flat != 0) print line, flat
		}' | LC_ALL=C sort
}

# The independent expectations from folded text (counts summed per stack,
# and per leaf frame).
pp_want_stacks() { awk '{ c = $NF; sub(/ [^ ]*$/, ""); n[$0] += c } END { for (s in n) printf "%s %.0f\n", s, n[s] }' "$1" | LC_ALL=C sort; }
pp_want_self() { awk '{ c = $NF; sub(/ [^ ]*$/, ""); k = split($0, f, ";"); n[f[k]] += c } END { for (s in n) printf "%s %.0f\n", s, n[s] }' "$1" | LC_ALL=C sort; }

if ! command -v go >/dev/null 2>&1; then
	not_ok "pprof/go tool pprof round trip" "no go (scripts/setup installs Debian\'s golang-go)"
else
	xz -dc examples/lua-build.folded.xz >"$pp/lua.folded"
	# Hostile names: spaces, quotes, markup, UTF-8, a C++ template (pprof
	# must not simplify it: we leave system_name empty), brackets.
	printf '%s\n' 'app;main;std::vector<int>::push_back 7' 'app;main;"quoted" & <tag> 3' \
		'app;main;caf\303\251 w\303\266rk 2' 'app;[unknown];[libc.so.6] 4' 'app 1' \
		'app;main;std::vector<int>::push_back 5' 'other-proc;x 9' >"$pp/names.folded"
	for input in lua names; do
		expect_exit "pprof/$input: flamegraph -o x.pb.gz" 0 "$SCORCH" flamegraph "$pp/$input.folded" -o "$pp/$input.pb.gz"
		if [ "$(head -c2 "$pp/$input.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
			ok "pprof/$input: the file is gzipped"
		else
			not_ok "pprof/$input: the file is gzipped"
		fi
		pp_want_stacks "$pp/$input.folded" >"$pp/$input.want-stacks"
		pp_traces_folded "$pp/$input.pb.gz" >"$pp/$input.traces"
		test_cmp "pprof/$input: go tool pprof -traces gives back the stacks and counts" \
			"$pp/$input.want-stacks" "$pp/$input.traces"
		pp_want_self "$pp/$input.folded" >"$pp/$input.want-self"
		pp_top_self "$pp/$input.pb.gz" >"$pp/$input.top"
		test_cmp "pprof/$input: go tool pprof -top gives the self totals" \
			"$pp/$input.want-self" "$pp/$input.top"
	done
	PPROF_TMPDIR=$pp go tool pprof -raw "$pp/names.pb.gz" >"$pp/names.raw" 2>&1
	expect_grep "pprof/sample type is samples/count" '^samples/count\[dflt\]$' "$pp/names.raw"

	# The same bytes from every command that writes it.
	expect_exit "pprof/collapse -o x.pb.gz" 0 "$SCORCH" collapse "$pp/names.folded" -o "$pp/collapse.pb.gz"
	test_cmp "pprof/collapse writes what flamegraph writes" "$pp/names.pb.gz" "$pp/collapse.pb.gz"
	expect_exit "pprof/flamegraph --format pprof to stdout" 0 sh -c \
		"\"$SCORCH\" flamegraph --format pprof \"$pp/names.folded\" >\"$pp/stdout.pb.gz\""
	test_cmp "pprof/--format pprof writes the same profile" "$pp/names.pb.gz" "$pp/stdout.pb.gz"

	# Options that change the stacks apply; the picture options do not matter.
	expect_exit "pprof/--include" 0 "$SCORCH" flamegraph --include 'other' "$pp/names.folded" -o "$pp/inc.pb.gz"
	printf 'other-proc;x 9\n' >"$pp/inc.want"
	pp_traces_folded "$pp/inc.pb.gz" >"$pp/inc.traces"
	test_cmp "pprof/--include keeps only matching stacks" "$pp/inc.want" "$pp/inc.traces"

	# Fractional counts are rounded, with a warning.
	printf 'a;b 1.6\n' >"$pp/frac.folded"
	expect_exit "pprof/fractional counts" 0 "$SCORCH" flamegraph "$pp/frac.folded" -o "$pp/frac.pb.gz"
	expect_grep "pprof/fractional counts: a warning" "rounded to whole numbers" "$TMPDIR/err"
	printf 'a;b 2\n' >"$pp/frac.want"
	pp_traces_folded "$pp/frac.pb.gz" >"$pp/frac.traces"
	test_cmp "pprof/fractional counts round to nearest" "$pp/frac.want" "$pp/frac.traces"
fi

# Nothing to write: no file, exit 2.
printf '' >"$pp/empty.folded"
expect_exit "pprof/empty input exits 2" 2 "$SCORCH" flamegraph "$pp/empty.folded" -o "$pp/empty.pb.gz"
if [ -e "$pp/empty.pb.gz" ]; then not_ok "pprof/empty input writes no file"; else ok "pprof/empty input writes no file"; fi

# pprof in: binary profiles (gzipped or not) read back by collapse, by
# name or detected, and drawn by flamegraph.
xz -dc examples/lua-build.folded.xz >"$pp/lua-in.folded"
"$SCORCH" collapse "$pp/lua-in.folded" -o "$pp/lua-in.pb.gz"
"$SCORCH" collapse "$pp/lua-in.folded" >"$pp/lua-in.want"
expect_exit "pprof in: collapse reads scorch's pprof" 0 "$SCORCH" collapse pprof "$pp/lua-in.pb.gz"
test_cmp "pprof in: the stacks come back (2707 stacks)" "$pp/lua-in.want" "$TMPDIR/out"
gzip -dc "$pp/lua-in.pb.gz" >"$pp/lua-in.pb"
expect_exit "pprof in: not gzipped, detected" 0 "$SCORCH" collapse "$pp/lua-in.pb"
test_cmp "pprof in: not gzipped, same stacks" "$pp/lua-in.want" "$TMPDIR/out"
gocpu=tests/golden/collapse-pprof/go-cpu.in
expect_exit "pprof in: flamegraph draws a Go CPU profile" 0 "$SCORCH" flamegraph --title 'go <cpu>' "$gocpu"
expect_grep "pprof in: the Go frames are drawn" '<title>main.spinA (' "$TMPDIR/out"
expect_exit "pprof in: --sample-index by number" 0 "$SCORCH" collapse pprof --sample-index 0 "$gocpu"
test_cmp "pprof in: --sample-index 0 is samples" tests/golden/collapse-pprof/go-cpu.out "$TMPDIR/out"
expect_exit "pprof in: unknown --sample-index exits 1" 1 "$SCORCH" collapse pprof --sample-index=alloc_space "$gocpu"
expect_grep "pprof in: unknown --sample-index lists the types" '^  1 cpu$' "$TMPDIR/err"
expect_exit "pprof in: --sample-index past the types exits 1" 1 "$SCORCH" collapse pprof --sample-index=2 "$gocpu"
expect_grep "pprof in: ... and says how many there are" 'has 2 sample types' "$TMPDIR/err"

# Damaged profiles: an error with the byte offset, exit 1, no output file.
gzip -dc "$gocpu" | head -c 300 >"$pp/cut.pb"
expect_exit "pprof in: truncated profile exits 1" 1 "$SCORCH" collapse pprof "$pp/cut.pb" -o "$pp/cut.folded"
expect_grep "pprof in: truncated profile: byte offset" 'cut.pb: byte 285 of the profile: length runs past the end' "$TMPDIR/err"
if [ -e "$pp/cut.folded" ]; then not_ok "pprof in: truncated profile writes nothing"; else ok "pprof in: truncated profile writes nothing"; fi
printf '\012\004\010\001\020\002\022\006\012\002\001\011\020\005\062\000' >"$pp/badloc.pb"
expect_exit "pprof in: unknown location id exits 1" 1 "$SCORCH" collapse pprof "$pp/badloc.pb"
expect_grep "pprof in: unknown location id: byte offset" 'badloc.pb: byte 8 of the profile: a sample names a location id that does not exist' "$TMPDIR/err"

# --sample-index on every command that reads pprof, and the unit a pprof
# input says: Go's CPU profile counts cpu/nanoseconds by default (its
# total, as go tool pprof -traces -unit=ns reads it, is the graph's), and
# samples with --sample-index samples (the golden's counts).
go_total=$(awk '{ t += $NF } END { printf "%.0f", t }' tests/golden/collapse-pprof/go-cpu.out)
"$SCORCH" flamegraph "$gocpu" -o "$pp/gocpu.svg" 2>"$pp/err"
"$SCORCH" flamegraph --sample-index samples "$gocpu" -o "$pp/gocpu-s.svg" 2>>"$pp/err"
all_title() { sed -n 's/.*<title>all (\([0-9,]*\) \([^,]*\), 100%)<\/title>.*/\1 \2/p' "$1" | tr -d ,; }
if command -v go >/dev/null 2>&1; then
	ns_total=$(pp_traces_folded "$gocpu" ns | awk '{ t += $NF } END { printf "%.0f", t }')
	if [ "$(all_title "$pp/gocpu.svg")" = "$ns_total ns" ] && [ "$ns_total" -gt 0 ]; then
		ok "pprof in: flamegraph of a cpu/nanoseconds profile says ns ($ns_total ns, as go tool pprof)"
	else
		not_ok "pprof in: flamegraph of a cpu/nanoseconds profile says ns" "got '$(all_title "$pp/gocpu.svg")', want '$ns_total ns'" "$(cat "$pp/err")"
	fi
else
	not_ok "pprof in: flamegraph of a cpu/nanoseconds profile says ns" "no go (scripts/setup installs Debian\'s golang-go)"
fi
if [ "$(all_title "$pp/gocpu-s.svg")" = "$go_total samples" ]; then
	ok "pprof in: flamegraph --sample-index samples counts samples"
else
	not_ok "pprof in: flamegraph --sample-index samples counts samples" "got '$(all_title "$pp/gocpu-s.svg")', want '$go_total samples'"
fi
"$SCORCH" merge a=$gocpu b=$gocpu -o "$pp/gocpu-m.svg" 2>"$pp/err"
if [ "$(all_title "$pp/gocpu-m.svg")" = "$(( ns_total * 2 )) ns" ]; then
	ok "pprof in: merge's graph says ns too"
else
	not_ok "pprof in: merge's graph says ns too" "got '$(all_title "$pp/gocpu-m.svg")'" "$(cat "$pp/err")"
fi
sed 's/^/host;/' tests/golden/collapse-pprof/go-cpu.out >"$pp/gocpu-m.want"
expect_exit "pprof in: merge --sample-index" 0 "$SCORCH" merge --sample-index 0 host="$gocpu"
test_cmp "pprof in: merge --sample-index 0 sums samples" "$pp/gocpu-m.want" "$TMPDIR/out"
awk '{ c = $NF; sub(/ [^ ]*$/, ""); print $0, c, c }' tests/golden/collapse-pprof/go-cpu.out >"$pp/gocpu-d.want"
expect_exit "pprof in: diff --sample-index" 0 "$SCORCH" diff --sample-index samples "$gocpu" "$gocpu"
test_cmp "pprof in: diff --sample-index samples compares samples" "$pp/gocpu-d.want" "$TMPDIR/out"
expect_exit "pprof in: diff --sample-index unknown exits 1" 1 "$SCORCH" diff --sample-index nope "$gocpu" "$gocpu"
expect_grep "pprof in: diff --sample-index unknown lists the types" '^  0 samples$' "$TMPDIR/err"
if command -v go >/dev/null 2>&1; then
	"$SCORCH" flamegraph "$gocpu" -o "$pp/gocpu-again.pb.gz"
	PPROF_TMPDIR=$pp go tool pprof -raw "$pp/gocpu-again.pb.gz" >"$pp/gocpu-again.raw" 2>&1
	expect_grep "pprof in -> out: nanoseconds stay cpu/nanoseconds" '^cpu/nanoseconds\[dflt\]$' "$pp/gocpu-again.raw"
	"$SCORCH" collapse pprof "$gocpu" -o "$pp/gocpu-c.pb.gz"
	PPROF_TMPDIR=$pp go tool pprof -raw "$pp/gocpu-c.pb.gz" >"$pp/gocpu-c.raw" 2>&1
	expect_grep "pprof in -> out: collapse keeps cpu/nanoseconds" '^cpu/nanoseconds\[dflt\]$' "$pp/gocpu-c.raw"
else
	not_ok "pprof in -> out: nanoseconds stay cpu/nanoseconds" "no go (scripts/setup installs Debian\'s golang-go)"
	not_ok "pprof in -> out: collapse keeps cpu/nanoseconds" "no go (scripts/setup installs Debian\'s golang-go)"
fi

# pprof in -> out keeps Mappings and addresses: each function scorch
# writes sits at a place in its file (address - start + offset) where Go's
# own profile has that function (a name has one address in scorch's, the
# first seen). Through flamegraph and through merge (under a host root).
if command -v go >/dev/null 2>&1; then
	pp_name_offsets "$gocpu" >"$pp/gocpu.offsets"
	"$SCORCH" merge host="$gocpu" -o "$pp/gocpu-merged.pb.gz" 2>"$pp/err"
	for f in gocpu-again gocpu-merged; do
		pp_name_offsets "$pp/$f.pb.gz" >"$pp/$f.offsets"
		extra=$(LC_ALL=C comm -13 "$pp/gocpu.offsets" "$pp/$f.offsets")
		n=$(wc -l <"$pp/$f.offsets")
		if [ "$n" -ge 5 ] && [ -z "$extra" ]; then
			ok "pprof in -> out ($f): $n functions keep their file and place in it"
		else
			not_ok "pprof in -> out ($f): functions keep their file and place in it" "$n; not in Go's: $extra"
		fi
	done
else
	not_ok "pprof in -> out (gocpu-again): functions keep their file and place in it" "no go (scripts/setup installs Debian\'s golang-go)"
	not_ok "pprof in -> out (gocpu-merged): functions keep their file and place in it" "no go (scripts/setup installs Debian\'s golang-go)"
fi

# collapse --format: pprof or speedscope whatever the output's name (as
# flamegraph's --format), or the input format; anything else is a usage error.
"$SCORCH" collapse "$pp/lua-in.folded" -o "$pp/byname.pb.gz"
"$SCORCH" collapse folded "$pp/lua-in.folded" >"$pp/lua-in.sorted"
expect_exit "collapse --format pprof to stdout" 0 sh -c "\"$SCORCH\" collapse --format pprof \"$pp/lua-in.folded\" >\"$pp/fmt.pb.gz\""
test_cmp "collapse --format pprof writes what -o x.pb.gz writes" "$pp/byname.pb.gz" "$pp/fmt.pb.gz"
expect_exit "collapse --format speedscope -o x.txt" 0 "$SCORCH" collapse --format speedscope "$pp/lua-in.folded" -o "$pp/fmt.txt"
expect_grep "collapse --format speedscope writes speedscope" '"exporter":"scorch"' "$pp/fmt.txt"
expect_exit "collapse --format folded names the input format" 0 "$SCORCH" collapse --format folded "$pp/lua-in.folded"
test_cmp "collapse --format folded: the stacks" "$pp/lua-in.sorted" "$TMPDIR/out"
expect_exit "collapse --format svg is a usage error" 2 "$SCORCH" collapse --format svg "$pp/lua-in.folded"
expect_grep "collapse --format svg: says what it writes" "neither an output format collapse writes (pprof, speedscope)" "$TMPDIR/err"
"$SCORCH" flamegraph "$gocpu" -o "$pp/gocpu.speedscope.json"
expect_grep "pprof in -> speedscope: nanoseconds stay nanoseconds" '"unit":"nanoseconds"' "$pp/gocpu.speedscope.json"
