#!/usr/bin/env bash
# Where the sipcrypt server spends its CPU under a steady SIPp load: a JFR profile of one case,
# reduced to the share of CPU samples per package and per sipcrypt method (inclusive: a method's
# share counts everything it called). A profile, not a benchmark: shares are comparable between
# runs, the CPU per call printed alongside only on a quiet machine.
#
# For the case (udp, tcp: one connection, tcp-per-call: a TCP connection per call from the UAC,
# SIPp -t tn, the UAS on one connection, udp-auth: digest with USERS subscribers, MD5):
#   1. start the server jar with JAVA_OPTS and -XX:StartFlightRecording (settings=profile), which
#      records from WARMUP + DELAY seconds after the start for RECORD seconds; a SIPp UAS registered
#      as bench-T@127.0.0.1 (udp-auth: the calls reach the UAS through the server as outbound proxy);
#   2. warm the server up at half the rate for WARMUP seconds (a cold JVM at the full rate sheds
#      calls with 503 while its JIT compiles), then place RATE calls/s for SECONDS (which must cover
#      DELAY + RECORD);
#   3. print: calls placed and failed, the server's CPU per call over the measured run (user and
#      system), the same by thread (names as /proc keeps them, 15 characters, without their
#      numbers: sipcrypt-io, sipcrypt-sip, C2_CompilerThre, ...) with context switches per call, the
#      bytes it allocated per call while recording (the JFR's per-thread allocation totals, first
#      to last, over RATE x RECORD calls), the samples
#      recorded, the share of samples per top-level package (the first frame outside the JDK), and
#      the TOP sipcrypt methods by inclusive share.
#
# Options (each also an environment variable of the upper-case name):
#   --jar PATH          server jar (default server/target/sipcrypt-server.jar)
#   --case udp|tcp|tcp-per-call|udp-auth  (default udp-auth)
#   --rate N            calls/s (default 800)
#   --seconds N         length of the run (default 45)
#   --warmup N          seconds at half the rate before the measured run (default 20; 0: none)
#   --delay N           seconds from the measured run's start to the recording (default 15)
#   --record N          seconds recorded (default 20)
#   --users N           subscribers for udp-auth (default 10000)
#   --top N             methods listed (default 25)
#   --server-port N     server UDP and TCP port (default 27060); UAS on +10, UAC on +20, REGISTER on +21
#   --keep              keep the work directory (the recording is rec.jfr there)
# Env only: JAVA (default java), JAVA_OPTS (default: the server's recommended options), SERVER_ARGS
# (extra server options, a word list, e.g. "--io-threads 2"), SIPP.
#
# Loopback only. Every SIPp and java run is bounded by `timeout`; everything started is ended by
# PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"

options=("${server_options[@]}"  --server-port SERVER_PORT:-27060
    --case CASE:-udp-auth  --rate RATE:-800  --seconds SECONDS_RUN:-45  --warmup WARMUP:-20  --delay DELAY:-15
    --record RECORD:-20
    --users USERS:-10000  --top TOP:-25)
parse_options "$@"
require_whole_numbers RATE SECONDS_RUN WARMUP DELAY RECORD USERS TOP SERVER_PORT
[[ $CASE == udp || $CASE == tcp || $CASE == tcp-per-call || $CASE == udp-auth ]] \
    || die "--case: \"$CASE\" (expected udp, tcp, tcp-per-call or udp-auth)"
(( DELAY + RECORD <= SECONDS_RUN )) || die "--delay + --record ($((DELAY + RECORD)) s) must fit in --seconds ($SECONDS_RUN)"
require_jar_and_sipp
command -v jfr >/dev/null || die "jfr (the JDK's tool) not found on PATH"
sipp_ports "$SERVER_PORT"
start_work profile

transport=${CASE%-auth} mode=u1 sockets=()
transport=${transport%-per-call}
[[ $transport == tcp ]] && mode=t1
# a connection per call: SIPp refuses to start with more sockets than open files allowed
[[ $CASE == tcp-per-call ]] && mode=tn sockets=(-max_socket "$(( $(ulimit -n) * 3 / 4 ))")
server_args=()
uac_args=(-sf "$here/uac.xml" -s "bench-$transport")
remote=127.0.0.1:$SERVER_PORT
if [[ $CASE == udp-auth ]]; then
    "$JAVA" -jar "$JAR" users --data-dir "$work/data" generate --count "$USERS" --csv "$work/users.csv" \
        >"$work/users.log" 2>&1 || die "users generate failed: $(tail -3 "$work/users.log")"
    server_args=(--auth --auth-algorithms md5)
    uac_args=(-sf "$here/uac-auth.xml" -inf "$work/users.csv" -s bench -rsa "127.0.0.1:$SERVER_PORT"
              -auth_uri "bench@127.0.0.1:$UAS_PORT")
    remote=127.0.0.1:$UAS_PORT
fi
limit=$((WARMUP + SECONDS_RUN + 160))
# shellcheck disable=SC2086  # SERVER_ARGS is a word list
start_server "$limit" "$work/server.log" "udp tcp" \
    "-XX:StartFlightRecording=filename=$work/rec.jfr,settings=profile,delay=$((WARMUP + DELAY))s,duration=${RECORD}s" -- \
    --data-dir "$work/data" --listen "udp:127.0.0.1:$SERVER_PORT" --listen "tcp:127.0.0.1:$SERVER_PORT" \
    --stats-interval 0 "${server_args[@]}" $SERVER_ARGS
start_uas "$limit" "$transport" "$work/callee"
[[ $CASE != udp-auth ]] && register_uas "$transport" "$work/callee"

