#!/usr/bin/env bash
# Memory the sipcrypt server holds per call, and its GC pauses, measured with SIPp.
# A benchmark, not a test: it prints numbers and fails only when it cannot measure.
#
# For each case (udp, tcp: one connection, udp-auth: digest with USERS subscribers, MD5):
#   1. start the server jar with JAVA_OPTS (-Xlog:gc,gc+phases to a file: every collector's pauses), a fresh data directory, UDP and
#      TCP on 127.0.0.1; a SIPp UAS registered as bench-T@127.0.0.1 (udp-auth: the calls name the
#      UAS in their Request-URI and reach the server as outbound proxy, so no REGISTER is needed);
#   2. warm up (WARMUP_CALLS at WARMUP_RATE), wait IDLE_SECONDS so every transaction of the
#      warm-up has left (Timer J is 32 s), force two full GCs (jcmd GC.run) and take the live
#      objects and their bytes (jmap -histo:live, its Total line) as the idle baseline (ZGC's
#      GC.heap_info "used" counts pages not yet reclaimed, hundreds of MB, so it is not read);
#   3. place RATE x SECONDS calls (uac.xml or uac-auth.xml), then at once the live heap and live
#      objects again (jmap -histo:live forces a full GC first).
#   Memory per call = (live heap after - baseline) / calls placed; objects likewise. Every call of
#   the run is still inside the retention window (32 s) when measured, so this is what one call
#   holds in flight or in its completed transactions' wait. Then the GC pauses of the loaded run
#   (the collector's "Pause" lines of the GC log between the start and the end of the run): count, p50, p99,
#   max, total.
#   Also printed: the largest classes of the loaded histogram (--histo N).
#
# Options (each also an environment variable of the upper-case name):
#   --jar PATH             server jar (default server/target/sipcrypt-server.jar)
#   --cases "udp tcp udp-auth"
#   --rate N               calls/s of the measured run (default 1500)
#   --seconds N            length of the measured run (default 10)
#   --sample-every N       during the measured run, the live heap (jmap -histo:live, which collects
#                          first) every N seconds, printed as a row per case (default 0: none); for soaks
#   --warmup-rate N        (default 500)   --warmup-calls N (default 5000)
#   --idle-seconds N       wait after the warm-up (default 40)
#   --users N              subscribers for udp-auth (default 10000)
#   --server-port N        server UDP and TCP port (default 25060); UAS on +10, UAC on +20, REGISTER on +21
#   --histo N              classes of the loaded histogram printed (default 15)
#   --keep                 keep the work directory
# Env only: JAVA (default java), JAVA_OPTS (default: the server's recommended options below),
#   SIPP (default sipp).
#
# Loopback only. Every SIPp and java run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"

options=("${server_options[@]}"  --server-port SERVER_PORT:-25060
    --cases CASES:-"udp tcp udp-auth"  --rate RATE:-1500  --seconds SECONDS_RUN:-10
    --sample-every SAMPLE_EVERY:-0  --warmup-rate WARMUP_RATE:-500  --warmup-calls WARMUP_CALLS:-5000
    --idle-seconds IDLE_SECONDS:-40  --users USERS:-10000  --histo HISTO:-15)
parse_options "$@"

require_whole_numbers RATE SECONDS_RUN SAMPLE_EVERY WARMUP_RATE WARMUP_CALLS IDLE_SECONDS USERS SERVER_PORT HISTO
for c in $CASES; do
    [[ $c == udp || $c == tcp || $c == udp-auth ]] || die "--cases: unknown case \"$c\" (expected udp, tcp or udp-auth)"
done
require_jar_and_sipp
command -v jcmd >/dev/null && command -v jmap >/dev/null || die "jcmd and jmap (a JDK) are needed"

sipp_ports "$SERVER_PORT"
start_work memory

live_objects() {    # jmap -histo:live PID FILE -> prints "objects bytes" of the Total line
    jmap -histo:live "$1" >"$2" 2>/dev/null
    awk '/^Total/ { print $2, $3 }' "$2"
}

# GC pauses in the log whose uptime stamp lies in [from, to] seconds: count p50 p99 max total (ms)
gc_pauses() {       # gc-log from to
    awk -v from="$2" -v to="$3" '
        /Pause/ && match($0, /\[[0-9.]+s\]/) {
            t = substr($0, RSTART + 1, RLENGTH - 3) + 0
            if (t >= from && t <= to && match($0, /[0-9.]+ms$/)) { v[n++] = substr($0, RSTART, RLENGTH - 2) + 0 }
        }
        END {
            if (n == 0) { print "0 - - - 0"; exit }
            for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
            for (i = 0; i < n; i++) total += v[i]
            p50 = v[int((n - 1) * 0.50)]; p99 = v[int((n - 1) * 0.99)]
            printf "%d %.1f %.1f %.1f %.0f\n", n, p50, p99, v[n - 1], total }' "$1"
}

jvm_uptime() { jcmd "$1" VM.uptime 2>/dev/null | awk 'NR == 2 { print $1 + 0 }'; }

