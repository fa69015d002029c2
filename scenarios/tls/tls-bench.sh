#!/usr/bin/env bash
# What SIP over TLS costs the sipcrypt server per cipher suite, measured with the lab's load
# generator (`java -jar crypto-lab/target/sipcrypt-lab.jar uac`). A benchmark, not a test: it prints
# numbers and fails only when it cannot measure.
#
# Lab certificates are made once (`certs --out DIR --san 127.0.0.1,localhost`). Then:
# Part "calls", for each cipher in CIPHERS (aes 3des camellia seed rc4):
#   1. start the server jar with a fresh data directory, a UDP listener and a TLS listener offering
#      only that cipher's suite (the cipher table below), plus the cipher's extra server arguments
#      (SERVER_EXTRA: --tls-allow-insecure for 3des and rc4, --tls-engine bc for camellia and seed),
#   2. start a SIPp UAS on UDP (../sipp/uas.xml) and register it as sip:bench@127.0.0.1
#      (../sipp/register.xml),
#   3. run `uac --transport tls --connection persistent --cipher SUITE` (the tcp row: --transport tcp)
#      with the cipher's generator arguments (CLIENT_EXTRA: --allow-insecure for 3des and rc4,
#      --crypto bc for camellia and seed; the generator's TLS engine is otherwise its default, the
#      first that runs the suite, jsse first): WARMUP_SECONDS of unmeasured calls at RATE calls/s (a
#      fresh JVM compiles its hot code for about a minute), then MEASURE_SECONDS of measured calls at
#      the same open-loop rate; INVITE/180/200/ACK/BYE/200 to sip:bench@127.0.0.1, the UAS behind the
#      proxy on UDP.
# Part "handshakes", with the aes suite: `uac --workload options --connection per-call`, each
#   operation a TLS connection of its own with a handshake, one OPTIONS to the server itself and
#   its 200, then closed; HANDSHAKES connections at HS_RATE a second (open loop) after
#   HS_WARMUP_SECONDS of the same unmeasured: "full" (--session-reuse off), "resumed" (--session-reuse
#   on: the generator keeps the sessions the server grants and offers them again), and "mutual" (the
#   server restarted with --tls-client-auth need, the generator presenting client.pem, reuse off).
#   The generator's TLS engine is HS_CLIENT.
# How the server's CPU is measured: the uac prints a sample line every SAMPLE_SECONDS, marked
#   "(warm-up)" while the interval began in the warm-up, and a summary when its run has ended (every
#   measured operation completed or failed). Its measured part begins at the last warm-up sample
#   line (the lab's own runner starts its server CPU there too) and ends at the summary line; at
#   each of these two lines the script reads the server's CPU time (utime + stime of
#   /proc/PID/stat, in CLK_TCK ticks) and the clock. CPU % is of one core over that window; CPU µs
#   per call (per handshake) is that CPU time divided by the completed measured operations. The
#   window ends at most SAMPLE_SECONDS after the last operation. The generator's own CPU % is the
#   uac's summary figure over the same part; response times are from the uac's summary (`--json`):
#   from the moment an operation was due to its first 200 (so they include the generator's lag and,
#   per-call, the TCP connect and the TLS handshake). Operations due in the measured part are
#   RATE x MEASURE_SECONDS (HANDSHAKES), those still unanswered after CALL_TIMEOUT fail.
# Then a Markdown table per part.
#
# The server jar and the lab jar are copied into the work directory at start, so a rebuild during
# the run cannot change what is measured. Needs both built:
#   ./mvnw -q -o -pl crypto-lab -am package -DskipTests
# and SIPp (Debian's sip-tester) for the calls part.
#
# Options (each also an environment variable of the upper-case name, e.g. RATE=200):
#   --part calls|handshakes|all  what to measure (default calls)
#   --ciphers "aes 3des camellia seed rc4"  ciphers of the calls part (keys of the tables below; also
#                             aes-bc-jca, aes-bc-bc, 3des-bc for the same suites on the bc engine,
#                             and tcp for the plaintext baseline with the same generator)
#   --rate N                  calls/s, warm-up and measured (default 300)
#   --seconds N               measured seconds per cipher (env MEASURE_SECONDS; default 20)
#   --warmup-seconds N        unmeasured calls first, per cipher, at least 1 (default 60)
#   --call-timeout N          an operation not ended after N s fails; also the bound on a connection's
#                             connect and handshake (default 10)
#   --handshakes N            measured connections per handshake kind (default 2000)
#   --hs-rate N               connections/s of the handshakes part, warm-up and measured (default 100)
#   --hs-warmup-seconds N     unmeasured connections first, per kind, at least 1 (default 20)
#   --hs-client bc|jsse       the generator's TLS engine in the handshakes part (default bc)
#   --concurrency N           refused: the lab's generator is open loop, set --hs-rate instead (the
#                             connections open at a time are the rate times the time each takes)
#   --server-port N           server UDP port (default 15160); TLS on +1, UAS on +10, REGISTER on +21
#   --jar PATH                server jar (default server/target/sipcrypt-server.jar)
#   --lab-jar PATH            lab jar (default crypto-lab/target/sipcrypt-lab.jar)
#   --keep                    keep the work directory (logs, certificates, generator output) on exit
# Env only: JAVA (default java), JAVA_OPTS (server JVM; default the recommended -Xms1g -Xmx1g
#   -XX:+UseZGC -XX:+AlwaysPreTouch), CLIENT_JAVA_OPTS (generator JVM), SERVER_ARGS and
#   CLIENT_ARGS (extra arguments for every server and every uac run, e.g. CLIENT_ARGS="--max-failed-pct
#   100" to measure a run the failure threshold would stop), SIPP (default sipp), SAMPLE_SECONDS (the
#   uac's sample interval; default 0.1), SERVER_EXTRA_<cipher> and CLIENT_EXTRA_<cipher> (replace a
#   table entry, e.g. SERVER_EXTRA_aes="--tls-engine bc"), SUITE_<cipher> (replace the suite).
#
# Loopback only. Every java and SIPp run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sipp_dir=$root/scenarios/sipp

