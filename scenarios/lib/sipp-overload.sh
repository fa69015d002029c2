# shellcheck shell=bash disable=SC2034,SC2154  # a library: it sets and reads variables of the script that sources it
# The overload and recovery phases of overload.sh and vs-kamailio.sh (sourced after sipp-server.sh,
# not run): a SIPp UAC with uac-overload.xml (or uac-auth-overload.xml), which takes a 503 to the
# INVITE as an answer (acknowledged; response time 1 is INVITE->200, response time 2
# INVITE->503), places calls at a multiple of a peak; as soon as they are all placed a second UAC
# places half the peak, and the recovery is the time until every later second is normal again.
# The sourcing script keeps `root`, `SIPP`, `SERVER_PORT`, `load_pin` and `started`.

# Starts a SIPp UAC with SCENARIO (a file in scenarios/sipp: uac-overload.xml, or with digest
# authentication uac-auth-overload.xml) placing RATE x SECONDS calls at 127.0.0.1:SERVER_PORT from
# 127.0.0.1:PORT, its statistics every second (stat.csv), response times (*_rtt.csv), errors
# (errors.log) and stderr in DIR; SIPP-ARGS pick the callee and the transport (-s USER -t u1 ...).
# Returns at once; sets uac_wrapper (its `timeout` wrapper, listed in `started`).
start_overload_uac() {      # rate seconds dir port scenario sipp-arg...
    local rate=$1 seconds=$2 dir=$3 port=$4 scenario=$5
    shift 5
    mkdir -p "$dir"
    ( cd "$dir" && exec timeout -k 5 "$((seconds + 80))" "${load_pin[@]}" "$SIPP" \
        -sf "$root/scenarios/sipp/$scenario" "$@" \
        -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$port" -buff_size 4194304 \
        -r "$rate" -m "$(( rate * seconds ))" -l "$(( rate * 40 ))" -timeout "$((seconds + 70))" -nostdin \
        -trace_stat -stf "$dir/stat.csv" -fd 1 -trace_rtt -rtt_freq "$(rtt_freq "$rate")" \
        -trace_err -error_file "$dir/errors.log" "127.0.0.1:$SERVER_PORT" >/dev/null 2>"$dir/stderr" ) &
    uac_wrapper=$!
    started+=("$uac_wrapper")
}

# "served refused mean_ms p99_ms" of an rtt file: calls answered 200 (rtd 1) and 503 (rtd 2)
answers() {                 # rtt-file
    local f=$1
    [[ -s $f ]] || { echo "0 0 - -"; return; }
    echo "$(rtt_counts "$f") $(rtt_stats "$f")"
}

# The limit on the mean INVITE->200 of a normal second, in ms: max(3 x the baseline mean, 2 ms).
normal_limit() {            # baseline-mean-ms (or -)
    awk -v m="$1" 'BEGIN { l = (m == "-" ? 0 : 3 * m); if (l < 2) l = 2; printf "%.2f", l }'
}

# Seconds from the start of the run until every later second is normal: per second of the rtt file's
# timestamps, no 503 and a mean INVITE->200 of at most LIMIT ms; failed calls per second from the
# stat file's FailedCall(P). Prints "N s", "not within the phase" or "no data".
recovered_after() {         # rtt-file stat-file limit-ms
    [[ -s $1 && -s $2 ]] || { echo "no data"; return; }
    awk -F';' -v limit="$3" '
        FNR == 1 { file++ }
        file == 1 && FNR > 1 { t = int($1 / 1000); if (!t0 || t < t0) t0 = t
                               if ($3 == 1) { n[t]++; s[t] += $2 } else if ($3 == 2) { r[t]++ } }
        file == 2 && FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "FailedCall(P)") fc = i }
        file == 2 && FNR > 1 && NF > 1 { failed_rows[FNR] = $fc + 0; rows = FNR }
        END {
            if (!t0) { print "no data"; exit }
            last = 0; for (t in n) if (t > last) last = t
            bad = t0 - 1
            for (t = t0; t <= last; t++) {
                mean = n[t] ? s[t] / n[t] : 0
                if (r[t] > 0 || mean > limit) bad = t
            }
            # a second with failed calls (stat rows are one per second from the start) is not normal
            for (k = 2; k <= rows; k++) if (failed_rows[k] > 0 && t0 + k - 2 > bad) bad = t0 + k - 2
            if (bad >= last) print "not within the phase"; else print bad - t0 + 1 " s" }' "$1" "$2"
}

