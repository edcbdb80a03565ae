# A private ClickHouse server for the fleet tests (sourced): Debian's
# clickhouse-server as a plain process, its config copied from
# /etc/clickhouse-server into $1 with every path there, ports picked at
# random in 20000-32000 (below the kernel's ephemeral ports, which a
# client socket could hold while the server restarts), listening on 127.0.0.1 only; a second user "scorch"
# with a password for the credential tests. ch_start DIR sets CH_PORT and
# CH_PID; ch_stop kills that pid (the caller traps it).

ch_config() { # dir http tcp interserver
	local d=$1
	mkdir -p "$d/data/tmp" "$d/data/user_files" "$d/data/format_schemas" "$d/log"
	sed -e "s|/var/lib/clickhouse/|$d/data/|g" \
		-e "s|/var/log/clickhouse-server/|$d/log/|g" \
		-e "s|<http_port>8123</http_port>|<http_port>$2</http_port>|" \
		-e "s|<tcp_port>9000</tcp_port>|<tcp_port>$3</tcp_port>|" \
		-e "s|<interserver_http_port>9009</interserver_http_port>|<interserver_http_port>$4</interserver_http_port>|" \
		-e '/<listen_host>/d' \
		-e "s|<http_port>$2</http_port>|<http_port>$2</http_port><listen_host>127.0.0.1</listen_host>|" \
		/etc/clickhouse-server/config.xml >"$d/config.xml"
	# CH_COMPRESSION=zstd: parts compressed with zstd rather than lz4 (the
	# server's <compression>, which Debian's config.xml leaves commented
	# out; bench/fleet-bytes.sh measures both).
	if [ -n "${CH_COMPRESSION:-}" ]; then
		awk -v m="$CH_COMPRESSION" '
			/<compression incl=/ { skip = 1; print "<compression><case><min_part_size>0</min_part_size><min_part_size_ratio>0</min_part_size_ratio><method>" m "</method></case></compression>" }
			!skip { print }
			skip && /<\/compression>/ { skip = 0 }' "$d/config.xml" >"$d/config.xml.new" && mv "$d/config.xml.new" "$d/config.xml"
	fi
	sed -e 's|</users>|<scorch><password>s3cret</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></scorch></users>|' \
		/etc/clickhouse-server/users.xml >"$d/users.xml"
}

ch_answers() { # port: SELECT 1 over HTTP
	[ "$(curl -s --max-time 2 --data-binary 'SELECT 1' "http://127.0.0.1:$1/" 2>/dev/null)" = 1 ]
}

ch_start() { # dir [port]: start (reusing the config when it exists)
	local d=$1 try base
	command -v clickhouse-server >/dev/null || { echo "clickhouse-server is not installed (scripts/setup installs it)" >&2; return 1; }
	for try in 1 2 3 4 5; do
		if [ -n "${2:-}" ]; then
			CH_PORT=$2
		else
			base=$((20000 + ($$ * 7 + try * 131 + RANDOM) % 12000))
			CH_PORT=$base
			ch_config "$d" "$base" $((base + 1)) $((base + 2))
		fi
		clickhouse-server --config-file="$d/config.xml" >>"$d/log/stdout" 2>&1 &
		CH_PID=$!
		local i=0
		while [ $i -lt 300 ]; do
			ch_answers "$CH_PORT" && return 0
			kill -0 "$CH_PID" 2>/dev/null || break
			sleep 0.1
			i=$((i + 1))
		done
		kill "$CH_PID" 2>/dev/null
		wait "$CH_PID" 2>/dev/null
		[ -n "${2:-}" ] && break
	done
	echo "clickhouse-server did not answer; its log: $d/log" >&2
	tail -5 "$d/log/clickhouse-server.err.log" >&2 2>/dev/null
	return 1
}

ch_stop() {
	if [ -n "${CH_PID:-}" ]; then
		kill "$CH_PID" 2>/dev/null
		wait "$CH_PID" 2>/dev/null
		CH_PID=
	fi
}

ch_sql() { # SQL: its TabSeparated result
	curl -s --max-time 20 --data-binary "$1" "http://127.0.0.1:$CH_PORT/"
}
