# Helpers for the report suite (sourced first: files run in name order).

# weight_share OURS REF: percentage (2 decimals) of REF's total count that
# sits on stacks whose count is the same in OURS (min of the two per stack).
weight_share() {
	awk 'FNR == NR { n = $NF; sub(/ [^ ]*$/, ""); a[$0] += n; next }
		{ n = $NF; sub(/ [^ ]*$/, ""); b[$0] += n; t += n }
		END { for (k in b) { m = (k in a) ? a[k] : 0; s += (m < b[k] ? m : b[k]) }
		      if (t) printf "%.2f\n", 100 * s / t; else print "0.00" }' "$1" "$2"
}

# at_least A B: A >= B for decimal numbers
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

# perf_folded DATA [OPTS...]: perf script's text folded by scorch collapse perf
perf_folded() {
	_d=$1
	shift
	perf script -i "$_d" 2>/dev/null | "$SCORCH" collapse perf "$@" 2>/dev/null
}