# Per-cipher settings: the suite offered by both ends, extra server arguments, extra generator
# arguments. Camellia and SEED run only on Bouncy Castle's TLS engine, here with its lightweight
# crypto; RC4 only on SunJSSE (Bouncy Castle 1.82 no longer has it); RC4 and 3DES are refused by both
# ends without their lab switches. The -bc rows put the same suite on the server's bc engine (aes,
# 3des run on jsse by default), with SunJCE (jca) or Bouncy Castle's lightweight (bc) crypto for the
# bulk cipher. The tcp row is the plaintext baseline: the same generator and call flow on a TCP
# listener, no TLS.
# cipher    | suite                             | server extra                                         | generator extra
cipher_table='
aes         | TLS_RSA_WITH_AES_128_CBC_SHA      |                                                      |
3des        | TLS_RSA_WITH_3DES_EDE_CBC_SHA     | --tls-allow-insecure                                 | --allow-insecure
camellia    | TLS_RSA_WITH_CAMELLIA_128_CBC_SHA | --tls-engine bc                                      | --crypto bc
seed        | TLS_RSA_WITH_SEED_CBC_SHA         | --tls-engine bc                                      | --crypto bc
rc4         | TLS_RSA_WITH_RC4_128_SHA          | --tls-allow-insecure                                 | --allow-insecure
aes-bc-jca  | TLS_RSA_WITH_AES_128_CBC_SHA      | --tls-engine bc --tls-crypto jca                     |
aes-bc-bc   | TLS_RSA_WITH_AES_128_CBC_SHA      | --tls-engine bc --tls-crypto bc                      |
3des-bc     | TLS_RSA_WITH_3DES_EDE_CBC_SHA     | --tls-allow-insecure --tls-engine bc --tls-crypto bc | --allow-insecure
tcp         |                                   |                                                      |
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

