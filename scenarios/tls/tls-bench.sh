#!/usr/bin/env bash
# What SIP over TLS costs the sipcrypt server per cipher suite, measured with the TLS load driver
# org.sipcrypt.server.testing.TlsCallLoad (test classes). A benchmark, not a test: it prints numbers
# and fails only when it cannot measure.
#
# Lab certificates are made once (`certs --out DIR --san 127.0.0.1,localhost`). Then:
# Part "calls", for each cipher in CIPHERS (aes 3des camellia seed rc4):
#   1. start the server jar with a fresh data directory, a UDP listener and a TLS listener offering
#      only that cipher's suite (the cipher table below), plus the cipher's extra server arguments
#      (SERVER_EXTRA: --tls-allow-insecure for 3des and rc4, --tls-engine bc for camellia and seed),
#   2. start a SIPp UAS on UDP (../sipp/uas.xml) and register it as sip:bench@127.0.0.1
#      (../sipp/register.xml),
#   3. run TlsCallLoad over one persistent TLS connection with the cipher's client arguments
#      (CLIENT_EXTRA: --crypto bc for camellia and seed, --client jsse for rc4): WARMUP_SECONDS of
#      unmeasured calls at RATE calls/s (a fresh JVM compiles its hot code for about a minute), then
#      RATE x MEASURE_SECONDS measured calls at the same open-loop rate; INVITE/180/200/ACK/BYE/200,
#      the UAS behind the proxy on UDP.
#   The server's CPU time (utime + stime of /proc/PID/stat, in CLK_TCK ticks) is read when the load
#   driver prints "WINDOW start" (its first measured INVITE) and "WINDOW end" (its last measured call
#   ended): CPU % is of one core over that window; CPU us per call is that CPU time divided by the
#   successful measured calls. Response time is INVITE sent to 200 read (HdrHistogram).
# Part "handshakes", with the aes suite: HANDSHAKES connections, CONCURRENCY at a time, each a TLS
#   handshake, one OPTIONS to the server and its 200, then closed; after HS_WARMUP_SECONDS of the
#   same unmeasured: "full" (no resumption), "resumed" (every connection offers the session of a
#   first one), and "mutual" (the server restarted with --tls-client-auth need, the client presenting
#   client.pem). Server CPU % and CPU us per handshake over the measured window, as above.
# Then a Markdown table per part.
#
# The server jar, the test classes and HdrHistogram are copied into the work directory at start,
# so a rebuild during the run cannot change what is measured. Needs them built:
#   ./mvnw -q -o -pl server package -DskipTests
# and SIPp (Debian's sip-tester) for the calls part.
#
# Options (each also an environment variable of the upper-case name, e.g. RATE=200):
#   --part calls|handshakes|all  what to measure (default calls)
#   --ciphers "aes 3des camellia seed rc4"  ciphers of the calls part (keys of the tables below; also
#                             aes-bc-jca, aes-bc-bc, 3des-bc for the same suites on the bc engine,
#                             and tcp for the plaintext baseline with the same driver)
#   --rate N                  calls/s, warm-up and measured (default 300)
#   --seconds N               measured seconds per cipher (env MEASURE_SECONDS; default 20)
#   --warmup-seconds N        unmeasured calls first, per cipher (default 60)
#   --call-timeout N          a call not ended after N s fails (default 10)
#   --handshakes N            measured connections per handshake kind (default 2000)
#   --concurrency N           connections at a time in the handshakes part (default 4)
#   --hs-warmup-seconds N     unmeasured handshakes first, per kind (default 20)
#   --hs-client bc|jsse       TLS client of the handshakes part (default bc)
#   --server-port N           server UDP port (default 15160); TLS on +1, UAS on +10, REGISTER on +21
#   --jar PATH                server jar (default server/target/sipcrypt-server.jar)
#   --test-classes DIR        test classes (default server/target/test-classes)
#   --hdr-jar PATH            HdrHistogram jar (default: from ~/.m2, else asked of Maven offline)
#   --keep                    keep the work directory (logs, certificates, driver output) on exit
# Env only: JAVA (default java), JAVA_OPTS (server JVM; default the recommended -Xms1g -Xmx1g
#   -XX:+UseZGC -XX:+AlwaysPreTouch), CLIENT_JAVA_OPTS (load driver JVM),
#   SERVER_ARGS and CLIENT_ARGS (extra arguments for every run), SIPP (default sipp),
#   SERVER_EXTRA_<cipher> and CLIENT_EXTRA_<cipher> (replace a table entry, e.g.
#   SERVER_EXTRA_aes="--tls-engine bc"), SUITE_<cipher> (replace the suite).
#
# Loopback only. Every java and SIPp run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sipp_dir=$root/scenarios/sipp

