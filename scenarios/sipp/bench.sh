#!/usr/bin/env bash
# Peak call rate of the sipcrypt server as a Record-Routing stateful proxy, measured with SIPp.
# A benchmark, not a test: it prints numbers and fails only when it cannot measure.
#
# For each transport implementation (netty, jain-nio, jain-oio) and each transport (udp, tcp one connection):
#   1. start the server jar on 127.0.0.1 with a fresh data directory,
#   2. start a SIPp UAS (uas.xml) and register it as sip:bench@127.0.0.1 (register.xml),
#   3. warm up, then step the call rate of a SIPp UAC (uac.xml, calls to bench@): start at
#      START_RATE, multiply by STEP_FACTOR while the step passes, then bisect between the last
#      passing and the first failing rate REFINE times, then repeat the best rate once (CONFIRM),
#      since near a UDP server's limit the same rate either passes or collapses.
#   A step sends RATE x STEP_SECONDS calls. It passes when fewer than MAX_FAILED_PCT % of them
#   failed or did not finish in time (counted from SIPp's -trace_stat file, not its exit code) and
#   SIPp created them at MIN_ACHIEVED_PCT % of the rate or more (it holds back new calls while
#   3 x RATE calls are open, so a slow server shows as a lower rate rather than as failures).
#   Server CPU is read from /proc/PID/stat (utime + stime) over the load window (until the last
#   call was created), in % of one core; CPU us per call is the server's CPU time over the whole
#   step divided by the successful calls.
# Then a Markdown table: transport, implementation, peak calls/s, server CPU % at peak, CPU us/call.
#
# --no-server skips the server: the UAC calls the UAS directly, which measures SIPp's own ceiling
# on this machine (the CPU columns are then the SIPp UAS's).
#
# Options (each also an environment variable of the upper-case name, e.g. STEP_SECONDS=5):
#   --jar PATH               server jar (default server/target/sipcrypt-server.jar)
#   --impls "netty jain-nio jain-oio" transport implementations to measure
#   --transports "udp tcp"   transports to measure (tcp = one connection, SIPp -t t1)
#   --start-rate N           first step, calls/s (default 200)
#   --max-rate N             no step goes above this (default 20000)
#   --step-factor F          rate multiplier between passing steps (default 1.5)
#   --refine N               bisection steps after the first failure (default 3)
#   --confirm 0|1            repeat the best rate once (default 1)
#   --step-seconds N         length of a step (default 10)
#   --warmup-seconds N       unmeasured warm-up at START_RATE before stepping (default 5)
#   --budget-seconds N       total time budget, shared equally by the combinations (default 1200)
#   --max-failed-pct P       a step fails at this share of failed calls or more (default 1)
#   --server-port N          server UDP and TCP port (default 15060); UAS on +10, UAC on +20, REGISTER on +21
#   --no-server              UAC straight to UAS
#   --uac-scenario FILE      the UAC's SIPp scenario (default uac.xml beside this script), e.g.
#                            uac-auth.xml or register-auth.xml; its "calls" are what is counted
#   --inf FILE               SIPp injection file for the UAC (-inf), e.g. from `users generate --csv`
#   --route-direct           calls name the UAS in their Request-URI and reach the server as an
#                            outbound proxy (SIPp -rsa); the UAS is not registered, so the proxy
#                            forwards without a location lookup
#   --no-register            do not register the UAS (e.g. for REGISTER workloads); implied by
#                            --route-direct
#   --label TEXT             first column of the result rows (default: the transport)
#   --keep                   keep the work directory (logs, SIPp statistics) on exit
# Env only: JAVA (default java), JAVA_OPTS (server JVM; default the recommended -Xms1g -Xmx1g
#   -XX:+UseZGC -XX:+AlwaysPreTouch), SERVER_ARGS (extra server options), SIPP (default sipp),
#   MIN_ACHIEVED_PCT (default 90), COOLDOWN_SECONDS (default 2).
#
# Loopback only. Every SIPp and java run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

NO_SERVER=${NO_SERVER:-0}
ROUTE_DIRECT=${ROUTE_DIRECT:-0}
NO_REGISTER=${NO_REGISTER:-0}

# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"   # JAR, KEEP, JAVA, JAVA_OPTS, SIPP; usage, die, log, parse_options
# shellcheck source=../lib/sipp-steps.sh
source "$root/scenarios/lib/sipp-steps.sh"

options=("${server_options[@]}"  --server-port SERVER_PORT:-15060
    --impls IMPLS:-"netty jain-nio jain-oio"  --transports TRANSPORTS:-"udp tcp"  --start-rate START_RATE:-200
    --max-rate MAX_RATE  --step-factor STEP_FACTOR  --refine REFINE  --confirm CONFIRM
    --step-seconds STEP_SECONDS  --warmup-seconds WARMUP_SECONDS:-5  --budget-seconds BUDGET_SECONDS:-1200
    --max-failed-pct MAX_FAILED_PCT  --no-server NO_SERVER=1  --uac-scenario UAC_SCENARIO:-  --inf INF:-
    --route-direct ROUTE_DIRECT=1  --no-register NO_REGISTER=1  --label LABEL:-)
