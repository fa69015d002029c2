#!/usr/bin/env bash
# The sipcrypt server's heap per idle SIP-over-TCP connection, or per idle TLS connection for one
# TLS engine, measured with the probe org.sipcrypt.server.testing.IdleConnectionProbe (test classes,
# JDK only). A benchmark, not a test: it prints numbers and fails only when it cannot measure. The
# heap figures do not depend on CPU; a small --connections only shows that it runs.
#
#   1. over TLS make lab certificates (`certs --out DIR`); start the server jar (JAVA_OPTS: a fixed
#      heap and the collector, printed with the result) with a fresh data directory, a UDP listener
#      and a TCP listener (--transport tcp) or a TLS listener on the engine asked (tls.engine, its
#      other TLS settings the defaults: tls.ciphers aes, TLS 1.2 and 1.3, session reuse on) on
#      127.0.0.1, and these bounds raised for the run, as an operator holding that many clients would:
#        tcp.maxConnections            CONNECTIONS + WARMUP + 200 (default 10,000)
#        tcp.maxConnectionsPerSource   CONNECTIONS / SOURCES + WARMUP + 100 (default 1,000)
#        tcp.idleTimeout               the script's own time bound (default 5m; or use --keepalive)
#        tls.sessionCacheSize          (TLS) CONNECTIONS + WARMUP when above its default 10,000, so
#                                      that every connection's session is kept as the first 10,000 are
#      tcp.firstMessageTimeout (10 s after connecting or the handshake) stays: each connection sends its OPTIONS at
#      once. limits.* need nothing: loopback is in limits.allow by default, never rate-limited.
#   2. warm up: WARMUP connections opened the same way and closed (classes loaded, code compiled,
#      one-time state made before the baseline);
#   3. wait SETTLE s, then the baseline: the live heap and live objects after a full GC (jcmd GC.run,
#      then the Total line of jmap -histo:live, which collects again first; under ZGC GC.heap_info's
#      "used" counts pages not yet reclaimed, as scenarios/sipp/memory.sh explains), the process's
#      resident set (VmRSS) and the server's open-connection gauge (its stats line);
#   4. open CONNECTIONS connections from 127.0.0.1 (to 127.0.0.SOURCES, round-robin; each source
#      has the ephemeral ports of /proc/sys/net/ipv4/ip_local_port_range, about 28,000), over TLS
#      each a client of its own (a fresh SSLContext: every handshake a full one, no session resumed)
#      on TLS_VERSION only; each sends one OPTIONS, reads its 200, and stays silent (or pings every
#      KEEPALIVE s); wait SETTLE s and measure again, all held;
#   5. close them all, wait SETTLE s and measure a third time.
# Printed: heap per connection = (held - baseline) / connections the server counted open, objects
# likewise; what is still there after closing (the TLS sessions kept for resumption, and whatever
# else outlives a connection) per connection; RSS growth per connection (off-heap: the openssl
# engine's BoringSSL state is native memory, as are direct buffers; socket buffers are the
# kernel's and counted nowhere here); and the classes that grew most while the connections were held.
#
# Needs the server jar and the test classes: ./mvnw -q -o -pl server package -DskipTests, a JDK
# (jcmd, jmap), and an open-file limit above CONNECTIONS + WARMUP for this shell (ulimit -n; the
# server and the probe each hold one descriptor per connection).
#
# Options (each also an environment variable of the upper-case name, e.g. CONNECTIONS=200):
#   --transport tcp|tls   the connections' transport (default tls)
#   --engine bc|jsse|openssl  the server's TLS engine (required over TLS; none over TCP)
#   --connections N       idle connections held (default 10000)
#   --tls-version 1.2|1.3 the only version the TLS clients offer (default 1.3; env TLS_VERSION)
#   --sources K           source addresses 127.0.0.1 to 127.0.0.K, 1 to 254 (default 1)
#   --warmup N            connections opened and closed before the baseline (default 200; 0: none)
#   --settle N            seconds between each step and its measurement (default 10)
#   --keepalive N         seconds between RFC 5626 CRLF keep-alives on each held connection (default
#                         0: none, the server's idle timeout is raised instead)
#   --timeout N           bound on each connection's connect, handshake and answer (default 10; env OP_TIMEOUT)
#   --deadline N          seconds opening the connections may take in all (default 900)
#   --histo N             classes that grew most, printed (default 12)
#   --server-port N       server UDP port (default 15360); TCP or TLS on +1
#   --jar PATH            server jar (default server/target/sipcrypt-server.jar)
#   --test-classes DIR    test classes (default server/target/test-classes)
#   --keep                keep the work directory (server log, histograms) on exit
# Env only: JAVA (default java), JAVA_OPTS (server JVM; default the recommended -Xms1g -Xmx1g
#   -XX:+UseZGC -XX:+AlwaysPreTouch), PROBE_JAVA_OPTS (the probe's JVM; default -Xmx1g: it holds
#   about 13 KB a TLS connection, less over TCP), SERVER_ARGS (extra server arguments, a word list).
#
# Loopback only. Every java run is bounded by `timeout`, every wait by a deadline; everything started
# is ended by PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"   # JAR, KEEP, JAVA, JAVA_OPTS; usage, die, log, parse_options

