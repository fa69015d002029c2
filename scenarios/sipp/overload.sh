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
# phases are relative to it. A peak from another run may be stale: `vs-kamailio.sh
# --overload-seconds N` runs the same phases (scenarios/lib/sipp-overload.sh) against each server's
# peak found in that run, for sipcrypt and Kamailio alike. SIPp's UAC runs on the same cores: the rate it reached is printed, and a
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
# shellcheck source=../lib/sipp-overload.sh
source "$root/scenarios/lib/sipp-overload.sh"

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

rows=()
phase() {           # name rate seconds -> appends a row; sets ph_served ph_refused ph_mean ph_p99 ph_failed
    local name=$1 rate=$2 seconds=$3 dir=$work/$1 created ok failed made_at creating_s placed_at
    start_overload_uac "$rate" "$seconds" "$dir" "$UAC_PORT" uac-overload.xml -s bench-udp -t u1
    wait_started "$uac_wrapper"
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
limit=$(normal_limit "$base_mean")

log "overload: $OVER/s for $OVERLOAD_SECONDS s, then at once recovery: $HALF/s for $RECOVERY_SECONDS s"
overload_and_recovery "$OVER" "$OVERLOAD_SECONDS" "$HALF" "$RECOVERY_SECONDS" "$work" "$UAC_PORT" "$limit" uac-overload.xml -s bench-udp -t u1
o_pct=$(awk -v g="$o_goodput" -v p="$PEAK" 'BEGIN { printf "%.0f", 100 * g / p }')
rows+=("| overload | $OVER | $o_placed | $o_target | $o_served | $o_goodput ($o_pct % of peak) | $o_refused | $o_failed | $o_mean | $o_p99 |")
log "overload: placed at $o_placed/s, $o_served served, $o_refused refused, $o_failed failed ($o_answers); goodput $o_goodput/s = $o_pct % of $PEAK"
rows+=("| recovery | $HALF | - | $r_target | $r_served | - | $r_refused | $r_failed | $r_mean | $r_p99 |")
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