SAMPLE_SECONDS=${SAMPLE_SECONDS:-0.1}
CLIENT_JAVA_OPTS=${CLIENT_JAVA_OPTS:-}
CLIENT_ARGS=${CLIENT_ARGS:-}
concurrency_given=

# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"   # JAR, KEEP, JAVA, JAVA_OPTS, SIPP; usage, die, log, parse_options

options=("${server_options[@]}"  --server-port SERVER_PORT:-15160
    --part PART:-calls  --ciphers CIPHERS:-"aes 3des camellia seed rc4"  --rate RATE:-300
    --seconds MEASURE_SECONDS:-20  --warmup-seconds WARMUP_SECONDS:-60  --call-timeout CALL_TIMEOUT:-10
    --handshakes HANDSHAKES:-2000  --hs-rate HS_RATE:-100  --hs-warmup-seconds HS_WARMUP_SECONDS:-20
    --hs-client HS_CLIENT:-bc  --concurrency concurrency_given
    --lab-jar LAB_JAR:-"$root/crypto-lab/target/sipcrypt-lab.jar")
parse_options "$@"

[[ -z $concurrency_given ]] || die "--concurrency: the lab's generator is open loop: set the handshakes part's rate" \
    "with --hs-rate (the connections open at a time are the rate times the time each takes)"
[[ $PART == calls || $PART == handshakes || $PART == all ]] || die "--part: \"$PART\" (expected calls, handshakes or all)"
[[ $HS_CLIENT == bc || $HS_CLIENT == jsse ]] || die "--hs-client: \"$HS_CLIENT\" (expected bc or jsse)"
require_whole_numbers RATE MEASURE_SECONDS WARMUP_SECONDS CALL_TIMEOUT HANDSHAKES HS_RATE HS_WARMUP_SECONDS SERVER_PORT
(( RATE > 0 && MEASURE_SECONDS > 0 && HANDSHAKES > 0 && HS_RATE > 0 && CALL_TIMEOUT > 0 )) \
    || die "RATE, MEASURE_SECONDS, HANDSHAKES, HS_RATE and CALL_TIMEOUT must be positive"
# the uac's measured part begins at its last warm-up sample line: without a warm-up there is none
[[ $PART == handshakes ]] || (( WARMUP_SECONDS > 0 )) \
    || die "--warmup-seconds: 0 (expected at least 1: the window starts at the generator's last warm-up sample)"
[[ $PART == calls ]] || (( HS_WARMUP_SECONDS > 0 )) \
    || die "--hs-warmup-seconds: 0 (expected at least 1: the window starts at the generator's last warm-up sample)"