# Per-cipher settings: the suite offered by both ends, extra server arguments, extra load-driver
# arguments. Camellia and SEED run only on Bouncy Castle's TLS engine with its lightweight crypto;
# RC4 only on SunJSSE (Bouncy Castle 1.82 no longer has it); RC4 and 3DES are refused without the
# lab switch. The -bc rows put the same suite on the server's bc engine (aes, 3des run on jsse by
# default), with SunJCE (jca) or Bouncy Castle's lightweight (bc) crypto for the bulk cipher. The
# tcp row is the plaintext baseline: the same driver and call flow on a TCP listener, no TLS.
# cipher    | suite                             | server extra                                         | driver extra
cipher_table='
aes         | TLS_RSA_WITH_AES_128_CBC_SHA      |                                                      |
3des        | TLS_RSA_WITH_3DES_EDE_CBC_SHA     | --tls-allow-insecure                                 |
camellia    | TLS_RSA_WITH_CAMELLIA_128_CBC_SHA | --tls-engine bc                                      | --crypto bc
seed        | TLS_RSA_WITH_SEED_CBC_SHA         | --tls-engine bc                                      | --crypto bc
rc4         | TLS_RSA_WITH_RC4_128_SHA          | --tls-allow-insecure                                 | --client jsse
aes-bc-jca  | TLS_RSA_WITH_AES_128_CBC_SHA      | --tls-engine bc --tls-crypto jca                     |
aes-bc-bc   | TLS_RSA_WITH_AES_128_CBC_SHA      | --tls-engine bc --tls-crypto bc                      |
3des-bc     | TLS_RSA_WITH_3DES_EDE_CBC_SHA     | --tls-allow-insecure --tls-engine bc --tls-crypto bc |
tcp         |                                   |                                                      | --client tcp
'
declare -A SUITE=() SERVER_EXTRA=() CLIENT_EXTRA=()
while IFS='|' read -r c suite sx cx; do
    read -r c <<<"$c"
    [[ -n $c ]] || continue
    read -r suite <<<"$suite"
    read -r -a sx <<<"$sx"
    read -r -a cx <<<"$cx"
    SUITE[$c]=$suite SERVER_EXTRA[$c]=${sx[*]} CLIENT_EXTRA[$c]=${cx[*]}
done <<<"$cipher_table"

TEST_CLASSES=${TEST_CLASSES:-$root/server/target/test-classes}
HDR_JAR=${HDR_JAR:-}
PART=${PART:-calls}
CIPHERS=${CIPHERS:-aes 3des camellia seed rc4}
RATE=${RATE:-300}
MEASURE_SECONDS=${MEASURE_SECONDS:-20}
WARMUP_SECONDS=${WARMUP_SECONDS:-60}
CALL_TIMEOUT=${CALL_TIMEOUT:-10}
HANDSHAKES=${HANDSHAKES:-2000}
CONCURRENCY=${CONCURRENCY:-4}
HS_WARMUP_SECONDS=${HS_WARMUP_SECONDS:-20}
HS_CLIENT=${HS_CLIENT:-bc}
SERVER_PORT=${SERVER_PORT:-15160}
CLIENT_JAVA_OPTS=${CLIENT_JAVA_OPTS:-}
SERVER_ARGS=${SERVER_ARGS:-}
CLIENT_ARGS=${CLIENT_ARGS:-}

# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"   # JAR, KEEP, JAVA, JAVA_OPTS, SIPP; usage, die, log, parse_options

options=("${server_options[@]}"
    --part PART  --ciphers CIPHERS  --rate RATE  --seconds MEASURE_SECONDS  --warmup-seconds WARMUP_SECONDS
    --call-timeout CALL_TIMEOUT  --handshakes HANDSHAKES  --concurrency CONCURRENCY
    --hs-warmup-seconds HS_WARMUP_SECONDS  --hs-client HS_CLIENT  --test-classes TEST_CLASSES  --hdr-jar HDR_JAR)
