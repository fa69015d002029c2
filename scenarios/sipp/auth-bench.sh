#!/usr/bin/env bash
# What digest authentication costs the sipcrypt server, measured with SIPp through bench.sh.
# A benchmark, not a test: it prints numbers and fails only when it cannot measure.
#
# Part "cost" (UDP, embedded H2, USERS subscribers made by `users generate`):
#   the same fixed rate (RATE/s, WARMUP_SECONDS unmeasured, then STEP_SECONDS measured) for
#   register (register-users.xml, auth off) and register-auth (register-auth.xml, 401 + retry), and
#   for call (uac.xml, auth off) and call-auth (uac-auth.xml, 407 + ACK + retry), each from the
#   same users; server CPU per operation and the auth/no-auth ratio. Then each workload's peak rate
#   (< 1 % failed) with bench.sh's step search.
#   Calls go to the SIPp UAS named in the Request-URI, through the server as outbound proxy
#   (bench.sh --route-direct), so the proxy does no location lookup: only authentication touches
#   the database.
# Part "latency" (UDP calls with auth, H2 in server mode):
#   the database reached through a TCP relay that delays every chunk by RTT_MS / 2 each way
#   (org.sipcrypt.server.testing.DelayRelay from the test classes), peak call rate for every
#   batch size in BATCHES x pool size in POOLS (auth.batchSize, db.poolSize; lookups wait at most
#   auth.batchWait = BATCH_WAIT for a batch to fill), and the same at 0 ms (no relay) for
#   BASELINE ("BATCH:POOL ..."), to show how much of the round trip batching hides.
#   A step search starts at START_RATE, or lower when the configuration cannot do more than
#   POOL x BATCH / RTT lookups per second.
#
# Needs the server jar and the test classes: ./mvnw -q -DskipTests package
# Options (each also an environment variable of the upper-case name):
#   --part cost|latency|all      what to measure (default all)
#   --users N                    subscribers (default 10000)
#   --rate N                     fixed rate of the cost part (default 300)
#   --warmup-seconds N           unmeasured warm-up before each fixed-rate step (default 20)
#   --step-seconds N             length of a measured step (default 10)
#   --start-rate N               first step of a peak search (default 300)
#   --budget-seconds N           time budget of one peak search (default 150)
#   --rtt-ms N                   injected round trip to the database (default 30)
#   --batches "1 4 16 64"        auth.batchSize values of the latency grid
#   --pools "1 8 32"             db.poolSize values of the latency grid
#   --batch-wait D               auth.batchWait (default 2ms)
#   --baseline "16:8 1:8"        BATCH:POOL pairs measured at 0 ms
#   --server-port N              as bench.sh (default 15060)
#   --keep                       keep the work directory
# Env only: JAVA (default java), JAVA_OPTS (server JVM; default bench.sh's recommended options), SIPP.
#
# Loopback only; every process started is bounded by `timeout` and ended by PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

TEST_CLASSES=${TEST_CLASSES:-$root/server/target/test-classes}

# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"   # JAR, KEEP, JAVA, JAVA_OPTS, SIPP; usage, die, log, parse_options

options=("${server_options[@]}"  --server-port SERVER_PORT:-15060
    --part PART:-all  --users USERS:-10000  --rate RATE:-300  --warmup-seconds WARMUP_SECONDS:-20
    --step-seconds STEP_SECONDS:-10  --start-rate START_RATE:-300  --budget-seconds BUDGET_SECONDS:-150
    --rtt-ms RTT_MS:-30  --batches BATCHES:-"1 4 16 64"  --pools POOLS:-"1 8 32"  --batch-wait BATCH_WAIT:-2ms
    --baseline BASELINE:-"16:8 1:8")
parse_options "$@"

[[ $PART == cost || $PART == latency || $PART == all ]] || die "--part: \"$PART\" (expected cost, latency or all)"
require_whole_numbers USERS RATE WARMUP_SECONDS STEP_SECONDS START_RATE BUDGET_SECONDS RTT_MS SERVER_PORT
[[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -q -DskipTests package)"
[[ $PART == cost || -f $TEST_CLASSES/org/sipcrypt/server/testing/DelayRelay.class ]] \
    || die "DelayRelay not compiled under $TEST_CLASSES (build with ./mvnw -q -DskipTests package)"

start_work auth-bench

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# Runs bench.sh once for the netty transport over UDP; prints its result row.
bench() {           # label server-args bench-args...
    local label=$1 server_args=$2
    shift 2
    SERVER_ARGS="$server_args" "$here/bench.sh" --impls netty --transports udp --label "$label" \
        --server-port "$SERVER_PORT" --step-seconds "$STEP_SECONDS" "$@" 2>>"$work/bench.log" | grep '^| '"$label"' '
}

# The columns of a bench.sh row: peak and CPU us per call.
col() { awk -F'|' -v c="$2" '{ gsub(/^ +| +$/, "", $c); print $c }' <<<"$1"; }

users_csv=$work/users.csv
declare -A cost_us=() cost_cpu=() cost_peak=() cost_peak_us=()
if [[ $PART == cost || $PART == all ]]; then
    db="jdbc:h2:file:$work/cost-db/sipcrypt"
    log "provisioning $USERS subscribers (embedded H2)"
    "$JAVA" -jar "$JAR" users generate --count "$USERS" --csv "$users_csv" --db "$db" >>"$work/bench.log" 2>&1 \
        || die "users generate failed: $(tail -3 "$work/bench.log")"
    for w in register register-auth call call-auth; do
        case $w in
            register) scenario=register-users.xml args="--no-register" auth= ;;
            register-auth) scenario=register-auth.xml args="--no-register" auth="--auth --auth-algorithms md5" ;;
            call) scenario=uac.xml args="--route-direct" auth= ;;
            call-auth) scenario=uac-auth.xml args="--route-direct" auth="--auth --auth-algorithms md5" ;;
        esac
        # shellcheck disable=SC2086
        fixed=$(bench "$w" "--db $db $auth" --uac-scenario "$here/$scenario" --inf "$users_csv" $args \
            --start-rate "$RATE" --max-rate "$RATE" --refine 0 --confirm 0 --warmup-seconds "$WARMUP_SECONDS" \
            --budget-seconds "$((WARMUP_SECONDS + STEP_SECONDS + 60))")
        log "$w at $RATE/s: $fixed"
        # shellcheck disable=SC2086
        peak=$(bench "$w" "--db $db $auth" --uac-scenario "$here/$scenario" --inf "$users_csv" $args \
            --start-rate "$START_RATE" --budget-seconds "$BUDGET_SECONDS")
        log "$w peak: $peak"
        cost_us[$w]=$(col "$fixed" 6)
        cost_cpu[$w]=$(col "$fixed" 5)
        cost_peak[$w]=$(col "$peak" 4)
        cost_peak_us[$w]=$(col "$peak" 6)
    done
