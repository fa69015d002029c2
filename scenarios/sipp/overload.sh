#!/usr/bin/env bash
# Overload and recovery of the sipcrypt server, measured with SIPp over UDP.
# A benchmark, not a test: it prints a table and fails only when it cannot measure.
#
# One server (the jar, JAVA_OPTS, a fresh data directory, UDP on 127.0.0.1), one SIPp UAS
# registered as the callee, then four phases with uac-overload.xml (a 503 to the INVITE is an
# expected answer, acknowledged; response time 1 is INVITE->200, response time 2 INVITE->503):
#   warm-up   WARMUP_CALLS at WARMUP_RATE;
#   baseline  HALF = PEAK/2 calls/s for BASE_SECONDS: the normal latency;
#   overload  FACTOR x PEAK calls/s for OVERLOAD_SECONDS: goodput (calls answered 200, per second of
#             the phase, and as a share of PEAK), calls refused with 503, calls failed (no answer or
#             another one), INVITE->200 mean and p99;
#   recovery  HALF calls/s for RECOVERY_SECONDS, started as soon as the overload's calls are placed:
#             the seconds until every later second is normal again (no 503, no failed call started in
#             it, mean INVITE->200 at most max(3 x the baseline mean, 2 ms)).
# Then the server's own counters (its stats line at exit) and its GC pauses.
#
# PEAK is the sustainable UDP peak measured by bench.sh or vs-kamailio.sh on the same machine; the
# phases are relative to it. SIPp's UAC runs on the same cores: the rate it reached is printed, and a
# phase whose calls were not all placed within 10 % of its length says so.
#
# Options (each also an environment variable of the upper-case name):
#   --peak N               the UDP peak in calls/s (required)
#   --factor F             overload as a multiple of the peak (default 2)
#   --overload-seconds N   (default 60)    --recovery-seconds N (default 30)   --base-seconds N (default 20)
#   --warmup-rate N        (default 500)   --warmup-calls N (default 10000)
#   --server-args "..."    extra server options (e.g. overload settings)
#   --jar PATH             server jar (default server/target/sipcrypt-server.jar)
#   --server-port N        server UDP port (default 26060); UAS on +10, UAC on +20, REGISTER on +21
#   --keep                 keep the work directory
# Env only: JAVA (default java), JAVA_OPTS (default: the server's recommended options), SIPP (default sipp).
#
# Loopback only. Every SIPp and java run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"

options=("${server_options[@]}"  --server-port SERVER_PORT:-26060
    --peak PEAK:-  --factor FACTOR:-2  --overload-seconds OVERLOAD_SECONDS:-60
    --recovery-seconds RECOVERY_SECONDS:-30  --base-seconds BASE_SECONDS:-20  --warmup-rate WARMUP_RATE:-500
    --warmup-calls WARMUP_CALLS:-10000  --server-args SERVER_ARGS)
parse_options "$@"