PROBE_JAVA_OPTS=${PROBE_JAVA_OPTS:--Xmx1g}
options=("${server_options[@]}"  --server-port SERVER_PORT:-15360
    --transport TRANSPORT:-tls  --engine ENGINE:-  --connections CONNECTIONS:-10000  --tls-version TLS_VERSION:-1.3  --sources SOURCES:-1
    --warmup WARMUP:-200  --settle SETTLE:-10  --keepalive KEEPALIVE:-0  --timeout OP_TIMEOUT:-10
    --deadline DEADLINE:-900  --histo HISTO:-12
    --test-classes TEST_CLASSES:-"$root/server/target/test-classes")
parse_options "$@"

if [[ $TRANSPORT == tls ]]; then
    [[ $ENGINE == bc || $ENGINE == jsse || $ENGINE == openssl ]] || die "--engine: \"$ENGINE\" (expected bc, jsse or openssl)"
elif [[ $TRANSPORT == tcp ]]; then
    [[ -z $ENGINE ]] || die "--engine $ENGINE: a TLS engine, not for --transport tcp"
else
    die "--transport: \"$TRANSPORT\" (expected tcp or tls)"
fi
[[ $TLS_VERSION == 1.2 || $TLS_VERSION == 1.3 ]] || die "--tls-version: \"$TLS_VERSION\" (expected 1.2 or 1.3)"
require_whole_numbers CONNECTIONS SOURCES WARMUP SETTLE KEEPALIVE OP_TIMEOUT DEADLINE HISTO SERVER_PORT
(( CONNECTIONS > 0 && OP_TIMEOUT > 0 && DEADLINE > 0 )) || die "CONNECTIONS, OP_TIMEOUT and DEADLINE must be positive"
(( CONNECTIONS + WARMUP <= 999000 )) || die "--connections $CONNECTIONS: at most 999,000 with the warm-up (tcp.maxConnections is at most 1,000,000)"
(( SOURCES >= 1 && SOURCES <= 254 )) || die "--sources $SOURCES out of 1..254 (127.0.0.1 to 127.0.0.254)"
(( SERVER_PORT >= 1024 && SERVER_PORT <= 65534 )) || die "--server-port $SERVER_PORT out of 1024..65534"
command -v "$JAVA" >/dev/null || die "java not found"
command -v jcmd >/dev/null && command -v jmap >/dev/null || die "jcmd and jmap (a JDK) are needed"
[[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -q -o -pl server package -DskipTests)"
[[ -f $TEST_CLASSES/org/sipcrypt/server/testing/IdleConnectionProbe.class ]] \
    || die "IdleConnectionProbe not compiled under $TEST_CLASSES (build with ./mvnw -q -o -pl server package -DskipTests)"
limit=$(ulimit -n)
[[ $limit == unlimited ]] || (( limit > CONNECTIONS + WARMUP + 300 )) \
    || die "open-file limit $limit is too low for $CONNECTIONS connections (raise it: ulimit -n $((CONNECTIONS + WARMUP + 1000)))"

UDP_PORT=$SERVER_PORT
STREAM_PORT=$((SERVER_PORT + 1))
HOLD=$(( 6 * SETTLE + 600 ))                 # the probe holds at most this long: three measurements and waits
BOUND=$(( DEADLINE + HOLD + 300 ))           # the server's life, and its idle timeout
start_work "idle-$TRANSPORT"
log "work directory $work"

listener=(--listen "tcp:127.0.0.1:$STREAM_PORT")
probe_args=(--transport tcp)
label=tcp
if [[ $TRANSPORT == tls ]]; then
    certs=$work/certs
    log "making lab certificates"
    timeout -k 5 120 "$JAVA" -jar "$JAR" certs --out "$certs" >"$work/certs.log" 2>&1 \
        || die "certs failed: $(tail -3 "$work/certs.log")"
    listener=(--listen "tls:127.0.0.1:$STREAM_PORT" --tls-cert "$certs/server.pem" --tls-key "$certs/server-key.pem"
        --tls-engine "$ENGINE")
    probe_args=(--transport tls --ca "$certs/ca.pem" --tls-version "$TLS_VERSION")
    label="tls, engine $ENGINE"
fi

raised=(--tcp-max-connections $(( CONNECTIONS + WARMUP + 200 ))
    --tcp-max-connections-per-source $(( (CONNECTIONS + SOURCES - 1) / SOURCES + WARMUP + 100 ))
    --tcp-idle-timeout "${BOUND}s")
[[ $TRANSPORT == tls ]] && (( CONNECTIONS + WARMUP > 10000 )) && raised+=(--tls-session-cache-size $(( CONNECTIONS + WARMUP )))

data=$work/data
mkdir -p "$data" && chmod 700 "$data"       # the server warns about a data directory others can read
require_ports_free --server-port udp "$UDP_PORT"
require_ports_free --server-port tcp "$STREAM_PORT"
log "server: $label on $TRANSPORT:127.0.0.1:$STREAM_PORT, $JAVA_OPTS; raised: ${raised[*]} $SERVER_ARGS"
# shellcheck disable=SC2086  # SERVER_ARGS is a word list
start_server "$BOUND" "$work/server.log" "udp tcp:$STREAM_PORT" -- \
    --listen "udp:127.0.0.1:$UDP_PORT" "${listener[@]}" --data-dir "$data" --stats-interval 1s \
    --shutdown-grace 2s "${raised[@]}" $SERVER_ARGS

# Runs the probe; its output in FILE.
probe() {           # file connections hold-seconds [probe-option...]
    local out=$1 n=$2 hold=$3
    shift 3
    # shellcheck disable=SC2086  # PROBE_JAVA_OPTS is a word list
    timeout -k 5 $(( DEADLINE + hold + 60 )) "$JAVA" $PROBE_JAVA_OPTS -cp "$TEST_CLASSES" \
        org.sipcrypt.server.testing.IdleConnectionProbe --target "127.0.0.1:$STREAM_PORT" "${probe_args[@]}" \
        --connections "$n" --sources "$SOURCES" --timeout "$OP_TIMEOUT" \
        --deadline "$DEADLINE" --hold "$hold" "$@" >"$out" 2>&1
}

# The server's open-connection gauge from its latest stats line, written after this call (the
# gauge is left out of the line while it is 0).
open_gauge() {
    local before after
    before=$(grep -c 'stats:' "$work/server.log")
    for _ in $(seq 50); do
        after=$(grep -c 'stats:' "$work/server.log")
        (( after > before )) && break
        sleep 0.1
    done
    (( after > before )) || { echo "?"; return; }
    grep 'stats:' "$work/server.log" | tail -1 \
        | awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^transport\.connections\.open=/) { sub(/.*=/, "", $i); n = $i } print n }'
}

