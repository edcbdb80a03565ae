#!/bin/sh
# sh bench/make-large.sh [OUT]   (not executable: bench/run runs only benchmarks)
# Builds a ~1 GiB `perf script` text input from the test corpus
# (tests/data/corpus, or $CORPUS) by concatenating the cpu-clock:pppH captures (a, b, c, e) round after round.
# Copy k>0 of every capture has each non-zero pid/tid shifted by k*100000, so the
# samples differ per copy under --pid/--tid (default folding merges copies: the
# set of unique folded stacks stays that of one copy; counts scale).
# Env: TARGET_MB (default 1024) size to reach; TMPDIR (default /tmp).
# Prints the path it wrote. Needs: sh, xz, awk (mawk or gawk), stat.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=${CORPUS:-$here/../tests/data/corpus}
out=${1:-${TMPDIR:-/tmp}/perf-large.perf.txt}
target=$(( ${TARGET_MB:-1024} * 1024 * 1024 ))
work=$(mktemp -d "${TMPDIR:-/tmp}/make-large.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
files="b-sys-gcc a-fp-mt c-kernel e-cxx-dwarf"
for f in $files; do
  xz -dc "$corpus/$f.perf.txt.xz" > "$work/$f.txt" &
done
wait
: > "$out"
k=0; total=0
while [ "$total" -lt "$target" ]; do
  for f in $files; do
    [ "$total" -ge "$target" ] && break
    if [ "$k" -eq 0 ]; then
      cat "$work/$f.txt" >> "$out"
    else
      awk -v off=$((k * 100000)) '
        /^[^ \t]/ {
          if (match($0, / +[0-9]+(\/[0-9]+)? +(\[[0-9]+\] +)?[0-9]+\.[0-9]+: /)) {
            pre = substr($0, 1, RSTART - 1); mid = substr($0, RSTART, RLENGTH)
            post = substr($0, RSTART + RLENGTH)
            match(mid, /[0-9]+(\/[0-9]+)?/)
            ids = substr(mid, RSTART, RLENGTH)
            n = split(ids, p, "/")
            s = (p[1] == 0) ? 0 : p[1] + off
            if (n == 2) s = s "/" ((p[2] == 0) ? 0 : p[2] + off)
            $0 = pre substr(mid, 1, RSTART - 1) s substr(mid, RSTART + RLENGTH) post
          }
        }
        { print }' "$work/$f.txt" >> "$out"
    fi
    total=$(stat -c %s "$out")
  done
  k=$((k + 1))
done
echo "$out"