if ! [[ $SAMPLE_SECONDS =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v s="$SAMPLE_SECONDS" 'BEGIN { exit !(s >= 0.01 && s <= 10) }'; then
    die "SAMPLE_SECONDS: \"$SAMPLE_SECONDS\" (expected 0.01 to 10 seconds)"
fi
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
[[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -q -o -pl crypto-lab -am package -DskipTests)"
[[ -f $LAB_JAR ]] || die "lab jar $LAB_JAR not found (build it with ./mvnw -q -o -pl crypto-lab -am package -DskipTests)"
if [[ $PART != handshakes ]]; then
    command -v "$SIPP" >/dev/null || die "SIPp not found: install it with 'apt-get install -y sip-tester'"
fi

UDP_PORT=$SERVER_PORT
TLS_PORT=$((SERVER_PORT + 1))
sipp_ports "$SERVER_PORT"
CLK_TCK=$(getconf CLK_TCK)
start_work tls-bench

# A copy of what is measured, so that a rebuild during the run cannot change it.
mkdir -p "$work/lib"
cp "$JAR" "$work/lib/sipcrypt-server.jar" || die "cannot copy $JAR"
cp "$LAB_JAR" "$work/lib/sipcrypt-lab.jar" || die "cannot copy $LAB_JAR"
JAR=$work/lib/sipcrypt-server.jar
LAB_JAR=$work/lib/sipcrypt-lab.jar
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
    mkdir -p "$data" && chmod 700 "$data"     # the server warns about a data directory others can read
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

# Runs the lab's uac against the server's stream port, its sample lines through a FIFO; reads the
# server's CPU time at the last warm-up sample line and at the summary line (see the header). Sets
# summary (the summary object of its --json file, one line, empty without one), win_ms, srv_ticks,
# client_rc.
run_uac() {         # tag bound-seconds uac-args...
    local tag=$1 bound=$2
    shift 2
    local fifo=$work/$tag.fifo json=$work/$tag.json line t0='' t1='' c0='' c1=''
    mkfifo "$fifo" || die "mkfifo $fifo failed"
    # shellcheck disable=SC2086  # CLIENT_JAVA_OPTS and CLIENT_ARGS are word lists
    timeout -k 5 "$bound" "$JAVA" $CLIENT_JAVA_OPTS -jar "$LAB_JAR" uac --target "127.0.0.1:$TLS_PORT" \
        --interval "$SAMPLE_SECONDS" --call-timeout "$CALL_TIMEOUT" --json "$json" "$@" $CLIENT_ARGS \
        >"$fifo" 2>"$work/$tag-uac.log" &
    local wrapper=$!
    started+=("$wrapper")
    while IFS= read -r line; do
        echo "$line" >>"$work/$tag-uac.out"
        case $line in
            *"s (warm-up) offered "*) t0=$(now_ns) c0=$(cpu_ticks "$server_pid") ;;
            "summary: "*) t1=$(now_ns) c1=$(cpu_ticks "$server_pid") ;;
        esac
    done <"$fifo"
    client_rc=0
    wait_started "$wrapper" || client_rc=$?
    rm -f "$fifo"
    summary=$(grep -m1 '^"summary":' "$json" 2>/dev/null)
    if [[ -n $t0 && -n $t1 ]]; then
        win_ms=$(( (t1 - t0) / 1000000 )) srv_ticks=$((c1 - c0))
    else
        win_ms=0 srv_ticks=0
    fi
    (( client_rc == 0 )) || log "$tag: uac exit $client_rc: $(tail -2 "$work/$tag-uac.log")"
}

# A member of the summary object: a number or true/false as written, "-" when absent
jv() {              # key
    local v
    v=$(grep -o "\"$1\":[^,}]*" <<<"$summary" | head -1)
    [[ -n $v ]] && echo "${v#*:}" || echo -
}

# The summary's failure causes as "cause:count,...", or "none"
causes() {
    local c
    c=$(sed -n 's/.*"causes":{\([^}]*\)}.*/\1/p' <<<"$summary" | tr -d '"')
    echo "${c:-none}"
}

# What the summary says beyond the figures, for the note column: failures, an early stop, a
# saturated generator, and a uac exit other than a run that passed (0) or failed (1).
summary_note() {
    local n='' stopped
    [[ $(causes) == none ]] || n="failures $(causes)"
    stopped=$(sed -n 's/.*"stoppedEarly":"\([^"]*\)".*/\1/p' <<<"$summary")
    [[ -n $stopped ]] && n="${n:+$n; }stopped early: $stopped"
    [[ $(jv saturated) == true ]] && n="${n:+$n; }generator saturated (CPU $(jv cpuPercent) % of $(jv cores) cores, arrivals up to $(jv maxArrivalLagMs) ms late)"
    (( client_rc <= 1 )) || n="${n:+$n; }uac exit $client_rc"
    echo "$n"
}

# CPU % of one core over the window, and CPU us per operation: "pct us"
cpu_figures() {     # ticks window-ms operations
    awk -v t="$1" -v w="$2" -v n="$3" -v tck="$CLK_TCK" 'BEGIN {
        printf "%s %s\n", (w > 0 ? sprintf("%.0f", 100.0 * (t / tck) / (w / 1000.0)) : "-"),
                          (n > 0 ? sprintf("%.0f", (t / tck) * 1e6 / n) : "-") }'
}

