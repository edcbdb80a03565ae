#!/bin/sh
# Rebuilds this fixture (x86-64, gcc, perf): a shared library whose
# .dynsym holds a section index that names no section, as files rewritten
# by BOLT do (rustc's librustc_driver-*.so in the b-sys-gcc capture), a
# capture of a program calling into it, and perf script's frames for it
# folded by scorch collapse perf (the expectation t220 checks report
# against). Run from anywhere; writes next to this script. The capture
# names the files by their paths under /tmp/scorch-stale-dynsym.
set -e
here=$(cd "$(dirname "$0")" && pwd)
scorch=${SCORCH:-$here/../../../scorch}
d=/tmp/scorch-stale-dynsym
rm -rf "$d"
mkdir -p "$d"
cd "$d"
gcc -shared -Wl,--build-id -o libtick.so "$here/tick.s"
gcc -shared -Wl,--build-id -o libspin.so "$here/spin.s" -L. -ltick -Wl,-rpath,"$d"
"$here/patch_dynsym.py" libspin.so stale_obj 48
gcc -nostdlib -Wl,--build-id -o spin "$here/start.s" -L. -lspin -Wl,-rpath,"$d"
perf record -q -e cpu-clock:u -F 499 -g -o spin.data ./spin
perf script -i spin.data | "$scorch" collapse perf >"$here/expected.folded"
xz -9 -c spin.data >"$here/spin.data.xz"
tar -cJf "$here/binaries.tar.xz" spin libspin.so libtick.so
perf --version >"$here/perf-version.txt"
for f in spin libspin.so libtick.so; do
	printf '%s %s\n' "$(readelf -n "$f" | awk '/Build ID/ { print $3 }')" "$f"
done >"$here/build-ids.txt"