parse_options "$@"

[[ $PART == calls || $PART == handshakes || $PART == all ]] || die "--part: \"$PART\" (expected calls, handshakes or all)"
[[ $HS_CLIENT == bc || $HS_CLIENT == jsse ]] || die "--hs-client: \"$HS_CLIENT\" (expected bc or jsse)"
require_whole_numbers RATE MEASURE_SECONDS WARMUP_SECONDS CALL_TIMEOUT HANDSHAKES CONCURRENCY HS_WARMUP_SECONDS SERVER_PORT
(( RATE > 0 && MEASURE_SECONDS > 0 && HANDSHAKES > 0 && CONCURRENCY > 0 && CALL_TIMEOUT > 0 )) \
    || die "RATE, MEASURE_SECONDS, HANDSHAKES, CONCURRENCY and CALL_TIMEOUT must be positive"
(( SERVER_PORT >= 1024 && SERVER_PORT <= 65500 )) || die "--server-port $SERVER_PORT out of 1024..65500"
for c in $CIPHERS; do
    [[ -n ${SUITE[$c]+x} ]] || die "--ciphers: unknown cipher \"$c\" (expected one of: ${!SUITE[*]})"
done
# env overrides of the table entries
for c in "${!SUITE[@]}"; do
    c_=${c//-/_}  # variable names take no dashes: SUITE_aes_bc_jca overrides aes-bc-jca
    v=SUITE_$c_; [[ -n ${!v+x} ]] && SUITE[$c]=${!v}
    v=SERVER_EXTRA_$c_; [[ -n ${!v+x} ]] && SERVER_EXTRA[$c]=${!v}
    v=CLIENT_EXTRA_$c_; [[ -n ${!v+x} ]] && CLIENT_EXTRA[$c]=${!v}
done
command -v "$JAVA" >/dev/null || die "java not found"
[[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -q -o -pl server package -DskipTests)"
[[ -f $TEST_CLASSES/org/sipcrypt/server/testing/TlsCallLoad.class ]] \
    || die "TlsCallLoad not compiled under $TEST_CLASSES (build with ./mvnw -q -o -pl server package -DskipTests)"
if [[ $PART != handshakes ]]; then
    command -v "$SIPP" >/dev/null || die "SIPp not found: install it with 'apt-get install -y sip-tester'"
fi
if [[ -z $HDR_JAR ]]; then
    HDR_JAR=$(ls "$HOME"/.m2/repository/org/hdrhistogram/HdrHistogram/*/HdrHistogram-*.jar 2>/dev/null | sort -V | tail -1)
fi
if [[ -z $HDR_JAR ]]; then
    cpfile=$(mktemp -t sipcrypt-tls-cp.XXXXXX)
    (cd "$root" && timeout 300 ./mvnw -q -o -pl server dependency:build-classpath -Dmdep.outputFile="$cpfile" \
        -Dmdep.includeScope=test >/dev/null 2>&1)
    HDR_JAR=$(tr ':' '\n' <"$cpfile" | grep -m1 '/HdrHistogram-[^/]*\.jar$')
    rm -f "$cpfile"
fi
[[ -n $HDR_JAR && -f $HDR_JAR ]] || die "HdrHistogram jar not found (--hdr-jar PATH)"

UDP_PORT=$SERVER_PORT
TLS_PORT=$((SERVER_PORT + 1))
sipp_ports "$SERVER_PORT"
CLK_TCK=$(getconf CLK_TCK)
start_work tls-bench

# value of key $1 in a RESULT line $2 ("-" when absent)
kv() { awk -v k="$1" '{ for (i = 1; i <= NF; i++) { n = index($i, "="); if (substr($i, 1, n - 1) == k) { print substr($i, n + 1); exit } } print "-" }' <<<"$2"; }

# A copy of what is measured, so that a rebuild during the run cannot change it.
mkdir -p "$work/lib"
cp "$JAR" "$work/lib/sipcrypt-server.jar" || die "cannot copy $JAR"
cp -r "$TEST_CLASSES" "$work/lib/test-classes" || die "cannot copy $TEST_CLASSES"
cp "$HDR_JAR" "$work/lib/" || die "cannot copy $HDR_JAR"
JAR=$work/lib/sipcrypt-server.jar
client_cp=$work/lib/test-classes:$JAR:$work/lib/$(basename "$HDR_JAR")
certs=$work/certs

log "work directory $work; making lab certificates"
timeout -k 5 120 "$JAVA" -jar "$JAR" certs --out "$certs" --san 127.0.0.1,localhost >"$work/certs.log" 2>&1 \
    || die "certs failed: $(tail -3 "$work/certs.log")"

# Starts the server offering one suite; sets server_wrapper, server_pid, server_log. Returns 1 (with
# server_error set) when it does not come up, e.g. because it refuses the suite.
start_tls_server() {    # tag suite bound-seconds extra-args...
    local tag=$1 suite=$2 bound=$3
    shift 3
    local data=$work/$tag-data
    server_log=$work/$tag-server.log
    server_error=
    mkdir -p "$data"
    require_ports_free --server-port udp "$UDP_PORT"
    require_ports_free --server-port tcp "$TLS_PORT"
    # no suite: the plaintext baseline, a TCP listener on the same port
    local stream=(--listen "tls:127.0.0.1:$TLS_PORT" --tls-cert "$certs/server.pem" --tls-key "$certs/server-key.pem"
        --tls-trust "$certs/ca.pem" --tls-ciphers "$suite")
    [[ -z $suite ]] && stream=(--listen "tcp:127.0.0.1:$TLS_PORT")
    # shellcheck disable=SC2086  # SERVER_ARGS is a word list
    if ! try_start_server "$bound" "$server_log" "udp tcp:$TLS_PORT" -- \
            --listen "udp:127.0.0.1:$UDP_PORT" "${stream[@]}" --data-dir "$data" --shutdown-grace 2s "$@" $SERVER_ARGS; then
        server_error=$(grep -m1 -E '^sipcrypt: | ERROR ' "$server_log" | cut -c1-200)
        [[ -n $server_error ]] || server_error=$(grep -v -E '^[0-9:.]+ +(DEBUG|INFO) ' "$server_log" | tail -1 | cut -c1-200)
        [[ -n $server_error ]] || server_error="not listening on udp/tls after 30 s"
        return 1
    fi
    log "$tag: server pid $server_pid on udp:127.0.0.1:$UDP_PORT tls:127.0.0.1:$TLS_PORT ($suite $*)"
}

# The server log's problems, for the note column: ERROR and WARN lines (the lab switch's warning
# about insecure suites is expected and not counted).
server_log_note() {  # log-file
    local errors warns
    errors=$(grep -c ' ERROR ' "$1")
    warns=$(grep ' WARN ' "$1" | grep -vc 'insecure')
    (( errors + warns > 0 )) && echo "server log: $errors ERROR, $warns WARN lines"
}

# Runs the load driver; reads the server's (and the driver's) CPU time at its window markers.
# Sets result (its RESULT line), win_ms, srv_ticks, drv_ticks, client_rc.
run_client() {      # tag bound-seconds driver-args...
    local tag=$1 bound=$2
    shift 2
    local fifo=$work/$tag.fifo line t0= t1= c0= c1= d0= d1= driver_pid=
    mkfifo "$fifo" || die "mkfifo $fifo failed"
    # shellcheck disable=SC2086  # CLIENT_JAVA_OPTS and CLIENT_ARGS are word lists
    timeout -k 5 "$bound" "$JAVA" $CLIENT_JAVA_OPTS -cp "$client_cp" org.sipcrypt.server.testing.TlsCallLoad \
        --target "127.0.0.1:$TLS_PORT" --trust "$certs/ca.pem" "$@" $CLIENT_ARGS >"$fifo" 2>"$work/$tag-driver.log" &
    local wrapper=$!
    started+=("$wrapper")
    result=
    while IFS= read -r line; do
        echo "$line" >>"$work/$tag-driver.out"
        case $line in
            "WINDOW start"*)
                t0=$(now_ns) c0=$(cpu_ticks "$server_pid")
                driver_pid=$(child_of "$wrapper") d0=$(cpu_ticks "$driver_pid") ;;
            "WINDOW end"*)
                t1=$(now_ns) c1=$(cpu_ticks "$server_pid") d1=$(cpu_ticks "$driver_pid") ;;
            RESULT*) result=$line ;;
        esac
    done <"$fifo"
    client_rc=0
    wait_started "$wrapper" || client_rc=$?
    rm -f "$fifo"
    if [[ -n $t0 && -n $t1 ]]; then
        win_ms=$(( (t1 - t0) / 1000000 )) srv_ticks=$((c1 - c0)) drv_ticks=$((d1 - d0))
    else
        win_ms=0 srv_ticks=0 drv_ticks=0
    fi
    (( client_rc == 0 )) || log "$tag: load driver exit $client_rc: $(tail -2 "$work/$tag-driver.log")"
}

# CPU % of one core over the window, and CPU us per operation: "pct us"
cpu_figures() {     # ticks window-ms operations
    awk -v t="$1" -v w="$2" -v n="$3" -v tck="$CLK_TCK" 'BEGIN {
        printf "%s %s\n", (w > 0 ? sprintf("%.0f", 100.0 * (t / tck) / (w / 1000.0)) : "-"),
                          (n > 0 ? sprintf("%.0f", (t / tck) * 1e6 / n) : "-") }'
}

call_rows=()
hs_rows=()
hs_notes=()

if [[ $PART == calls || $PART == all ]]; then
    calls=$(( RATE * MEASURE_SECONDS ))
    bound=$(( WARMUP_SECONDS + MEASURE_SECONDS + CALL_TIMEOUT + 60 ))
    for c in $CIPHERS; do
        suite=${SUITE[$c]}
        read -r -a sx <<<"${SERVER_EXTRA[$c]}"
        read -r -a cx <<<"${CLIENT_EXTRA[$c]}"
        sargs=${SERVER_EXTRA[$c]:--} cargs=${CLIENT_EXTRA[$c]:--}
        if ! start_tls_server "calls-$c" "$suite" "$((bound + 60))" "${sx[@]}"; then
            log "$c: server did not start: $server_error"
            call_rows+=("| $c | $suite | \`$sargs\` | \`$cargs\` | - | - | - | - | - | - | - | - | - | server refused to start: ${server_error//|/\\|} |")
            continue
        fi
        start_uas "$((bound + 30))" udp "$work/calls-$c"
        register_uas udp "$work/calls-$c" -sf "$sipp_dir/register.xml" -s bench
        log "$c: ${WARMUP_SECONDS}s warm-up, then $calls calls at $RATE/s"
        suite_arg=()
        [[ -n $suite ]] && suite_arg=(--suite "$suite")
        run_client "calls-$c" "$bound" "${suite_arg[@]}" --calls "$calls" --rate "$RATE" \
            --warmup-seconds "$WARMUP_SECONDS" --call-timeout "$CALL_TIMEOUT" "${cx[@]}"
        stop_pid "$uas_wrapper"
        stop_pid "$server_wrapper"
        note=$(server_log_note "$server_log")
        if [[ -z $result ]]; then
            call_rows+=("| $c | $suite | \`$sargs\` | \`$cargs\` | - | - | - | - | - | - | - | - | - | no result (driver exit $client_rc: $(tail -1 "$work/calls-$c-driver.log" | cut -c1-150 | tr '|' '/'))${note:+; $note} |")
            continue
        fi
        ok=$(kv calls_ok "$result")
        read -r pct us < <(cpu_figures "$srv_ticks" "$win_ms" "$ok")
        read -r dpct _ < <(cpu_figures "$drv_ticks" "$win_ms" 0)
        fails=$(kv failures "$result")
        [[ $fails == none ]] || note="${note:+$note; }failures $fails"
        [[ $(kv requests_in "$result") == none ]] || note="${note:+$note; }requests from the proxy $(kv requests_in "$result")"
        [[ $(kv lost "$result") == yes ]] && note="${note:+$note; }connection lost (see driver log)"
        [[ $(kv suite "$result") == "$suite" ]] || note="${note:+$note; }negotiated $(kv suite "$result")"
        log "$c: $result"
        call_rows+=("| $c | $suite | \`$sargs\` | \`$cargs\` | $ok | $(kv calls_failed "$result") | $(kv offered_cps "$result") | $(kv achieved_cps "$result") | $pct | $us | $(kv p50_ms "$result") | $(kv p99_ms "$result") | $dpct | ${note:-} |")
        sleep 1
    done
fi

if [[ $PART == handshakes || $PART == all ]]; then
    suite=${SUITE[aes]}
    read -r -a sx <<<"${SERVER_EXTRA[aes]}"
    bound=$(( HS_WARMUP_SECONDS + HANDSHAKES * 2 / CONCURRENCY + 120 ))
    for kind in full resumed mutual; do
        cargs=(--client "$HS_CLIENT")
        server_kind=plain
        case $kind in
            resumed) cargs+=(--resume) ;;
            mutual) cargs+=(--cert "$certs/client.pem" --key "$certs/client-key.pem"); server_kind=mutual ;;
        esac
        if [[ $kind != resumed ]]; then      # full and resumed share one server; mutual needs its own
            [[ $kind == mutual ]] && stop_pid "$server_wrapper"
            extra=("${sx[@]}")
            [[ $server_kind == mutual ]] && extra+=(--tls-client-auth need)
            hs_server_up=1
            if ! start_tls_server "hs-$server_kind" "$suite" "$(( 3 * bound + 60 ))" "${extra[@]}"; then
                hs_server_up=0
                hs_server_error=$server_error
            fi
        fi
        if (( ! hs_server_up )); then
            hs_rows+=("| $kind | $suite | \`${extra[*]:--}\` | \`${cargs[*]//$certs\//}\` | - | - | - | - | - | - | - | - | server refused to start: ${hs_server_error//|/\\|} |")
            continue
        fi
        log "handshakes $kind: ${HS_WARMUP_SECONDS}s warm-up, then $HANDSHAKES connections, $CONCURRENCY at a time"
        run_client "hs-$kind" "$bound" --suite "$suite" --handshakes "$HANDSHAKES" --concurrency "$CONCURRENCY" \
            --warmup-seconds "$HS_WARMUP_SECONDS" "${cargs[@]}"
        note=
        if [[ -z $result ]]; then
            hs_rows+=("| $kind | $suite | \`${extra[*]:--}\` | \`${cargs[*]//$certs\//}\` | - | - | - | - | - | - | - | - | no result (driver exit $client_rc: $(tail -1 "$work/hs-$kind-driver.log" | cut -c1-150 | tr '|' '/')) |")
            continue
        fi
        ok=$(kv handshakes "$result")
        read -r pct us < <(cpu_figures "$srv_ticks" "$win_ms" "$ok")
        fails=$(kv failures "$result")
        [[ $fails == none ]] || note="failures $fails"
        log "handshakes $kind: $result"
        hs_rows+=("| $kind | $suite | \`${extra[*]:--}\` | \`${cargs[*]//$certs\//}\` | $ok | $(kv failed "$result") | $(kv resumed "$result") | $(kv hs_per_s "$result") | $pct | $us | $(kv p50_ms "$result") | $(kv p99_ms "$result") | ${note:-} |")
    done
    (( hs_server_up )) && stop_pid "$server_wrapper"
    for f in "$work"/hs-*-server.log; do
        note=$(server_log_note "$f")
        [[ -n $note ]] && hs_notes+=("$(basename "$f" .log): $note")
    done
fi

echo
echo "sipcrypt over TLS, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); server CPU % is of one core over the measured window"
if (( ${#call_rows[@]} > 0 )); then
    echo
    echo "Calls: one TLS connection from the load driver, SIPp UAS on UDP behind the proxy; ${WARMUP_SECONDS} s warm-up, then $(( RATE * MEASURE_SECONDS )) calls at $RATE calls/s (open loop); response time INVITE -> 200"
    echo
    echo "| cipher | suite | server args | driver args | calls ok | failed | offered calls/s | achieved calls/s | server CPU % | server CPU µs per call | p50 ms | p99 ms | driver CPU % | note |"
    echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${call_rows[@]}"
fi
if (( ${#hs_rows[@]} > 0 )); then
    echo
    echo "Handshakes: $HANDSHAKES connections, $CONCURRENCY at a time, each handshake + OPTIONS + 200 + close, after ${HS_WARMUP_SECONDS} s warm-up; time is TCP connect to handshake done"
    echo
    echo "| kind | suite | server args | driver args | handshakes ok | failed | resumed | handshakes/s | server CPU % | server CPU µs per handshake | p50 ms | p99 ms | note |"
    echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${hs_rows[@]}"
    (( ${#hs_notes[@]} > 0 )) && { echo; printf '%s\n' "${hs_notes[@]}"; }
fi
exit 0