[[ -n $PEAK ]] || die "--peak N is required (the UDP peak measured by bench.sh or vs-kamailio.sh)"
require_whole_numbers PEAK OVERLOAD_SECONDS RECOVERY_SECONDS BASE_SECONDS WARMUP_RATE WARMUP_CALLS SERVER_PORT
[[ $FACTOR =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "FACTOR: \"$FACTOR\" is not a number"
require_jar_and_sipp

HALF=$(( PEAK / 2 ))
OVER=$(awk -v p="$PEAK" -v f="$FACTOR" 'BEGIN { printf "%d", p * f }')
sipp_ports "$SERVER_PORT"
start_work overload

require_ports_free --server-port udp "$SERVER_PORT"
total=$(( BASE_SECONDS + OVERLOAD_SECONDS + RECOVERY_SECONDS + WARMUP_CALLS / WARMUP_RATE + 600 ))

log "starting the server ($JAVA_OPTS $SERVER_ARGS)"
# shellcheck disable=SC2086  # SERVER_ARGS is a word list
start_server "$total" "$work/server.log" udp -Xlog:gc,gc+phases:file="$work/gc.log":uptime -- \
    --listen "udp:127.0.0.1:$SERVER_PORT" --data-dir "$work/data" --stats-interval 0 --shutdown-grace 3s $SERVER_ARGS
start_uas "$total" udp "$work/callee"
register_uas udp "$work/callee"

# Places RATE x SECONDS calls into DIR (stat.csv, *_rtt.csv); returns at once, the wrapper in uac_wrapper.
start_uac() {       # rate seconds dir
    local rate=$1 seconds=$2 dir=$3
    mkdir -p "$dir"
    ( cd "$dir" && exec timeout -k 5 "$((seconds + 80))" "$SIPP" -sf "$here/uac-overload.xml" -s bench-udp \
        -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$UAC_PORT" -t u1 -buff_size 4194304 \
        -r "$rate" -m "$(( rate * seconds ))" -l "$(( rate * 40 ))" -timeout "$((seconds + 70))" -nostdin \
        -trace_stat -stf "$dir/stat.csv" -fd 1 -trace_rtt -rtt_freq "$(rtt_freq "$rate")" \
        -trace_err -error_file "$dir/errors.log" "127.0.0.1:$SERVER_PORT" >/dev/null 2>"$dir/stderr" ) &
    uac_wrapper=$!
    started+=("$uac_wrapper")
}

finish_uac() { wait_started "$uac_wrapper"; }

# "served refused mean_ms p99_ms" of an rtt file: calls answered 200 (rtd 1) and 503 (rtd 2)
answers() {         # rtt-file
    local f=$1
    [[ -s $f ]] || { echo "0 0 - -"; return; }
    echo "$(rtt_counts "$f") $(rtt_stats "$f")"
}

# Seconds from the start of the run until every later second is normal: per second of the rtt file's
# timestamps, no 503 and a mean INVITE->200 of at most LIMIT ms; failed calls per second from the
# stat file's FailedCall(P). Prints "seconds" or "not within the phase".
recovered_after() { # rtt-file stat-file limit-ms
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

rows=()
phase() {           # name rate seconds -> appends a row; sets ph_served ph_refused ph_mean ph_p99 ph_failed
    local name=$1 rate=$2 seconds=$3 dir=$work/$1 created ok failed made_at creating_s placed_at
    start_uac "$rate" "$seconds" "$dir"
    finish_uac
    read -r created ok failed made_at creating_s < <(stat_counts "$dir/stat.csv" "$(( rate * seconds ))")
    read -r ph_served ph_refused ph_mean ph_p99 < <(answers "$(rtt_file "$dir")")
    ph_failed=$failed
    placed_at=$(awk -v m="$made_at" -v s="$creating_s" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }')
    local goodput pct
    goodput=$(awk -v n="$ph_served" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
    pct=$(awk -v g="$goodput" -v p="$PEAK" 'BEGIN { printf "%.0f", 100 * g / p }')
    rows+=("| $name | $rate | $placed_at | $(( rate * seconds )) | $ph_served | $goodput ($pct % of peak) | $ph_refused | $ph_failed | $ph_mean | $ph_p99 |")
    log "$name: $rate/s offered (placed at $placed_at/s), $ph_served served, $ph_refused refused (503), $ph_failed failed, INVITE->200 mean $ph_mean ms p99 $ph_p99 ms"
}

log "warm-up: $WARMUP_CALLS calls at $WARMUP_RATE/s"
phase warm-up "$WARMUP_RATE" $(( WARMUP_CALLS / WARMUP_RATE ))
log "baseline: $HALF/s for $BASE_SECONDS s"
phase baseline "$HALF" "$BASE_SECONDS"
base_mean=$ph_mean
limit=$(awk -v m="$base_mean" 'BEGIN { l = (m == "-" ? 0 : 3 * m); if (l < 2) l = 2; printf "%.2f", l }')

log "overload: $OVER/s for $OVERLOAD_SECONDS s, then at once recovery: $HALF/s for $RECOVERY_SECONDS s"
start_uac "$OVER" "$OVERLOAD_SECONDS" "$work/overload"
over_wrapper=$uac_wrapper
# the recovery starts when the overload's calls are all placed (its stat file reaches the count)
target=$(( OVER * OVERLOAD_SECONDS ))
deadline=$(( $(date +%s) + OVERLOAD_SECONDS * 2 + 30 ))
while kill -0 "$over_wrapper" 2>/dev/null && (( $(date +%s) < deadline )); do
    created=$(stat_counts "$work/overload/stat.csv" "$target" | cut -d' ' -f1)
    (( created >= target )) && break
    sleep 0.2
done
# a second SIPp UAC needs its own port
UAC_PORT=$((UAC_PORT + 1))
start_uac "$HALF" "$RECOVERY_SECONDS" "$work/recovery"
recovery_wrapper=$uac_wrapper
uac_wrapper=$over_wrapper; finish_uac
read -r created ok failed made_at creating_s < <(stat_counts "$work/overload/stat.csv" "$target")
read -r o_served o_refused o_mean o_p99 < <(answers "$(rtt_file "$work/overload")")
o_placed=$(awk -v m="$made_at" -v s="$creating_s" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }')
o_goodput=$(awk -v n="$o_served" -v s="$OVERLOAD_SECONDS" 'BEGIN { printf "%.0f", n / s }')
o_pct=$(awk -v g="$o_goodput" -v p="$PEAK" 'BEGIN { printf "%.0f", 100 * g / p }')
rows+=("| overload | $OVER | $o_placed | $target | $o_served | $o_goodput ($o_pct % of peak) | $o_refused | $failed | $o_mean | $o_p99 |")
log "overload: placed at $o_placed/s, $o_served served, $o_refused refused, $failed failed; goodput $o_goodput/s = $o_pct % of $PEAK"
uac_wrapper=$recovery_wrapper; finish_uac
read -r created ok failed made_at creating_s < <(stat_counts "$work/recovery/stat.csv" "$(( HALF * RECOVERY_SECONDS ))")
read -r r_served r_refused r_mean r_p99 < <(answers "$(rtt_file "$work/recovery")")
rows+=("| recovery | $HALF | - | $(( HALF * RECOVERY_SECONDS )) | $r_served | - | $r_refused | $failed | $r_mean | $r_p99 |")
recovered=$(recovered_after "$(rtt_file "$work/recovery")" "$work/recovery/stat.csv" "$limit")
log "recovery: normal (no 503, no failed call, mean INVITE->200 <= $limit ms) after $recovered"

stop_pid "$server_wrapper"
stats=$(grep 'stats:' "$work/server.log" | tail -1 | sed 's/.*stats: //')
pauses=$(gc_pause_totals "$work/gc.log" | awk '{ printf "%d pauses, %.1f ms in all, longest %.1f ms", $1, $2, $3 }')

echo
echo "sipcrypt server, JVM options: $JAVA_OPTS $SERVER_ARGS; CPU: $(cpu_model), $(nproc) cores"
echo "peak $PEAK calls/s; overload $FACTOR x peak for $OVERLOAD_SECONDS s; recovery at $HALF/s"
echo
echo "| phase | offered calls/s | placed at calls/s | calls | answered 200 | goodput calls/s | refused 503 | failed | INVITE->200 mean ms | p99 ms |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
echo "Back to normal after the overload: $recovered (normal: no 503, no failed call, mean INVITE->200 <= $limit ms)."
echo "Server GC: $pauses. Server counters at exit: ${stats:-none logged}"