# Why SIPp ended calls as failed, from its -trace_err file: an answer it did not expect, by status
# code ("500 xN"), another unexpected message ("other xN"), and no answer in time (its UDP
# retransmissions or a receive timeout ran out: "no answer xN"); "none" when nothing failed a call.
unexpected_answers() {      # errors-file
    [[ -s $1 ]] || { echo "none"; return; }
    awk '
        /Aborting call on unexpected message/ {
            if (match($0, /received .SIP\/2\.0 [0-9][0-9][0-9]/)) c[substr($0, RSTART + 18, 3)]++; else other++
            next }
        /retransmission timeout|timeout on max UDP retrans|receive timeout|send timeout/ { lost++ }
        END {
            out = ""
            for (k in c) out = out (out == "" ? "" : ", ") k " x" c[k]
            if (other) out = out (out == "" ? "" : ", ") "other x" other
            if (lost) out = out (out == "" ? "" : ", ") "no answer x" lost
            print (out == "" ? "none" : out) }' "$1"
}

# The overload phase and, started as soon as its calls are all placed, the recovery phase: OVER
# calls/s for OVER_SECONDS from 127.0.0.1:PORT, then HALF calls/s for RECOVERY_SECONDS from PORT + 1,
# into DIR/overload and DIR/recovery; SCENARIO and SIPP-ARGS as for start_overload_uac. Waits for
# both, then sets
#   o_target o_placed o_served o_refused o_failed o_mean o_p99 o_goodput o_answers   (the overload:
#       calls, the rate SIPp placed them at, answered 200, refused 503, failed, INVITE->200 mean and
#       p99 ms, 200-answered calls per second of the phase, the answers SIPp did not expect)
#   r_target r_served r_refused r_failed r_mean r_p99                               (the recovery)
#   recovered   (recovered_after with a limit of LIMIT ms)
overload_and_recovery() {   # over over-seconds half recovery-seconds dir port limit-ms scenario sipp-arg...
    local over=$1 over_seconds=$2 half=$3 recovery_seconds=$4 dir=$5 port=$6 limit=$7
    shift 7
    local created ok failed made_at creating_s deadline over_wrapper recovery_wrapper
    o_target=$(( over * over_seconds )) r_target=$(( half * recovery_seconds ))
    start_overload_uac "$over" "$over_seconds" "$dir/overload" "$port" "$@"
    over_wrapper=$uac_wrapper
    # the recovery starts when the overload's calls are all placed (its stat file reaches the count)
    deadline=$(( $(date +%s) + over_seconds * 2 + 30 ))
    while kill -0 "$over_wrapper" 2>/dev/null && (( $(date +%s) < deadline )); do
        created=$(stat_counts "$dir/overload/stat.csv" "$o_target" | cut -d' ' -f1)
        (( created >= o_target )) && break
        sleep 0.2
    done
    # a second SIPp UAC needs its own port
    start_overload_uac "$half" "$recovery_seconds" "$dir/recovery" "$(( port + 1 ))" "$@"
    recovery_wrapper=$uac_wrapper
    wait_started "$over_wrapper"
    read -r created ok failed made_at creating_s < <(stat_counts "$dir/overload/stat.csv" "$o_target")
    o_failed=$failed
    read -r o_served o_refused o_mean o_p99 < <(answers "$(rtt_file "$dir/overload")")
    o_placed=$(awk -v m="$made_at" -v s="$creating_s" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }')
    o_goodput=$(awk -v n="$o_served" -v s="$over_seconds" 'BEGIN { printf "%.0f", n / s }')
    o_answers=$(unexpected_answers "$dir/overload/errors.log")
    wait_started "$recovery_wrapper"
    read -r created ok failed made_at creating_s < <(stat_counts "$dir/recovery/stat.csv" "$r_target")
    r_failed=$failed
    read -r r_served r_refused r_mean r_p99 < <(answers "$(rtt_file "$dir/recovery")")
    recovered=$(recovered_after "$(rtt_file "$dir/recovery")" "$dir/recovery/stat.csv" "$limit")
}