parse_options "$@"

for t in $TRANSPORTS; do
    [[ $t == udp || $t == tcp ]] || die "--transports: unknown transport \"$t\" (expected udp or tcp)"
done
for i in $IMPLS; do
    [[ $i == netty || $i == jain-nio || $i == jain-oio ]] || die "--impls: unknown implementation \"$i\" (expected netty, jain-nio or jain-oio)"
done
require_whole_numbers START_RATE MAX_RATE REFINE STEP_SECONDS WARMUP_SECONDS BUDGET_SECONDS SERVER_PORT
(( START_RATE > 0 && START_RATE <= MAX_RATE )) || die "START_RATE $START_RATE must be in 1..MAX_RATE ($MAX_RATE)"
(( STEP_SECONDS > 0 )) || die "STEP_SECONDS must be positive"
UAC_SCENARIO=${UAC_SCENARIO:-$here/uac.xml}
[[ -f $UAC_SCENARIO ]] || die "--uac-scenario: $UAC_SCENARIO not found"
[[ -z $INF || -f $INF ]] || die "--inf: $INF not found"
uac_inf=()
[[ -n $INF ]] && uac_inf=(-inf "$INF")
command -v "$SIPP" >/dev/null || die "SIPp not found: install it with 'apt-get install -y sip-tester'"
if (( ! NO_SERVER )); then
    [[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -pl server package, or use --no-server)"
    command -v "$JAVA" >/dev/null || die "java not found"
else
    IMPLS=sipp-direct
fi

sipp_ports "$SERVER_PORT"
CLK_TCK=$(getconf CLK_TCK)
GRACE_SECONDS=5
start_work bench

# Runs one step; sets step_ok step_failed_pct step_achieved (calls/s at which SIPp created the calls)
# step_cpu_pct step_us step_sipp_pct (measure_step)
step_no=0
run_step() {        # transport rate seconds tag
    local transport=$1 rate=$2 seconds=$3 tag=$4 mode=u1 target remote
    [[ $transport == tcp ]] && mode=t1
    target=$(( rate * seconds ))
    remote=127.0.0.1:$SERVER_PORT
    local via_proxy=()
    (( NO_SERVER )) && remote=127.0.0.1:$UAS_PORT
    if (( ROUTE_DIRECT && ! NO_SERVER )); then
        remote=127.0.0.1:$UAS_PORT
        via_proxy=(-rsa "127.0.0.1:$SERVER_PORT")
    fi
    # the server compares the digest uri with the Request-URI; SIPp's default uri lacks the user
    local auth_uri=()
    [[ $(basename "$UAC_SCENARIO") == uac-auth.xml ]] && auth_uri=(-auth_uri "bench-$transport@$remote")
    step_no=$((step_no + 1))
    local stf="$work/$tag-step$step_no-r$rate.csv"
    local measured=${server_pid:-$uas_pid}
    begin_step "$uas_pid" "$measured"
    timeout -k 5 "$((seconds + GRACE_SECONDS + 10))" "$SIPP" -sf "$UAC_SCENARIO" "${uac_inf[@]}" "${via_proxy[@]}" "${auth_uri[@]}" \
        -i 127.0.0.1 -ci 127.0.0.1 -bind_local \
        -p "$UAC_PORT" -t "$mode" -buff_size 4194304 -s "bench-$transport" -r "$rate" -m "$target" \
        -key contact_port "$UAS_PORT" -key contact_transport "$transport" \
        -timeout "$((seconds + GRACE_SECONDS))" -nostdin -trace_stat -stf "$stf" -fd 100ms \
        -trace_err -error_file "$work/$tag-step$step_no-errors.log" \
        "$remote" >/dev/null 2>"$work/$tag-step$step_no.stderr" &
    started+=("$!")
    measure_step "$!" "$stf" "$target" "$uas_pid" "$measured"
    step_ok=$(step_verdict "$rate")
    log "$(printf '%-14s %6d cps x %3d s: %s  %d/%d ok, %d failed (SIPp exit %d), %s%% lost, created at %s cps, CPU %s%% (%s us/call), SIPp CPU %s%%' \
        "$tag" "$rate" "$seconds" "$([[ $step_ok == 1 ]] && echo pass || echo FAIL)" "$step_ok_calls" "$target" "$step_failed" \
        "$step_rc" "$step_failed_pct" "$step_achieved" "$step_cpu_pct" "$step_us" "$step_sipp_pct")"
    sleep "$COOLDOWN_SECONDS"
}

# whether one more step fits in this combination's share of the budget
in_budget() { (( $(date +%s) - combo_start + step_cost <= share )); }

record_pass() {     # rate: keeps the last step's measurements as those of a passing rate
    pass_cpu[$1]=$step_cpu_pct pass_us[$1]=$step_us
    pass_failed[$1]=$step_failed_pct pass_sipp[$1]=$step_sipp_pct
}

results=()
combos=0
for _ in $IMPLS; do for _ in $TRANSPORTS; do combos=$((combos + 1)); done; done
share=$(( BUDGET_SECONDS / combos ))

for impl in $IMPLS; do
    for transport in $TRANSPORTS; do
        tag=$transport-$impl
        combo_start=$(date +%s)
        step_cost=$(( STEP_SECONDS + GRACE_SECONDS + COOLDOWN_SECONDS + 1 ))
        server_pid=
        if (( ! NO_SERVER )); then
            require_ports_free --server-port "udp tcp" "$SERVER_PORT"
            mkdir -p "$work/$impl-data"
            # shellcheck disable=SC2086  # SERVER_ARGS is a word list
            start_server "$((BUDGET_SECONDS + 60))" "$work/$impl-server.log" "udp tcp" -- \
                --listen "udp:127.0.0.1:$SERVER_PORT" --listen "tcp:127.0.0.1:$SERVER_PORT" \
                --data-dir "$work/$impl-data" --transport-impl "$impl" $SERVER_ARGS
            log "server $impl: pid $server_pid on udp+tcp 127.0.0.1:$SERVER_PORT"
        fi
        start_uas "$((BUDGET_SECONDS + 60))" "$transport" "$work/$tag" "$(( MAX_RATE * (BUDGET_SECONDS + 60) ))"
        if (( ! NO_SERVER && ! ROUTE_DIRECT && ! NO_REGISTER )); then
            register_uas "$transport" "$work/$tag"
        fi
        log "$tag: UAS pid $uas_pid on $transport 127.0.0.1:$UAS_PORT; budget ${share}s"
        if (( WARMUP_SECONDS > 0 )); then
            run_step "$transport" "$START_RATE" "$WARMUP_SECONDS" "$tag-warmup"
        fi

        declare -A pass_cpu=() pass_us=() pass_failed=() pass_sipp=()
        last_pass=0 first_fail=0 budget_hit=0

        rate=$START_RATE
        while :; do
            in_budget || { budget_hit=1; break; }
            run_step "$transport" "$rate" "$STEP_SECONDS" "$tag"
            if (( step_ok )); then
                last_pass=$rate; record_pass "$rate"
                (( rate >= MAX_RATE )) && break
                rate=$(next_rate "$rate")
            else
                first_fail=$rate
                break
            fi
        done
        for (( i = 0; i < REFINE && first_fail > 0; i++ )); do
            mid=$(( (last_pass + first_fail) / 20 * 10 ))
            (( mid <= last_pass || mid >= first_fail )) && break
            in_budget || { budget_hit=1; break; }
            run_step "$transport" "$mid" "$STEP_SECONDS" "$tag"
            if (( step_ok )); then last_pass=$mid; record_pass "$mid"; else first_fail=$mid; fi
        done
        note=
        if (( CONFIRM && last_pass > 0 )) && in_budget; then
            run_step "$transport" "$last_pass" "$STEP_SECONDS" "$tag-confirm"
            if (( step_ok )); then
                record_pass "$last_pass"
            else
                note="$last_pass cps passed once, failed on repeat"
                unset "pass_cpu[$last_pass]"
                last_pass=0
                for r in "${!pass_cpu[@]}"; do (( r > last_pass )) && last_pass=$r; done
            fi
        fi
        (( budget_hit )) && note="${note:+$note; }time budget reached"
        (( last_pass >= MAX_RATE )) && note="${note:+$note; }reached --max-rate"
        (( first_fail > 0 )) && note="${note:+$note; }first failing step $first_fail cps"
        if (( last_pass > 0 )); then
            results+=("| ${LABEL:-$transport} | $impl | $last_pass | ${pass_cpu[$last_pass]} | ${pass_us[$last_pass]} | ${pass_failed[$last_pass]} | ${pass_sipp[$last_pass]} | $note |")
        else
            results+=("| ${LABEL:-$transport} | $impl | < $START_RATE | - | - | - | - | no step passed; $note |")
        fi
        unset pass_cpu pass_us pass_failed pass_sipp

        stop_pid "$uas_wrapper"
        if (( ! NO_SERVER )); then
            stop_pid "$server_wrapper"
        fi
        sleep 1
    done
done

cpu_label="server CPU % at peak"
(( NO_SERVER )) && cpu_label="SIPp UAS CPU % at peak"
echo
echo "Peak call rate with < ${MAX_FAILED_PCT} % failed calls, ${STEP_SECONDS} s steps, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "(CPU % is of one core; us/call is CPU time per successful call; SIPp CPU is UAC + UAS together)"
echo
echo "| transport | implementation | peak calls/s | $cpu_label | CPU µs per call | failed % at peak | SIPp CPU % | note |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${results[@]}"