# The figures of the last run_uac: sets ok (completed operations), pct and us (server CPU % and µs
# per completed operation), offered and achieved (operations a second of the measured part), dpct
# (the generator's CPU %)
run_figures() {
    ok=$(jv completed)
    read -r pct us < <(cpu_figures "$srv_ticks" "$win_ms" "$ok")
    read -r offered achieved dpct < <(awk -v o="$(jv offered)" -v c="$ok" -v s="$(jv seconds)" \
        -v cpu="$(jv cpuPercent)" 'BEGIN {
        printf "%s %s %s\n", (s > 0 ? sprintf("%.1f", o / s) : "-"), (s > 0 ? sprintf("%.1f", c / s) : "-"),
                             (cpu >= 0 ? sprintf("%.0f", cpu) : "-") }')
}

# N empty table cells, for a row without figures
dashes() {          # N
    local i s=''
    for (( i = 0; i < $1; i++ )); do s+="- | "; done
    echo "$s"
}

# The note of a row whose uac run left no summary: its exit code and why (a bad argument: the
# first line of its log, before the usage; a connection it could not set up: its "uac:" line;
# else the log's last line)
no_result() {       # tag
    local log=$work/$1-uac.log why
    why=$(grep -m1 '^uac: ' "$log")
    (( client_rc == 2 )) && why=$(head -1 "$log")
    [[ -n $why ]] || why=$(tail -1 "$log")
    echo "no result (uac exit $client_rc: $(cut -c1-150 <<<"$why" | tr '|' '/'))"
}

call_rows=()
hs_rows=()
hs_notes=()

if [[ $PART == calls || $PART == all ]]; then
    bound=$(( WARMUP_SECONDS + MEASURE_SECONDS + 4 * CALL_TIMEOUT + 60 ))
    for c in $CIPHERS; do
        suite=${SUITE[$c]}
        read -r -a sx <<<"${SERVER_EXTRA[$c]}"
        read -r -a cx <<<"${CLIENT_EXTRA[$c]}"
        sargs=${SERVER_EXTRA[$c]:--} cargs=${CLIENT_EXTRA[$c]:--}
        if ! start_tls_server "calls-$c" "$suite" "$((bound + 60))" "${sx[@]}"; then
            log "$c: server did not start: $server_error"
            call_rows+=("| $c | $suite | \`$sargs\` | \`$cargs\` | $(dashes 9)server refused to start: ${server_error//|/\\|} |")
            continue
        fi
        start_uas "$((bound + 30))" udp "$work/calls-$c"
        register_uas udp "$work/calls-$c" -sf "$sipp_dir/register.xml" -s bench
        log "$c: ${WARMUP_SECONDS}s warm-up, then ${MEASURE_SECONDS}s of calls at $RATE/s"
        stream=(--transport tls --connection persistent --cipher "$suite" --trust "$certs/ca.pem")
        [[ -z $suite ]] && stream=(--transport tcp --connection persistent)
        run_uac "calls-$c" "$bound" "${stream[@]}" --uri sip:bench@127.0.0.1 --rate "$RATE" \
            --warmup "$WARMUP_SECONDS" --duration "$MEASURE_SECONDS" "${cx[@]}"
        stop_pid "$uas_wrapper"
        stop_pid "$server_wrapper"
        note=$(server_log_note "$server_log")
        if [[ -z $summary ]]; then
            call_rows+=("| $c | $suite | \`$sargs\` | \`$cargs\` | $(dashes 9)$(no_result "calls-$c")${note:+; $note} |")
            continue
        fi
        run_figures
        more=$(summary_note)
        note=${note:+$note${more:+; }}$more
        log "$c: $ok calls ok, $(jv failed) failed, server CPU $pct % ($us us per call) over ${win_ms} ms"
        call_rows+=("| $c | $suite | \`$sargs\` | \`$cargs\` | $ok | $(jv failed) | $offered | $achieved | $pct | $us | $(jv crtP50Ms) | $(jv crtP99Ms) | $dpct | ${note:-} |")
        sleep 1
    done
