# scorch store put and scorch query on a directory store (no server):
# layout and index, rotation by size and age, time parsing, the
# pprof files read by go-style readers (collapse), usage errors. The
# ClickHouse side is tests/fleet.
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
f=$st/web1/2026-11-30/1796032800000000000-1796032810000000000.pb.gz
if [ -f "$f" ]; then ok "store put: DIR/HOST/DAY/START-END.pb.gz"; else not_ok "store put: layout" "$(find "$st")"; fi
printf '1796032800000000000\t1796032810000000000\t1796032800000000000-1796032810000000000.pb.gz\tweb1\tcpu-clock\t99\tsamples\tsvc=web\n' >"$si/index.want"
test_cmp "store put: the day's index line" "$si/index.want" "$st/web1/2026-11-30/index.tsv"
"$SCORCH" collapse --sample-index samples "$f" | LC_ALL=C sort >"$si/a.back"
LC_ALL=C sort "$si/a.folded" >"$si/a.sorted"
test_cmp "store put: the interval's file is pprof with the same stacks" "$si/a.sorted" "$si/a.back"

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

# rotation by size: 12 intervals into a tree bounded to about 3 of them
rm -rf "$st"
size=0
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	"$SCORCH" store put --to "$st" --host h --start "@$((T0 + 10 * i))" --end "@$((T0 + 10 * i + 10))" \
		--max-size 1500 "$si/a.folded" || not_ok "store put --max-size $i"
done
n=$(ls "$st"/h/*/*.pb.gz | wc -l)
lines=$(wc -l <"$st"/h/2026-11-30/index.tsv)
bytes=$(cat "$st"/h/*/*.pb.gz | wc -c)
if [ "$n" -ge 1 ] && [ "$n" -lt 12 ] && [ "$n" = "$lines" ] && [ "$bytes" -le 1500 ]; then
	ok "store --max-size: $n files of $bytes bytes kept, as many index lines"; else
	not_ok "store --max-size" "files $n, index lines $lines, bytes $bytes"; fi
newest=$(ls "$st"/h/*/ | grep -c "^$(((T0 + 110) * 1000000000))-")
if [ "$newest" = 1 ]; then ok "store --max-size: the newest interval is kept"; else not_ok "store --max-size: newest kept"; fi
"$SCORCH" query --from "@$T0" --to "@$((T0 + 120))" "$st" >"$si/rot.got"
expect_grep "query after rotation: the kept intervals only" "app;main;work $((5 * n))" "$si/rot.got"

# rotation by age: intervals of 2026-11-30 are older than --keep 1h now
"$SCORCH" store put --to "$st" --host h --keep 1h "$si/b.folded"
if [ ! -e "$st/h/2026-11-30" ] && [ "$(ls "$st"/h/*/*.pb.gz | wc -l)" = 1 ]; then
	ok "store --keep 1h: older intervals and their day directory removed"; else
	not_ok "store --keep" "$(find "$st")"; fi
