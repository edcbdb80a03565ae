# scorch store put and scorch query on a directory store (no server):
# layout and index, the day's stack table and the interval files that
# refer to it (read by query, merge and flamegraph; pprof through merge
# -o), stores of pprof intervals still read, damaged tables and files,
# writers sharing a table, rotation by size and age, time parsing, usage
# errors. The ClickHouse side is tests/fleet.
. "${0%/*}/../lib.sh"
st=$TMPDIR/store
rm -rf "$st" "$TMPDIR/stin"
mkdir -p "$TMPDIR/stin"
si=$TMPDIR/stin
printf 'app;main;work 5\napp;main 1\n' >"$si/a.folded"
printf 'app;main;work 3\nsshd;poll 2\n' >"$si/b.folded"
T0=1796032800 # 2026-11-30T10:00:00Z

expect_exit "store put: a directory store" 0 "$SCORCH" store put --to "$st" --host web1 --start 2026-11-30T10:00:00Z \
	--end 2026-11-30T10:00:10Z --rate 99 --event cpu-clock --label svc=web "$si/a.folded"
f=$st/web1/2026-11-30/1796032800000000000-1796032810000000000.zst
if [ -f "$f" ] && [ -f "$st/web1/2026-11-30/stacks.zst" ]; then ok "store put: DIR/HOST/DAY/START-END.zst and the day's stacks.zst"; else
	not_ok "store put: layout" "$(find "$st")"; fi
printf '1796032800000000000\t1796032810000000000\t1796032800000000000-1796032810000000000.zst\tweb1\tcpu-clock\t99\tsamples\tsvc=web\n' >"$si/index.want"
test_cmp "store put: the day's index line" "$si/index.want" "$st/web1/2026-11-30/index.tsv"
LC_ALL=C sort "$si/a.folded" >"$si/a.sorted"
"$SCORCH" merge "$f" | LC_ALL=C sort >"$si/a.back"
test_cmp "merge of one interval file: the stacks put, named by the day's table" "$si/a.sorted" "$si/a.back"
"$SCORCH" merge "$f" -o "$si/a.pb.gz" && "$SCORCH" collapse "$si/a.pb.gz" | LC_ALL=C sort >"$si/a.pprof"
test_cmp "merge of one interval file -o .pb.gz: pprof with the same stacks" "$si/a.sorted" "$si/a.pprof"
"$SCORCH" flamegraph "$f" -o "$si/a.svg" && "$SCORCH" flamegraph "$si/a.folded" -o "$si/a-want.svg"
test_cmp "flamegraph of one interval file: the graph of the stacks put" "$si/a-want.svg" "$si/a.svg"
# the table holds each name and stack once: a second interval with the
# same stacks adds nothing to it
tbytes=$(wc -c <"$st/web1/2026-11-30/stacks.zst")
expect_exit "store put: a second interval, the same stacks" 0 "$SCORCH" store put --to "$st" --host web1 \
	--start "@$((T0 + 10))" --end "@$((T0 + 20))" --label svc=web "$si/a.folded"
if [ "$(wc -c <"$st/web1/2026-11-30/stacks.zst")" = "$tbytes" ]; then ok "store put: known stacks add nothing to the table"; else
	not_ok "store put: the table grew" "$tbytes -> $(wc -c <"$st/web1/2026-11-30/stacks.zst")"; fi
rm "$st/web1/2026-11-30/1796032810000000000-1796032820000000000.zst"
sed -i 2d "$st/web1/2026-11-30/index.tsv"

expect_exit "store put: a host name with / and spaces" 0 "$SCORCH" store put --to "$st" --host '../we b/2' \
	--start "@$((T0 + 10))" --end "@$((T0 + 20))" --label svc=web "$si/b.folded"
if [ -d "$st/..%2Fwe%20b%2F2" ] || [ -d "$st/%2E.%2Fwe%20b%2F2" ]; then ok "store put: the host's directory name is escaped"; else
	not_ok "store put: host escaping" "$(ls "$st")"; fi
"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" --group-by host "$st" | LC_ALL=C sort >"$si/q.got"
{ sed 's|^|../we b/2;|' "$si/b.folded"; sed 's/^/web1;/' "$si/a.folded"; } | LC_ALL=C sort >"$si/q.want"
test_cmp "query: a root per host, the host's own name" "$si/q.want" "$si/q.got"
"$SCORCH" query --from 2026-11-30T10:00:15 --to 2026-11-30T11:00Z "$st" | LC_ALL=C sort >"$si/q2.got"
LC_ALL=C sort "$si/b.folded" >"$si/q2.want"
test_cmp "query: ISO times; the range takes the intervals it overlaps" "$si/q2.want" "$si/q2.got"
expect_exit "query: a relative range that holds nothing exits 2" 2 "$SCORCH" query --from -1h "$st"
expect_exit "query: a bad time is a usage error" 2 "$SCORCH" query --from yesterday "$st"
expect_grep "query: ... naming the option" "from: not a time" "$TMPDIR/err"
expect_exit "query: --from after --to" 2 "$SCORCH" query --from -1h --to -2h "$st"
expect_exit "query: a missing directory exits 1" 1 "$SCORCH" query "$st/nowhere"
expect_exit "store put: without --to" 2 "$SCORCH" store put "$si/a.folded"
expect_exit "store put: a bad label" 2 "$SCORCH" store put --to "$st" --label novalue "$si/a.folded"
expect_exit "store put: an unknown scheme" 1 "$SCORCH" store put --to "s3://bucket" "$si/a.folded"
expect_exit "store put: an unreadable input exits 1" 1 "$SCORCH" store put --to "$st" "$si/none.folded"

