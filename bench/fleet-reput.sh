#!/bin/bash
# Bytes per host per day that ClickHouse keeps for the same intervals put
# by several builds side by side (a schema against another): a directory
# store kept by bench/fleet-soak.sh or bench/fleet-bytes.sh (SOAK_KEEP,
# BYTES_KEEP) is read back interval by interval (`scorch query` of each
# index line's start and end) and put again (`scorch store put`) by each
# build into a database of its own on a private server
# (tests/fleet/clickhouse.sh). Bytes are the active parts after OPTIMIZE
# ... FINAL, read when the intervals of minute WARM (default 3) are in and
# at the end: the growth between, per day.
# REPUT_SCHEMAS names files of SQL, one statement a line with {db} for
# the database, run before a build's first put (its CREATE TABLE IF NOT
# EXISTS then finds the tables made): a schema tried without a build; "-"
# is the build's own.
#   bench/fleet-reput.sh KEPT_DIR [SCORCH ...]     (default ./scorch)
#   REPUT_WARM=MINUTES REPUT_SCHEMAS="- FILE ..."
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
. tests/fleet/clickhouse.sh
KEPT=${1:?usage: bench/fleet-reput.sh KEPT_DIR [SCORCH ...]}
shift
[ $# -gt 0 ] || set -- ./scorch
WARM=${REPUT_WARM:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/scorch-reput.XXXX")
trap 'ch_stop; rm -rf "$W"' EXIT
ch_start "$W/ch" || exit 1
BASE=clickhouse://127.0.0.1:$CH_PORT

ch_bytes() { # database [table]: bytes of its active parts after merging
	for t in scorch_samples scorch_stacks; do ch_sql "OPTIMIZE TABLE $1.$t FINAL" >/dev/null; done
	local b
	b=$(ch_sql "SELECT sum(bytes) FROM system.parts WHERE database = '$1' AND active ${2:+AND table = '$2'}")
	echo "${b:-0}"
}

printf '%-28s %-10s %9s %12s %12s %12s %14s\n' build store intervals stacks-bytes samples-bytes rows MB/host/day
for store in "$KEPT"/*/; do
	name=$(basename "$store")
	cat "$store"*/*/index.tsv | sort -n >"$W/index"
	first=$(head -1 "$W/index" | cut -f1)
	n=0
	for bin in "$@"; do
	for schema in ${REPUT_SCHEMAS:--}; do
		n=$((n + 1))
		db="reput_${name//[^A-Za-z0-9_]/_}_$n"
		if [ "$schema" != - ]; then
			ch_sql "CREATE DATABASE $db" >/dev/null
			while IFS= read -r sql; do
				[ -n "$sql" ] && ch_sql "${sql//\{db\}/$db}"
			done <"$schema"
		fi
		k=0 warm_b= warm_t=
		while IFS=$'\t' read -r start end file host event rate unit labels; do
			"$bin" query "$store" --from "$start" --to "$end" >"$W/one.folded" 2>"$W/q.err" || {
				echo "query $start-$end failed: $(cat "$W/q.err")" >&2; continue; }
			"$bin" store put --to "$BASE/$db" --host "$host" --start "$start" --end "$end" \
				--event "$event" --rate "$rate" "$W/one.folded" 2>"$W/p.err" >/dev/null || {
				echo "put $start-$end failed: $(cat "$W/p.err")" >&2; continue; }
			k=$((k + 1))
			if [ -z "$warm_b" ] && [ $(((end - first) / 1000000000)) -ge $((WARM * 60)) ]; then
				warm_b=$(ch_bytes "$db") warm_t=$end
			fi
			last_t=$end
		done <"$W/index"
		total=$(ch_bytes "$db")
		st=$(ch_bytes "$db" scorch_stacks) sa=$(ch_bytes "$db" scorch_samples)
		rows=$(ch_sql "SELECT count() FROM $db.scorch_samples")
		label=$bin
		[ "$schema" = - ] || label="$bin+$(basename "$schema")"
		awk -v b="$label" -v s="$name" -v k="$k" -v st="$st" -v sa="$sa" -v rows="$rows" \
			-v w="${warm_b:-0}" -v e="$total" -v t0="${warm_t:-0}" -v t1="$last_t" 'BEGIN {
			day = (t1 > t0) ? (e - w) / ((t1 - t0) / 1e9) * 86400 / 1e6 : 0
			printf "%-28s %-10s %9d %12d %12d %12d %14.1f\n", b, s, k, st, sa, rows, day }'
	done
	done
done
