#!/usr/bin/env bash
# A shutdown under load: SIGTERM to the sipcrypt server while calls are up, measured with SIPp over UDP.
# A benchmark, not a test: it prints a table and fails only when it cannot measure.
#
# One server (the jar, JAVA_OPTS, shutdown.grace GRACE), a SIPp UAS registered as the callee, and
# a SIPp UAC (uac-overload.xml: a 503 to the INVITE is an answer) placing RATE calls/s that each
# hold HOLD ms before their BYE. After TERM_AFTER seconds the server gets SIGTERM. Then:
#   established   calls answered 200 (response time 1 in SIPp's -trace_rtt file);
#   lost BYE      established calls that did not end normally: their BYE got no 200;
#   refused       new INVITEs answered 503 during the drain;
#   unanswered    calls that got no answer at all (after the server has exited);
#   exit after    seconds from SIGTERM to the server's exit.
# With GRACE above HOLD no established call should lose its BYE, and every new INVITE before the
# exit gets a 503.
#
# Options (each also an environment variable of the upper-case name):
#   --rate N          calls/s (default 200)      --hold MS     call hold time (default 3000)
#   --term-after N    seconds of load before SIGTERM (default 10)
#   --grace DURATION  the server's shutdown.grace (default 10s)
#   --jar PATH        server jar (default server/target/sipcrypt-server.jar)
#   --server-port N   server UDP port (default 27060); UAS on +10, UAC on +20, REGISTER on +21
#   --keep            keep the work directory
# Env only: JAVA (default java), JAVA_OPTS (default: the server's recommended options), SIPP (default sipp).
#
# Loopback only. Every SIPp and java run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"

options=("${server_options[@]}"  --server-port SERVER_PORT:-27060
    --rate RATE:-200  --hold HOLD:-3000  --term-after TERM_AFTER:-10  --grace GRACE:-10s)
parse_options "$@"

require_whole_numbers RATE HOLD TERM_AFTER SERVER_PORT
require_jar_and_sipp

sipp_ports "$SERVER_PORT"
start_work shutdown

require_ports_free --server-port udp "$SERVER_PORT"
limit=$(( TERM_AFTER * 3 + HOLD / 1000 + 300 ))

start_server "$limit" "$work/server.log" udp -- --listen "udp:127.0.0.1:$SERVER_PORT" --data-dir "$work/data" \
    --stats-interval 0 --shutdown-grace "$GRACE"
start_uas "$limit" udp "$work/callee"
register_uas udp "$work/callee"

calls=$(( RATE * TERM_AFTER * 2 ))
log "calls at $RATE/s holding ${HOLD} ms; SIGTERM to the server after ${TERM_AFTER} s (grace $GRACE)"
mkdir -p "$work/uac"
( cd "$work/uac" && exec timeout -k 5 "$((limit - 20))" "$SIPP" -sf "$here/uac-overload.xml" -s bench-udp \
    -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$UAC_PORT" -t u1 -buff_size 4194304 -d "$HOLD" \
    -r "$RATE" -m "$calls" -timeout "$(( TERM_AFTER * 2 + HOLD / 1000 + 60 ))" -nostdin \
    -trace_stat -stf "$work/uac/stat.csv" -fd 1 -trace_rtt -rtt_freq 1 \
    -trace_err -error_file "$work/uac/errors.log" "127.0.0.1:$SERVER_PORT" >/dev/null 2>"$work/uac/stderr" ) &
uac_wrapper=$!
started+=("$uac_wrapper")

sleep "$TERM_AFTER"
log "SIGTERM to the server (pid $server_pid)"
term_ns=$(now_ns)
kill -TERM "$server_pid"
while kill -0 "$server_pid" 2>/dev/null; do sleep 0.05; done
exit_s=$(awk -v a="$term_ns" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
log "server exited ${exit_s} s after SIGTERM"
wait_started "$uac_wrapper"

rtt=$(rtt_file "$work/uac")
read -r established refused < <(rtt_counts "${rtt:-/dev/null}")
successful=$(stat_last "$work/uac/stat.csv" "SuccessfulCall(C)")
failed=$(stat_last "$work/uac/stat.csv" "FailedCall(C)")
# a refused call ends successfully too; an established call ends successfully only with its BYE answered
lost_bye=$(( established - (successful - refused) ))
(( lost_bye < 0 )) && lost_bye=0
unanswered=$(( failed - lost_bye ))
(( unanswered < 0 )) && unanswered=0
drain=$(grep -o 'drained in [0-9]* ms\|shutting down after .*' "$work/server.log" | tail -1)

echo
echo "sipcrypt server, JVM options: $JAVA_OPTS, shutdown.grace $GRACE; CPU: $(cpu_model), $(nproc) cores"
echo
echo "| calls/s | hold ms | SIGTERM after | calls placed | established (200) | lost their BYE | refused 503 | unanswered | exit after SIGTERM |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
echo "| $RATE | $HOLD | ${TERM_AFTER} s | $calls | $established | $lost_bye | $refused | $unanswered | ${exit_s} s |"
echo
echo "Server: ${drain:-no drain line logged}"