# a damaged index line is reported with its place and skipped
printf 'garbage\n' >>"$st/web1/2026-11-30/index.tsv"
"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" --host web1 "$st" >"$si/dmg.got" 2>"$si/dmg.err"
if grep -q 'index.tsv:2: .*not an index line' "$si/dmg.err" && [ "$(LC_ALL=C sort "$si/dmg.got")" = "$(cat "$si/a.sorted")" ]; then
	ok "query: a damaged index line is named (file:line) and skipped"; else not_ok "query: damaged index" "$(cat "$si/dmg.err")"; fi

# a store of pprof intervals (what stores held before the stack tables)
# is still read, beside the new files
old=$TMPDIR/oldstore
rm -rf "$old" && mkdir -p "$old/h/2026-11-30"
"$SCORCH" merge "$si/b.folded" -o "$old/h/2026-11-30/1796032800000000000-1796032810000000000.pb.gz"
printf '1796032800000000000\t1796032810000000000\t1796032800000000000-1796032810000000000.pb.gz\th\tcpu-clock\t0\tsamples\n' \
	>"$old/h/2026-11-30/index.tsv"
"$SCORCH" store put --to "$old" --host h --start "@$((T0 + 10))" --end "@$((T0 + 20))" "$si/a.folded"
"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old" | LC_ALL=C sort >"$si/old.got"
"$SCORCH" merge "$si/a.folded" "$si/b.folded" | LC_ALL=C sort >"$si/old.want"
test_cmp "query: a day of pprof intervals and new ones, summed" "$si/old.want" "$si/old.got"

# damaged tables and interval files: an error naming the file, exit 1
day=$old/h/2026-11-30
zf=$day/1796032810000000000-1796032820000000000.zst
cp "$day/stacks.zst" "$si/stacks.good"
cp "$zf" "$si/iv.good"
printf 'SCSTACK1\001\001a\002\005\000' >"$si/t.raw" && zstd -q -f -c "$si/t.raw" >"$day/stacks.zst"
expect_exit "query: a table whose stack names a parent it lacks exits 1" 1 "$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old"
expect_grep "... naming the table and the frame" "stacks.zst: frame at byte 0: stack 1 refers to parent 5" "$TMPDIR/err"
printf 'not zstd at all' >"$day/stacks.zst"
expect_exit "query: a table that is not zstd: its intervals' stacks are not there, exit 1" 1 \
	"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old"
expect_grep "... naming the interval file" "$zf: byte 9: a stack that the day's stack table does not hold" "$TMPDIR/err"
printf 'SCCOUNT1\001\001\377' | zstd -q -c >"$zf"
cp "$si/stacks.good" "$day/stacks.zst"
expect_exit "query: an interval file cut short exits 1" 1 "$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old"
expect_grep "... naming it and the offset" "$zf: byte 9: cut short" "$TMPDIR/err"
head -c 7 "$si/iv.good" >"$zf"
expect_exit "query: an interval file that is not zstd exits 1" 1 "$SCORCH" merge "$zf"
printf 'SCSTACK1\001\001a' | zstd -q -c >"$day/stacks.zst"
expect_exit "query: a table frame that does not say its size exits 1" 1 "$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old"
expect_grep "... saying so" "stacks.zst: the frame at byte 0 does not say its size" "$TMPDIR/err"
cp "$si/stacks.good" "$day/stacks.zst"
printf 'SCCOUNT1\377\377\377\377\017' | zstd -q -c >"$zf"
expect_exit "query: a count of stacks the file cannot hold exits 1" 1 "$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old"
expect_grep "... saying so" "a count of 4294967295 stacks that the file cannot hold" "$TMPDIR/err"
cp "$si/iv.good" "$zf"
# a writer that died mid-frame: readers ignore the cut frame, the next
# writer cuts it off and appends after the last whole one
head -c 20 "$si/stacks.good" >>"$day/stacks.zst"
"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old" | LC_ALL=C sort >"$si/cut.got"
test_cmp "query: a table's last frame cut short is ignored" "$si/old.want" "$si/cut.got"
printf 'new;frame 7\n' >"$si/c.folded"
"$SCORCH" store put --to "$old" --host h --start "@$((T0 + 20))" --end "@$((T0 + 30))" "$si/c.folded"
"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$old" | LC_ALL=C sort >"$si/cut2.got"
cat "$si/a.folded" "$si/b.folded" "$si/c.folded" | "$SCORCH" merge - | LC_ALL=C sort >"$si/cut2.want"
test_cmp "store put after a cut frame: it is cut off, the new stacks appended and read" "$si/cut2.want" "$si/cut2.got"