# Measures the server after SETTLE s: sets <name>_bytes, <name>_objects (live heap after a full
# GC), <name>_rss_kb and <name>_open; the histogram goes to histo-<name>.txt.
measure() {         # name
    local name=$1 objects bytes rss open
    sleep "$SETTLE"
    kill -0 "$server_pid" 2>/dev/null || die "the server has stopped: $(tail -3 "$work/server.log")"
    timeout -k 5 120 jcmd "$server_pid" GC.run >/dev/null 2>&1
    timeout -k 5 300 jmap -histo:live "$server_pid" >"$work/histo-$name.txt" 2>/dev/null
    read -r objects bytes < <(awk '/^Total/ { print $2, $3 }' "$work/histo-$name.txt")
    [[ -n ${bytes:-} ]] || die "jmap -histo:live $server_pid gave no Total line (see $work/histo-$name.txt)"
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status")
    open=$(open_gauge)
    printf -v "${name}_bytes" '%s' "$bytes"
    printf -v "${name}_objects" '%s' "$objects"
    printf -v "${name}_rss_kb" '%s' "$rss"
    printf -v "${name}_open" '%s' "$open"
    log "$name: live heap $(( bytes / 1024 )) KB in $objects objects, RSS $rss KB, $open connections open"
}

if (( WARMUP > 0 )); then
    log "warm-up: $WARMUP connections, opened and closed"
    probe "$work/warmup.out" "$WARMUP" 0 || die "the warm-up probe failed: $(tail -3 "$work/warmup.out")"
    log "warm-up: $(head -1 "$work/warmup.out")"