fi

if [[ $PART == handshakes || $PART == all ]]; then
    suite=${SUITE[aes]}
    read -r -a sx <<<"${SERVER_EXTRA[aes]}"
    hs_seconds=$(awk -v n="$HANDSHAKES" -v r="$HS_RATE" 'BEGIN { printf "%.3f", n / r }')
    bound=$(( HS_WARMUP_SECONDS + (HANDSHAKES + HS_RATE - 1) / HS_RATE + 4 * CALL_TIMEOUT + 60 ))
    for kind in full resumed mutual; do
        cargs=(--tls-engine "$HS_CLIENT")
        server_kind=plain
        case $kind in
            full) cargs+=(--session-reuse off) ;;
            resumed) cargs+=(--session-reuse on) ;;
            mutual) cargs+=(--session-reuse off --cert "$certs/client.pem" --key "$certs/client-key.pem"); server_kind=mutual ;;
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
            hs_rows+=("| $kind | $suite | \`${extra[*]:--}\` | \`${cargs[*]//$certs\//}\` | $(dashes 10)server refused to start: ${hs_server_error//|/\\|} |")
            continue
        fi
        log "handshakes $kind: ${HS_WARMUP_SECONDS}s warm-up, then $HANDSHAKES connections at $HS_RATE/s"
        run_uac "hs-$kind" "$bound" --workload options --transport tls --connection per-call --cipher "$suite" \
            --trust "$certs/ca.pem" --rate "$HS_RATE" --warmup "$HS_WARMUP_SECONDS" --duration "$hs_seconds" "${cargs[@]}"
        if [[ -z $summary ]]; then
            hs_rows+=("| $kind | $suite | \`${extra[*]:--}\` | \`${cargs[*]//$certs\//}\` | $(dashes 10)$(no_result "hs-$kind") |")
            continue
        fi
        run_figures
        note=$(summary_note)
        log "handshakes $kind: $ok ok, $(jv failed) failed, $(jv resumed) resumed, server CPU $pct % ($us us per handshake)"
        hs_rows+=("| $kind | $suite | \`${extra[*]:--}\` | \`${cargs[*]//$certs\//}\` | $ok | $(jv failed) | $(jv resumed) | $offered | $achieved | $pct | $us | $(jv crtP50Ms) | $(jv crtP99Ms) | $dpct | ${note:-} |")
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
    echo "Calls: one connection from the lab's generator (sipcrypt-lab.jar uac), SIPp UAS on UDP behind the proxy; ${WARMUP_SECONDS} s warm-up, then ${MEASURE_SECONDS} s of calls at $RATE calls/s (open loop); response time from a call's due time to its 200"
    echo
    echo "| cipher | suite | server args | driver args | calls ok | failed | offered calls/s | achieved calls/s | server CPU % | server CPU µs per call | p50 ms | p99 ms | driver CPU % | note |"
    echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${call_rows[@]}"
fi
if (( ${#hs_rows[@]} > 0 )); then
    echo
    echo "Handshakes: $HANDSHAKES connections at $HS_RATE/s (open loop), each handshake + OPTIONS + 200 + close, after ${HS_WARMUP_SECONDS} s warm-up; time is from a connection's due time to the OPTIONS' 200 (TCP connect, handshake, OPTIONS)"
    echo
    echo "| kind | suite | server args | driver args | handshakes ok | failed | resumed | offered handshakes/s | handshakes/s | server CPU % | server CPU µs per handshake | p50 ms | p99 ms | driver CPU % | note |"
    echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${hs_rows[@]}"
    (( ${#hs_notes[@]} > 0 )) && { echo; printf '%s\n' "${hs_notes[@]}"; }
fi
exit 0
