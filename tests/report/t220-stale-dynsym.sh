# A library whose .dynsym names a section that does not exist (as files
# rewritten by BOLT do: rustc's librustc_driver in the b-sys-gcc capture).
# perf 6.1 reads .dynsym after .symtab and stops that pass with an error
# there: the entries read until then stay in its tree without fix-ups and
# it adds no PLT symbols, so samples in the PLT are named _init, not
# tick@plt. The oracle is perf script's own output for the capture, folded
# by collapse perf (tests/data/stale-dynsym: make-fixture.sh made it with
# perf 6.1.192); the files are found through the build-id cache, as perf
# finds them.
. "${0%/*}/lib.sh"
SD=$(dirname "$0")/../data/stale-dynsym
SDT=$TMPDIR/stale-dynsym
mkdir -p "$SDT/bin"
tar -xJf "$SD/binaries.tar.xz" -C "$SDT/bin"
xz -dc "$SD/spin.data.xz" >"$SDT/spin.data"
while read -r sd_id sd_file; do
	sd_dir=$SDT/home/.debug/.build-id/$(printf %.2s "$sd_id")/${sd_id#??}
	mkdir -p "$sd_dir"
	cp "$SDT/bin/$sd_file" "$sd_dir/elf"
done <"$SD/build-ids.txt"
HOME=$SDT/home "$SCORCH" report -q "$SDT/spin.data" >"$SDT/out" 2>"$SDT/err"
test_cmp "report: a stale .dynsym section index ends perf's second symbol pass (PLT samples are _init, as perf script prints)" \
	"$SD/expected.folded" "$SDT/out"