# seconds any one case may take: warm-up, idle wait, the run, and room for starting and measuring
case_limit=$(( WARMUP_CALLS / (WARMUP_RATE > 0 ? WARMUP_RATE : 1) + IDLE_SECONDS + SECONDS_RUN + 600 ))
rows=()
samples=()
for c in $CASES; do
    transport=${c%-auth}
    mode=u1
    [[ $transport == tcp ]] && mode=t1
    data=$work/$c-data
    mkdir -p "$data"
    server_args=()
    uac_args=(-sf "$here/uac.xml" -s "bench-$transport")
    remote=127.0.0.1:$SERVER_PORT
    if [[ $c == udp-auth ]]; then
        users_csv=$work/users.csv
        "$JAVA" -jar "$JAR" users --data-dir "$data" generate --count "$USERS" --csv "$users_csv" \
            >"$work/$c-users.log" 2>&1 || die "users generate failed: $(tail -3 "$work/$c-users.log")"
        server_args=(--auth --auth-algorithms md5)
        uac_args=(-sf "$here/uac-auth.xml" -inf "$users_csv" -s bench -rsa "127.0.0.1:$SERVER_PORT"
                  -auth_uri "bench@127.0.0.1:$UAS_PORT")
        remote=127.0.0.1:$UAS_PORT
    fi
    log "$c: starting the server ($JAVA_OPTS)"
    start_server "$case_limit" "$work/$c-server.log" "udp tcp" \
        -Xlog:gc,gc+phases:file="$work/$c-gc.log":uptime -- \
        --listen "udp:127.0.0.1:$SERVER_PORT" --listen "tcp:127.0.0.1:$SERVER_PORT" \
        --data-dir "$data" --stats-interval 0 "${server_args[@]}"
    start_uas "$case_limit" "$transport" "$work/$c"
    if [[ $c != udp-auth ]]; then
        register_uas "$transport" "$work/$c"
    fi

    uac() {         # rate calls csv -> SIPp exit code
        timeout -k 5 $(( $2 / $1 + 90 )) "$SIPP" "${uac_args[@]}" -i 127.0.0.1 -ci 127.0.0.1 -bind_local \
            -p "$UAC_PORT" -t "$mode" -buff_size 4194304 -r "$1" -m "$2" \
            -key contact_port "$UAS_PORT" -key contact_transport "$transport" -timeout $(( $2 / $1 + 60 )) \
            -nostdin -trace_stat -stf "$3" -fd 1 "$remote" >/dev/null 2>"$3.stderr"
    }
    log "$c: warm-up, $WARMUP_CALLS calls at $WARMUP_RATE/s"
    uac "$WARMUP_RATE" "$WARMUP_CALLS" "$work/$c-warmup.csv"
    log "$c: idle $IDLE_SECONDS s, then the baseline"
    sleep "$IDLE_SECONDS"
    jcmd "$server_pid" GC.run >/dev/null 2>&1
    jcmd "$server_pid" GC.run >/dev/null 2>&1
    read -r base_objects base_bytes < <(live_objects "$server_pid" "$work/$c-histo-idle.txt")
    base_kb=$(( ${base_bytes:-0} / 1024 ))

    calls=$(( RATE * SECONDS_RUN ))
    log "$c: $calls calls at $RATE/s"
    t0=$(jvm_uptime "$server_pid")
    sampler=
    if (( SAMPLE_EVERY > 0 )); then
        ( while sleep "$SAMPLE_EVERY"; do
              read -r _ bytes < <(live_objects "$server_pid" "$work/$c-histo-sample.txt")
              [[ -n $bytes ]] && echo "$(( bytes / 1048576 ))"
          done >"$work/$c-samples.txt" ) &
        sampler=$!
    fi
    uac "$RATE" "$calls" "$work/$c-run.csv"
    rc=$?
    t1=$(jvm_uptime "$server_pid")
    if [[ -n $sampler ]]; then
        kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
        samples+=("$c: live heap MB every ${SAMPLE_EVERY} s of the run: $(tr '\n' ' ' <"$work/$c-samples.txt")")
    fi
    read -r load_objects load_bytes < <(live_objects "$server_pid" "$work/$c-histo-load.txt")
    load_kb=$(( ${load_bytes:-0} / 1024 ))
    failed=$(stat_last "$work/$c-run.csv" "FailedCall(C)")
    read -r n p50 p99 max total < <(gc_pauses "$work/$c-gc.log" "$t0" "$t1")
    per_call_b=$(awk -v a="$load_bytes" -v b="$base_bytes" -v n="$calls" 'BEGIN { printf "%.0f", (a - b) / n }')
    per_call_o=$(awk -v a="$load_objects" -v b="$base_objects" -v n="$calls" 'BEGIN { printf "%.1f", (a - b) / n }')
    rows+=("| $c | $calls at $RATE/s | $failed | $base_kb | $load_kb | $per_call_b | $per_call_o | $n | $p50 | $p99 | $max | $total |")
    log "$c: SIPp exit $rc, $failed failed; the largest live classes right after the run:"
    sed -n "4,$((HISTO + 3))p" "$work/$c-histo-load.txt" >&2
    stop_pid "$uas_wrapper"
    stop_pid "$server_wrapper"
done

echo
echo "sipcrypt server, JVM options: $JAVA_OPTS; CPU: $(cpu_model), $(nproc) cores"
echo
echo "| case | calls | failed | idle live heap KB | live heap after KB | bytes/call | objects/call | GC pauses | p50 ms | p99 ms | max ms | total ms |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
if (( ${#samples[@]} > 0 )); then
    echo
    printf '%s\n' "${samples[@]}"
fi
