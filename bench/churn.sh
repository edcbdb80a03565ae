#!/bin/sh
# Workload for bench/report.sh's churn capture: short-lived processes of
# Debian's own binaries (built without frame pointers) for SECONDS (default
# 38): about 800 fork+exec a second on 2 cores, each mapping its binary,
# ld.so and a few libraries. Recorded system-wide, it is the capture where
# report spends most per sample on address spaces rather than on stacks.
#   bench/churn.sh [SECONDS]
set -u
end=$(($(date +%s) + ${1:-38}))
while [ "$(date +%s)" -lt "$end" ]; do
	ls /usr/lib >/dev/null
	head -c 200000 /usr/bin/perl | sha256sum >/dev/null
	sort /etc/services | uniq -c | wc -l >/dev/null
	awk 'BEGIN { for (i = 0; i < 20000; i++) s += i }'
	gzip -c /etc/services | gzip -dc >/dev/null
	grep -r root /etc/passwd /etc/group >/dev/null
done