# names from a table are untrusted data: a line break and markup in one
hs=$TMPDIR/hostile
rm -rf "$hs" && mkdir -p "$hs/h/1970-01-01"
printf 'SCSTACK1\001\010a\nb<x>&\000\002\001\000' >"$si/h.raw" && zstd -q -f -c "$si/h.raw" >"$hs/h/1970-01-01/stacks.zst"
printf 'SCCOUNT1\001\001\003' >"$si/h.cnt" && zstd -q -f -c "$si/h.cnt" >"$hs/h/1970-01-01/1-2.zst"
printf '1\t2\t1-2.zst\th\tcpu-clock\t0\tsamples\n' >"$hs/h/1970-01-01/index.tsv"
"$SCORCH" query --from @0 --to @1 "$hs" >"$si/h.folded" 2>"$si/h.err"
printf 'a?b<x>&? 3\n' >"$si/h.want"
test_cmp "query: a name with a line break and a NUL from a table: folded keeps the bytes, those become ?" "$si/h.want" "$si/h.folded"
"$SCORCH" query --from @0 --to @1 "$hs" -o "$si/h.svg" 2>>"$si/h.err"
if grep -q 'a?b&lt;x&gt;&amp;? (3 samples' "$si/h.svg" && ! grep -q '<x>' "$si/h.svg"; then ok "query -o .svg: that name escaped"; else
	not_ok "query -o .svg: hostile name" "$(grep -a 'samples' "$si/h.svg" | head -3)" "$(cat "$si/h.err")"; fi

# writers sharing one day's table (several store put at once): each
# appends under a lock what it adds, after what the others added
sh=$TMPDIR/shared
rm -rf "$sh"
for i in 0 1 2 3 4 5; do
	printf 'p%d;shared 1\nq;w%d;x 2\nq;w%d;y%d 3\n' $i $((i % 3)) $((i % 2)) $i >"$si/w$i.folded"
	"$SCORCH" store put --to "$sh" --host h --start "@$((T0 + i))" --end "@$((T0 + i + 1))" "$si/w$i.folded" &
done
wait
"$SCORCH" query --from "@$T0" --to "@$((T0 + 60))" "$sh" | LC_ALL=C sort >"$si/sh.got"
cat "$si"/w[0-5].folded | "$SCORCH" merge - | LC_ALL=C sort >"$si/sh.want"
test_cmp "store put: six writers at once into one day's table" "$si/sh.want" "$si/sh.got"

# rotation by size: 12 intervals into a tree bounded to about 3 of them
rm -rf "$st"
size=0
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	"$SCORCH" store put --to "$st" --host h --start "@$((T0 + 10 * i))" --end "@$((T0 + 10 * i + 10))" \
		--max-size 150 "$si/a.folded" || not_ok "store put --max-size $i"
done
n=$(ls "$st"/h/*/*-*.zst | wc -l)
lines=$(wc -l <"$st"/h/2026-11-30/index.tsv)
bytes=$(cat "$st"/h/*/*.zst | wc -c)
if [ "$n" -ge 1 ] && [ "$n" -lt 12 ] && [ "$n" = "$lines" ] && [ "$bytes" -le 150 ]; then
	ok "store --max-size: $n files of $bytes bytes kept, as many index lines"; else
	not_ok "store --max-size" "files $n, index lines $lines, bytes $bytes"; fi
newest=$(ls "$st"/h/*/ | grep -c "^$(((T0 + 110) * 1000000000))-")
if [ "$newest" = 1 ]; then ok "store --max-size: the newest interval is kept"; else not_ok "store --max-size: newest kept"; fi
"$SCORCH" query --from "@$T0" --to "@$((T0 + 120))" "$st" >"$si/rot.got"
expect_grep "query after rotation: the kept intervals only" "app;main;work $((5 * n))" "$si/rot.got"

# rotation by age: intervals of 2026-11-30 are older than --keep 1h now
"$SCORCH" store put --to "$st" --host h --keep 1h "$si/b.folded"
if [ ! -e "$st/h/2026-11-30" ] && [ "$(ls "$st"/h/*/*-*.zst | wc -l)" = 1 ]; then
	ok "store --keep 1h: older intervals, their day's table and directory removed"; else
	not_ok "store --keep" "$(find "$st")"; fi