fi

latency_rows=()
if [[ $PART == latency || $PART == all ]]; then
    h2_port=$(free_port)
    launch_listening 36000 "$work/h2.log" "tcp:$h2_port" \
        "$JAVA" -cp "$JAR" org.h2.tools.Server -tcp -tcpPort "$h2_port" -ifNotExists -baseDir "$work/h2" \
        || die "the H2 server did not start: $(tail -3 "$work/h2.log")"
    direct="jdbc:h2:tcp://127.0.0.1:$h2_port/./bench"
    log "provisioning $USERS subscribers (H2 server on port $h2_port)"
    "$JAVA" -jar "$JAR" users generate --count "$USERS" --csv "$users_csv" --db "$direct" >>"$work/bench.log" 2>&1 \
        || die "users generate on the H2 server failed: $(tail -3 "$work/bench.log")"
    relay_port=$(free_port)
    half=$((RTT_MS / 2))
    launch_listening 36000 "$work/relay.log" "tcp:$relay_port" \
        "$JAVA" -cp "$TEST_CLASSES:$JAR" org.sipcrypt.server.testing.DelayRelay \
        --listen "127.0.0.1:$relay_port" --target "127.0.0.1:$h2_port" --delay-ms "$half" \
        || die "the relay did not start: $(tail -3 "$work/relay.log")"
    delayed="jdbc:h2:tcp://127.0.0.1:$relay_port/./bench"
    log "relay 127.0.0.1:$relay_port -> H2 127.0.0.1:$h2_port, $half ms each way"

    run_point() {   # rtt-label url batch pool
        local rtt=$1 url=$2 batch=$3 pool=$4 start=$START_RATE cap row
        if (( rtt > 0 )); then
            cap=$(( pool * batch * 1000 / rtt ))
            (( cap / 2 < start )) && start=$(( cap / 2 > 10 ? cap / 2 : 10 ))
        fi
        row=$(bench "rtt$rtt-b$batch-p$pool" "--db $url --auth --auth-algorithms md5 --auth-batch-size $batch \
--auth-batch-wait $BATCH_WAIT --db-pool-size $pool" --uac-scenario "$here/uac-auth.xml" --inf "$users_csv" \
            --route-direct --start-rate "$start" --budget-seconds "$BUDGET_SECONDS" --warmup-seconds 5)
        log "rtt $rtt ms, batch $batch, pool $pool: $row"
        latency_rows+=("| $rtt | $batch | $pool | $(col "$row" 4) | $(col "$row" 5) | $(col "$row" 6) | $(col "$row" 9) |")
    }
    for bp in $BASELINE; do
        run_point 0 "$direct" "${bp%%:*}" "${bp##*:}"
    done
    for b in $BATCHES; do
        for p in $POOLS; do
            run_point "$RTT_MS" "$delayed" "$b" "$p"
        done
    done
fi

echo
echo "sipcrypt digest authentication benchmark, UDP, $USERS subscribers, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
if [[ $PART == cost || $PART == all ]]; then
    echo
    echo "Cost at $RATE operations/s (after ${WARMUP_SECONDS} s warm-up, ${STEP_SECONDS} s measured), and peak (< 1 % failed):"
    echo
    echo "| workload | server CPU % at $RATE/s | CPU µs per operation | auth / no auth | peak ops/s | CPU µs per op at peak |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    for w in register register-auth call call-auth; do
        base=${w%-auth}
        ratio=$(awk -v a="${cost_us[$w]:-0}" -v b="${cost_us[$base]:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
        [[ $w == "$base" ]] && ratio=1
        echo "| $w | ${cost_cpu[$w]:--} | ${cost_us[$w]:--} | $ratio | ${cost_peak[$w]:--} | ${cost_peak_us[$w]:--} |"
    done
fi
if [[ $PART == latency || $PART == all ]]; then
    echo
    echo "Peak authenticated call rate (< 1 % failed) with the database $RTT_MS ms away, by batch size and pool size"
    echo "(auth.batchWait $BATCH_WAIT; rtt 0 = no relay):"
    echo
    echo "| RTT ms | batch | pool | peak calls/s | server CPU % | CPU µs per call | note |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${latency_rows[@]}"
fi