fi
measure before

log "opening $CONNECTIONS connections ($label, from $SOURCES source address(es))"
release=$work/release
probe "$work/probe.out" "$CONNECTIONS" "$HOLD" --release "$release" --keepalive "$KEEPALIVE" &
probe_wrapper=$!
started+=("$probe_wrapper")
held_line=
for _ in $(seq $(( (DEADLINE + 60) * 10 ))); do
    held_line=$(grep -m1 '^held ' "$work/probe.out" 2>/dev/null)
    [[ -n $held_line ]] && break
    kill -0 "$probe_wrapper" 2>/dev/null || break
    sleep 0.1
done
[[ -n $held_line ]] || die "the probe did not report its connections held: $(tail -3 "$work/probe.out")"
log "$(head -1 "$work/probe.out")"
(( ${held_line#held } > 0 )) || die "the probe holds no connection"
measure held

touch "$release"
wait_started "$probe_wrapper" || die "the probe failed while closing: $(tail -3 "$work/probe.out")"
log "$(tail -1 "$work/probe.out")"
measure after

open_now=$held_open
[[ $open_now =~ ^[0-9]+$ ]] || open_now=${held_line#held }   # no stats line: the probe's own count
open_before=$before_open
[[ $open_before =~ ^[0-9]+$ ]] || open_before=0
n=$(( open_now - open_before ))
(( n > 0 )) || die "the server counts no connection open while they were held (before $before_open, held $held_open)"
per() { awk -v a="$1" -v b="$2" -v n="$n" -v f="$3" 'BEGIN { printf f, (a - b) / n }'; }
negotiated=$(head -1 "$work/probe.out" | sed -n 's/.*address(es), \([^;]*\);.*/\1/p')

echo
echo "sipcrypt server, $label, $negotiated; JVM options: $JAVA_OPTS; CPU: $(cpu_model), $(nproc) cores"
echo "raised for the run: ${raised[*]}${SERVER_ARGS:+ $SERVER_ARGS}; keep-alive every ${KEEPALIVE} s (0: none)"
echo "probe: $(head -1 "$work/probe.out")"
echo
echo "| transport, engine | TLS | connections open (server) | live heap before KB | held KB | after closing KB | heap bytes/connection | of which left after closing | objects/connection | RSS growth bytes/connection |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
[[ $TRANSPORT == tls ]] || TLS_VERSION=-
echo "| $label | $TLS_VERSION | $n | $(( before_bytes / 1024 )) | $(( held_bytes / 1024 )) | $(( after_bytes / 1024 ))" \
    "| $(per "$held_bytes" "$before_bytes" %.0f) | $(per "$after_bytes" "$before_bytes" %.0f)" \
    "| $(per "$held_objects" "$before_objects" %.1f) | $(per $(( held_rss_kb * 1024 )) $(( before_rss_kb * 1024 )) %.0f) |"
echo
echo "connections open after closing (server): $after_open"
echo
echo "classes that grew most while held, per connection (jmap -histo:live, held minus before):"
echo
echo "| class | bytes/connection | instances/connection |"
echo "| --- | ---: | ---: |"
awk -v n="$n" '
    FNR == 1 { file++ }
    $1 ~ /^[0-9]+:$/ { if (file == 1) { b[$4] = $3; i[$4] = $2 } else { db[$4] = $3 - b[$4]; di[$4] = $2 - i[$4] } }
    END { for (c in db) if (db[c] > 0) printf "%d\t%s\t%.1f\n", db[c], c, di[c] / n }' \
    "$work/histo-before.txt" "$work/histo-held.txt" | sort -rn | head -"$HISTO" \
    | awk -F'\t' -v n="$n" '{ printf "| `%s` | %.0f | %s |\n", $2, $1 / n, $3 }'