# place_calls RATE SECONDS NAME: SIPp's UAC, statistics in $work/NAME.csv
place_calls() {
    timeout -k 5 "$(($2 + 40))" "$SIPP" "${uac_args[@]}" -i 127.0.0.1 -ci 127.0.0.1 -bind_local \
        -p "$UAC_PORT" -t "$mode" "${sockets[@]}" -buff_size 4194304 -r "$1" -m "$(($1 * $2))" \
        -timeout "$(($2 + 30))" -nostdin -trace_stat -stf "$work/$3.csv" \
        -key contact_port "$UAS_PORT" -key contact_transport "$transport" \
        "$remote" >/dev/null 2>"$work/$3.stderr"
}
if (( WARMUP > 0 )); then
    log "$CASE: warm-up at $((RATE / 2)) calls/s for $WARMUP s"
    place_calls "$((RATE / 2))" "$WARMUP" warmup
fi
# thread_ticks PID: per thread name without its numbers, "name user+system-ticks context-switches"
# (the JVM's recording, sampling only threads in Java code, misses the kernel's share: a connection per call's)
thread_ticks() {
    local t
    for t in /proc/"$1"/task/*; do
        printf '%s %s %s\n' "$(sed -E 's/([-#_ ]?[0-9]+)+$//; s/ /_/g' "$t/comm")" \
            "$(awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "$t/stat")" \
            "$(awk '/ctxt_switches/ { n += $2 } END { print n }' "$t/status")"
    done 2>/dev/null | awk '{ t[$1] += $2; c[$1] += $3 } END { for (k in t) print k, t[k], c[k] }' | sort
}
log "$CASE: $RATE calls/s for $SECONDS_RUN s, recording from ${DELAY} s for ${RECORD} s"
cpu0=$(cpu_ticks "$server_pid")
read -r -a ut0 < <(awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12], f[13] }' "/proc/$server_pid/stat")
thread_ticks "$server_pid" >"$work/threads0"
place_calls "$RATE" "$SECONDS_RUN" stat
cpu1=$(cpu_ticks "$server_pid")
read -r -a ut1 < <(awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12], f[13] }' "/proc/$server_pid/stat")
thread_ticks "$server_pid" >"$work/threads1"
read -r successful failed < <(stat_counts "$work/stat.csv" "$((RATE * SECONDS_RUN))" | awk '{print $2, $3}')
ticks=$(getconf CLK_TCK)
for _ in $(seq 1 50); do [[ -s $work/rec.jfr ]] && break; sleep 0.2; done
stop_pid "$server_wrapper"
[[ -s $work/rec.jfr ]] || die "no recording written (server log: $(tail -3 "$work/server.log"))"

echo "case $CASE, $RATE calls/s for $SECONDS_RUN s: successful ${successful:-?}, failed ${failed:-?}"
echo "server CPU per call over the run: $(( (cpu1 - cpu0) * 1000000 / ticks / (RATE * SECONDS_RUN) )) µs" \
    "(user $(( (ut1[0] - ut0[0]) * 1000000 / ticks / (RATE * SECONDS_RUN) )), system" \
    "$(( (ut1[1] - ut0[1]) * 1000000 / ticks / (RATE * SECONDS_RUN) )))"
echo "by thread (µs per call, context switches per call):"
join -a 2 "$work/threads0" "$work/threads1" | awk -v calls="$((RATE * SECONDS_RUN))" -v ticks="$ticks" '
    NF == 3 { $5 = $3; $4 = $2; $2 = 0; $3 = 0 }    # a thread started during the run
    { us = ($4 - $2) * 1000000 / ticks / calls; if (us >= 1) printf "%6.0f µs  %5.1f  %s\n", us, ($5 - $3) / calls, $1 }' |
    sort -rn
jfr print --json --events jdk.ThreadAllocationStatistics "$work/rec.jfr" | awk -v calls="$((RATE * RECORD))" '
    /"allocated":/ { a = $2; gsub(/[^0-9]/, "", a) }
    /"javaThreadId":/ { t = $2; gsub(/[^0-9]/, "", t); if (!(t in first)) first[t] = a; last[t] = a }
    END {
        for (t in first) sum += last[t] - first[t]
        if (calls > 0 && sum > 0) printf "allocated per call while recording: %.1f KB\n", sum / calls / 1024
    }'
jfr print --stack-depth 64 --events jdk.ExecutionSample "$work/rec.jfr" | awk -v top="$TOP" '
    function flush(   k) {
        if (!inside) return
        n++
        pkg[first == "" ? "(JDK only)" : first]++
        for (k in seen) inc[k]++
        delete seen
        first = ""; inside = 0
    }
    /^jdk\.ExecutionSample/ { flush(); inside = 1; next }
    inside && /^[ \t]+[a-zA-Z_$][a-zA-Z0-9_$.]*\(/ {
        frame = $1; sub(/\(.*/, "", frame)
        if (first == "" && frame !~ /^(java|javax|jdk|sun)\./) {
            k = split(frame, p, "."); first = p[1]; for (i = 2; i <= (k > 4 ? 4 : k - 2); i++) first = first "." p[i]
        }
        if (frame ~ /^org\.sipcrypt\./) seen[frame] = 1
    }
    END {
        flush()
        printf "%d CPU samples\n\nshare of samples by package (first frame outside the JDK)\n", n
        for (k in pkg) printf "%5.1f %%  %s\n", 100 * pkg[k] / n, k | "sort -rn"
        close("sort -rn")
        printf "\nsipcrypt methods, inclusive share (top %d)\n", top
        for (k in inc) printf "%5.1f %%  %s\n", 100 * inc[k] / n, k | ("sort -rn | head -" top)
        close("sort -rn | head -" top)
    }'
