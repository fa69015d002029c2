#!/usr/bin/env bash
# sipcrypt and Kamailio side by side in the SIPp benchmark: the same machine, the same SIPp
# scenarios, the same rates, measured alternately in one run.
# A benchmark, not a test: it prints numbers and fails only when it cannot measure.
#
# Cases (--cases): udp, tcp (one connection, SIPp -t t1), tcp-per-call (a connection per call,
# SIPp -t tn) and udp-auth (UDP with digest
# authentication: uac-auth.xml, INVITE / 407 / INVITE with Proxy-Authorization, callers from
# USERS subscribers made by the jar's `users generate`; Kamailio reads the same users from a SQLite
# subscriber table created with Debian's schema in /usr/share/kamailio/db_sqlite/).
# For each case:
#   1. start the sipcrypt jar (JAVA_OPTS, GC log) and Kamailio (scenarios/kamailio/kamailio.cfg,
#      WITH_AUTH for udp-auth; as its users size it for the CPUs it gets: -n and -N workers, one per
#      CPU the server under test runs on, and -b, a UDP receive buffer as large as sipcrypt's) on 127.0.0.1, each with its own SIPp UAS (uas.xml) registered as
#      the callee (register.xml, or register-auth.xml with auth);
#   2. warm both up at START_RATE for WARMUP_SECONDS (unmeasured);
#   3. one step at FIXED_RATE for FIXED_SECONDS, each server in turn: server CPU %, CPU µs per
#      call, mean and p99 INVITE→200;
#   4. the peak search of bench.sh, the two servers' steps alternating: both start at START_RATE
#      and multiply by STEP_FACTOR while their step passes (the same rates), then each bisects
#      between its last passing and first failing rate REFINE times and repeats its best rate once
#      (CONFIRM). A step passes as in bench.sh: fewer than MAX_FAILED_PCT % failed or unfinished
#      calls (SIPp's -trace_stat) and calls created at MIN_ACHIEVED_PCT % of the rate or more;
#   5. one step for FIXED_SECONDS at FRACTION of each server's own peak (rounded down to tens), each
#      server in turn: CPU µs per call where both are equally far from their limits (0 or no peak:
#      skipped);
#   6. with --overload-seconds N (N > 0), each server in turn: OVERLOAD_FACTOR x its own peak of
#      this case and run for N s, then at once half that peak (rounded down to tens) for
#      RECOVERY_SECONDS, as overload.sh does (scenarios/lib/sipp-overload.sh; uac-overload.xml,
#      uac-auth-overload.xml for udp-auth, take a 503 as an answer): the offered rate, goodput
#      (calls answered 200 per second of the overload phase) and as % of that peak, the share of
#      calls refused with 503, failed calls (no answer or another one, by kind), mean and p99
#      INVITE→200 in the overload, and the seconds until every later second of the recovery is
#      normal (no 503, no failed call, mean INVITE→200 at most max(3 x the mean at half the peak,
#      2 ms); that mean from the step-5 step when --fraction is 0.5, else from a step at half the
#      peak run for FIXED_SECONDS first). No peak: skipped, with the reason. The servers are not
#      restarted: the case ends after this step, and the next case starts both afresh.
# Which server goes first, in the warm-up and in steps 3 to 6, alternates from case to case and from
# run to run (--first, sipcrypt by default, first in the first case of the first run), so that
# neither always follows the other's load (a collapsed step keeps retransmitting into the next one).
# With --runs N the whole comparison runs N times; the table then has a row pair per run and case,
# and a summary per case gives each ratio's median and range over the runs (and, with the
# overload step, each server's goodput as % of its own peak).
# Server CPU: utime + stime from /proc (the JVM; Kamailio's main process and all its children),
# CPU % of one core over the load window, µs per call over the whole step / successful calls.
# INVITE→200: SIPp's response time 1 (rtd of the 200, first INVITE included, so with auth the
# 407 round trip too), per call from -trace_rtt; SIPp measures it in whole milliseconds.
# GC pauses: the sipcrypt JVM's -Xlog:gc,gc+phases `Pause` lines (every collector's pauses) over the whole case (warm-up included).
# Each step's log line also says what its failed calls got instead of their answers (SIPp's
# errors.log: "503 x12, no answer x3": a 503 is the server's overload guard refusing) and how many
# datagrams the kernel dropped over the step for a full UDP receive buffer (RcvbufErrors of
# /proc/net/snmp, every socket: the server's and SIPp's), so a failing step says why it failed.
# Output: a Markdown table, one row per (case, server), on stdout (and in --out FILE); with the
# overload step a second table, one row per (run, case, server), and its summary.
#
# Options (each also an environment variable of the upper-case name, e.g. STEP_SECONDS=5):
#   --jar PATH               sipcrypt server jar (default server/target/sipcrypt-server.jar)
#   --cases "udp tcp tcp-per-call udp-auth"  cases to measure (default "udp tcp udp-auth")
#   --fixed-rate N           rate of the fixed-rate step, calls/s (default 1500)
#   --fixed-seconds N        length of the fixed-rate step and of the equal-fraction step (default 15)
#   --fraction F             the equal-fraction step's share of each server's own peak, 0 to 1
#                            (default 0.5; 0: no such step)
#   --kamailio-workers N     Kamailio's UDP and TCP worker processes, -n and -N (default: the number
#                            of CPUs the server under test runs on: the --pin server set, else all)
#   --overload-seconds N     length of the overload step (step 6), s (default 0: no such step)
#   --overload-factor F      the overload's rate as a multiple of each server's own peak (default 2)
#   --recovery-seconds N     length of the recovery at half the peak after it (default 20)
#   --runs N                 run the whole comparison N times, each server started afresh per case
#                            and run (default 1)
#   --first sipcrypt|kamailio  the server that goes first in the first case of the first run
#                            (default sipcrypt); the order alternates from there
#   --start-rate N           warm-up rate and first step of the peak search (default 500)
#   --max-rate N             no step goes above this (default 20000)
#   --step-factor F          rate multiplier between passing steps (default 1.5)
#   --refine N               bisection steps after the first failure (default 3)
#   --confirm 0|1            repeat the best rate once (default 1)
#   --step-seconds N         length of a peak-search step (default 10)
#   --warmup-seconds N       unmeasured warm-up at START_RATE (default 90: the JVM must finish
#                            compiling the byte paths, or the compiler's work and its slow first
#                            minutes are charged to the measured steps)
#   --users N                subscribers for udp-auth (default 10000)
#   --budget-seconds N       total time budget, shared equally by the cases of all runs (default 3600);
#                            a case's peak search and equal-fraction step leave the overload step
#                            its time (per server the overload, the recovery, SIPp's grace and the
#                            cooldown, and the half-peak step when --fraction is not 0.5)
#   --max-failed-pct P       a step fails at this share of failed calls or more (default 1)
#   --max-mean-ms N          a step also fails when its mean INVITE→200 is N ms or more (default 0:
#                            no latency limit, as bench.sh; a passing step with a mean of 50 ms or
#                            more is flagged "queueing" in the note)
#   --pin auto|off|S/L       CPU pinning (default auto): with two CPUs or more, each server under
#                            test (the sipcrypt JVM, Kamailio and all its processes) on the last
#                            CPU and every SIPp on the others, so that a peak is the server's own
#                            core's and not the load generator's (the sipcrypt JVM's JIT compiler
#                            threads go with SIPp, as in the lab: compiling is a warm-up
#                            transient); S/L gives taskset CPU lists, e.g. 1/0; off runs
#                            everything on every core
#   --port N                 sipcrypt's UDP and TCP port (default 15060), Kamailio on N+100;
#                            each server's UAS on +10, UAC on +20, REGISTER on +21
#   --out FILE               also write the table (with its header lines) to FILE
#   --quick                  smoke run: 3 s steps, 2 s warm-up, rates 100..300, fixed rate 100,
#                            fraction 0.5, no bisection, no confirmation, budget 900 s (explicit
#                            options win)
#   --keep                   keep the work directory (logs, SIPp statistics, GC logs) on exit
# Env only: JAVA (default java), JAVA_OPTS (default -Xmx1g -Xms1g -XX:+UseZGC
#   -XX:+AlwaysPreTouch; with the server pinned to one CPU, -XX:+UseG1GC in place of ZGC, whose
#   concurrent cycles would share that CPU with the SIP lane), SERVER_ARGS (extra sipcrypt options), SIPP,
#   KAMAILIO (default kamailio), KAMAILIO_SHM_MB (1024: the memory sipcrypt's heap gets), KAMAILIO_PKG_MB (16),
#   KAMAILIO_MAXBUFFER (4194304: Kamailio's -b, the largest UDP receive buffer it probes for; sipcrypt
#   asks for 4 MiB, and both get at most net.core.rmem_max),
#   MIN_ACHIEVED_PCT (90), COOLDOWN_SECONDS (2).
#
# Kamailio is installed from Debian (kamailio, kamailio-sqlite-modules) when `kamailio` is not on
# PATH, or its SQLite module is missing for udp-auth, and this runs as root.
# Loopback only. Every SIPp, java and kamailio run is bounded by `timeout`; everything started is
# ended by PID on exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

# --quick sets defaults; explicit options and environment variables still win
quick=0
for a in "$@"; do [[ $a == --quick ]] && quick=1; done
if (( quick )); then
    : "${STEP_SECONDS:=3}" "${FIXED_SECONDS:=3}" "${WARMUP_SECONDS:=2}" "${START_RATE:=100}"
    : "${MAX_RATE:=300}" "${FIXED_RATE:=100}" "${REFINE:=0}" "${CONFIRM:=0}" "${BUDGET_SECONDS:=900}"
    : "${COOLDOWN_SECONDS:=1}" "${FRACTION:=0.5}"
fi

KAMAILIO=${KAMAILIO:-kamailio}
KAMAILIO_SHM_MB=${KAMAILIO_SHM_MB:-1024}
KAMAILIO_PKG_MB=${KAMAILIO_PKG_MB:-16}
KAMAILIO_MAXBUFFER=${KAMAILIO_MAXBUFFER:-4194304}
KAMAILIO_CFG=${KAMAILIO_CFG:-$root/scenarios/kamailio/kamailio.cfg}

# shellcheck source=../lib/sipp-server.sh
source "$root/scenarios/lib/sipp-server.sh"   # JAR, KEEP, JAVA, JAVA_OPTS, SIPP; usage, die, log, parse_options
# shellcheck source=../lib/sipp-steps.sh
source "$root/scenarios/lib/sipp-steps.sh"
# shellcheck source=../lib/sipp-overload.sh
source "$root/scenarios/lib/sipp-overload.sh"

options=(--jar JAR  --keep KEEP=1  --quick quick=1  --cases CASES:-"udp tcp udp-auth"
    --fixed-rate FIXED_RATE:-1500  --fixed-seconds FIXED_SECONDS:-15  --start-rate START_RATE:-500
    --max-rate MAX_RATE  --step-factor STEP_FACTOR  --refine REFINE  --confirm CONFIRM
    --step-seconds STEP_SECONDS  --warmup-seconds WARMUP_SECONDS:-90  --users USERS:-10000
    --budget-seconds BUDGET_SECONDS:-3600  --max-failed-pct MAX_FAILED_PCT  --max-mean-ms MAX_MEAN_MS:-0
    --port PORT:-15060  --pin PIN:-auto  --out OUT:-  --fraction FRACTION:-0.5  --runs RUNS:-1  --first FIRST:-sipcrypt
    --kamailio-workers KAMAILIO_WORKERS:-  --overload-seconds OVERLOAD_SECONDS:-0
    --overload-factor OVERLOAD_FACTOR:-2  --recovery-seconds RECOVERY_SECONDS:-20)
parse_options "$@"
set_pinning "$PIN"
log "$pin_note"

need_auth=0
for c in $CASES; do
    case $c in
        udp|tcp|tcp-per-call) ;;
        udp-auth) need_auth=1 ;;
        *) die "--cases: unknown case \"$c\" (expected udp, tcp, tcp-per-call or udp-auth)" ;;
    esac
done
require_whole_numbers FIXED_RATE FIXED_SECONDS START_RATE MAX_RATE REFINE CONFIRM STEP_SECONDS WARMUP_SECONDS USERS \
    BUDGET_SECONDS PORT MAX_MEAN_MS KAMAILIO_SHM_MB KAMAILIO_PKG_MB COOLDOWN_SECONDS RUNS KAMAILIO_MAXBUFFER \
    OVERLOAD_SECONDS RECOVERY_SECONDS
awk -v f="$OVERLOAD_FACTOR" 'BEGIN { exit !(f ~ /^[0-9]*\.?[0-9]+$/ && f + 0 > 0) }' \
    || die "--overload-factor $OVERLOAD_FACTOR: expected a number above 0"
(( OVERLOAD_SECONDS == 0 || RECOVERY_SECONDS > 0 )) || die "--recovery-seconds must be 1 or more with --overload-seconds"
# Kamailio's workers: one per CPU the server under test runs on, as its users size them
if [[ -z $KAMAILIO_WORKERS ]]; then
    if (( ${#server_pin[@]} )); then
        KAMAILIO_WORKERS=$(cpu_count "${server_pin[2]}")
    else
        KAMAILIO_WORKERS=$(nproc)
    fi
fi
require_whole_numbers KAMAILIO_WORKERS
(( KAMAILIO_WORKERS > 0 )) || die "--kamailio-workers must be 1 or more"
(( RUNS > 0 )) || die "--runs must be 1 or more"
[[ $FIRST == sipcrypt || $FIRST == kamailio ]] || die "--first $FIRST: expected sipcrypt or kamailio"
awk -v f="$FRACTION" 'BEGIN { exit !(f ~ /^[0-9]*\.?[0-9]+$/ && f + 0 >= 0 && f + 0 <= 1) }' \
    || die "--fraction $FRACTION: expected a number from 0 to 1"
(( START_RATE > 0 && START_RATE <= MAX_RATE )) || die "START_RATE $START_RATE must be in 1..MAX_RATE ($MAX_RATE)"
(( STEP_SECONDS > 0 && FIXED_SECONDS > 0 && FIXED_RATE > 0 && USERS > 0 )) \
    || die "STEP_SECONDS, FIXED_SECONDS, FIXED_RATE and USERS must be positive"
# shellcheck disable=SC2153  # PORT is set by parse_options from its table entry
(( PORT + 121 < 65536 )) || die "--port $PORT: too high"
[[ -f $KAMAILIO_CFG ]] || die "$KAMAILIO_CFG not found"
[[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -q -o -pl server -DskipTests package, or give --jar)"
JAR=$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")
[[ -z $OUT ]] || OUT=$(cd "$(dirname "$OUT")" 2>/dev/null && pwd)/$(basename "$OUT") || die "--out: no such directory"
command -v "$JAVA" >/dev/null || die "java not found"
command -v "$SIPP" >/dev/null || die "SIPp not found: install it with 'apt-get install -y sip-tester'"

# Kamailio from Debian when missing (as root only)
kamailio_modules() { ls -d /usr/lib/*/kamailio/modules /usr/lib/kamailio/modules 2>/dev/null | head -1; }
install_kamailio() {
    (( EUID == 0 )) || die "$*: install it as root with 'apt-get install -y kamailio kamailio-sqlite-modules'"
    log "$*: apt-get install -y kamailio kamailio-sqlite-modules"
    DEBIAN_FRONTEND=noninteractive timeout -k 10 900 apt-get install -y kamailio kamailio-sqlite-modules >&2 \
        || die "apt-get install kamailio kamailio-sqlite-modules failed"
}
if ! command -v "$KAMAILIO" >/dev/null; then
    install_kamailio "kamailio is not on PATH"
fi
if (( need_auth )) && [[ ! -f $(kamailio_modules)/db_sqlite.so ]]; then
    install_kamailio "Kamailio's db_sqlite module is missing"
fi
SQLITE_SCHEMA=/usr/share/kamailio/db_sqlite
if (( need_auth )); then
    [[ -f $SQLITE_SCHEMA/standard-create.sql && -f $SQLITE_SCHEMA/auth_db-create.sql ]] \
        || die "$SQLITE_SCHEMA/{standard,auth_db}-create.sql not found (package kamailio-sqlite-modules)"
    command -v sqlite3 >/dev/null || command -v python3 >/dev/null || die "neither sqlite3 nor python3 found"
fi

CLK_TCK=$(getconf CLK_TCK)
GRACE_SECONDS=5
SERVERS="sipcrypt kamailio"
kam_children=()     # "PID:STARTTIME" of Kamailio's worker processes, ended at exit if still there

end_kamailio_children() {
    local e pid st
    for e in "${kam_children[@]}"; do
        pid=${e%%:*} st=${e##*:}
        [[ $(start_time "$pid") == "$st" ]] && kill -TERM "$pid" 2>/dev/null
    done
    sleep 0.5
    for e in "${kam_children[@]}"; do
        pid=${e%%:*} st=${e##*:}
        [[ $(start_time "$pid") == "$st" ]] && kill -KILL "$pid" 2>/dev/null
    done
    kam_children=()
}
on_exit() { cleanup; end_kamailio_children; }
start_work vs-kamailio on_exit

# ---------------------------------------------------------------- provisioning

users_csv=$work/users.csv
callee_csv=$work/callee.csv
auth_data=$work/sipcrypt-auth-data
kam_db=$work/kamailio.sqlite
if (( need_auth )); then
    log "provisioning $USERS subscribers (realm 127.0.0.1) for sipcrypt and Kamailio"
    "$JAVA" -jar "$JAR" users generate --count "$USERS" --csv "$users_csv" --data-dir "$auth_data" \
        --realm 127.0.0.1 >>"$work/provision.log" 2>&1 || die "users generate failed: $(tail -3 "$work/provision.log")"
    "$JAVA" -jar "$JAR" users add callee callee-secret --data-dir "$auth_data" --realm 127.0.0.1 \
        >>"$work/provision.log" 2>&1 || die "users add callee failed: $(tail -3 "$work/provision.log")"
    printf 'SEQUENTIAL\ncallee;callee-secret\n' >"$callee_csv"
    {
        cat "$SQLITE_SCHEMA/standard-create.sql" "$SQLITE_SCHEMA/auth_db-create.sql"
        echo "BEGIN;"
        tail -n +2 "$users_csv" | awk -F';' 'NF >= 2 { gsub(/\x27/, "\x27\x27");
            printf "INSERT INTO subscriber (username, domain, password) VALUES (\x27%s\x27, \x27127.0.0.1\x27, \x27%s\x27);\n", $1, $2 }'
        echo "INSERT INTO subscriber (username, domain, password) VALUES ('callee', '127.0.0.1', 'callee-secret');"
        echo "COMMIT;"
    } >"$work/kamailio-users.sql"
    if command -v sqlite3 >/dev/null; then
        sqlite3 "$kam_db" <"$work/kamailio-users.sql" || die "sqlite3 could not create $kam_db"
    else
        python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read()); c.commit()' \
            "$kam_db" "$work/kamailio-users.sql" || die "python3 sqlite3 could not create $kam_db"
    fi
    n=$( (command -v sqlite3 >/dev/null && sqlite3 "$kam_db" 'SELECT COUNT(*) FROM subscriber;') \
        || python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM subscriber").fetchone()[0])' "$kam_db")
    (( n == USERS + 1 )) || die "Kamailio subscriber table has $n rows, expected $((USERS + 1))"
fi

# ---------------------------------------------------------------- servers and SIPp

declare -A srv_port=() srv_wrapper=() srv_pids=() uas_wrappers=() uas_pids=()
srv_port[sipcrypt]=$PORT
srv_port[kamailio]=$((PORT + 100))
case_timeout=$(( BUDGET_SECONDS + 300 ))

at_server() {           # server: SERVER_PORT and the SIPp ports beside it are that server's
    SERVER_PORT=${srv_port[$1]}
    sipp_ports "$SERVER_PORT"
}

start_sipcrypt() {      # case auth
    local c=$1 auth=$2 data=$work/$1-sipcrypt-data extra=()
    (( auth )) && data=$auth_data && extra=(--auth --auth-algorithms md5)
    mkdir -p "$data"
    at_server sipcrypt
    # shellcheck disable=SC2086  # SERVER_ARGS is a word list
    local jit=()
    (( ${#server_pin[@]} )) && jit=(-XX:-UseDynamicNumberOfCompilerThreads)
    start_server "$case_timeout" "$work/$c-sipcrypt.log" "udp tcp" "-Xlog:gc,gc+phases:file=$work/$c-gc.log" "${jit[@]}" -- \
        --listen "udp:127.0.0.1:$SERVER_PORT" --listen "tcp:127.0.0.1:$SERVER_PORT" --data-dir "$data" "${extra[@]}" \
        $SERVER_ARGS
    srv_wrapper[sipcrypt]=$server_wrapper srv_pids[sipcrypt]=$server_pid
    jit_off_server_cpus "$server_pid"
    log "sipcrypt: pid $server_pid on udp+tcp 127.0.0.1:$SERVER_PORT ($JAVA_OPTS)"
}

start_kamailio() {      # case auth
    local c=$1 auth=$2 port=${srv_port[kamailio]} run=$work/$1-kamailio-run defs=() kids k
    (( auth )) && defs=(-A WITH_AUTH -A "DBURL=\"sqlite://$kam_db\"")
    mkdir -p "$run"
    launch_listening "$case_timeout" "$work/$c-kamailio.log" "udp:$port tcp:$port" \
        "${server_pin[@]}" "$KAMAILIO" -f "$KAMAILIO_CFG" -DD -E -m "$KAMAILIO_SHM_MB" -M "$KAMAILIO_PKG_MB" \
        -Y "$run" -P "$run/kamailio.pid" -n "$KAMAILIO_WORKERS" -N "$KAMAILIO_WORKERS" -b "$KAMAILIO_MAXBUFFER" \
        "${defs[@]}" -l "udp:127.0.0.1:$port" -l "tcp:127.0.0.1:$port" \
        || { tail -30 "$work/$c-kamailio.log" >&2; die "Kamailio is not listening on udp and tcp 127.0.0.1:$port"; }
    srv_wrapper[kamailio]=$bg_wrapper
    sleep 1     # let it fork all its workers
    kids=$(ps -o pid= --ppid "$bg_pid" | tr -d ' ' | tr '\n' ' ')
    srv_pids[kamailio]="$bg_pid $kids"
    for k in $kids; do kam_children+=("$k:$(start_time "$k")"); done
    log "kamailio: pid $bg_pid + $(wc -w <<<"$kids") processes ($KAMAILIO_WORKERS UDP and $KAMAILIO_WORKERS TCP workers, -b $KAMAILIO_MAXBUFFER) on udp+tcp 127.0.0.1:$port"
}

start_server_uas() {    # server transport case auth: its UAS, registered as the callee
    local s=$1 transport=$2 prefix=$work/$3-$1 auth=$4
    at_server "$s"
    start_uas "$case_timeout" "$transport" "$prefix" "$(( MAX_RATE * case_timeout ))"
    uas_wrappers[$s]=$uas_wrapper uas_pids[$s]=$uas_pid
    if (( auth )); then
        register_uas "$transport" "$prefix" -sf "$here/register-auth.xml" -inf "$callee_csv"
    else
        register_uas "$transport" "$prefix"
    fi
}

stop_case() {
    local s
    for s in $SERVERS; do
        [[ -n ${uas_wrappers[$s]:-} ]] && stop_pid "${uas_wrappers[$s]}"
        [[ -n ${srv_wrapper[$s]:-} ]] && stop_pid "${srv_wrapper[$s]}"
        uas_wrappers[$s]= srv_wrapper[$s]=
    done
    end_kamailio_children
}

# The kernel's UDP receive-buffer drops so far, every socket of this network namespace (the
# RcvbufErrors of /proc/net/snmp's Udp line; -1 where not readable).
udp_rcvbuf_errors() {
    awk '$1 == "Udp:" { if (!n) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") col = i; n = 1 } else if (col) { print $col; found = 1 } }
        END { if (!found) print -1 }' /proc/net/snmp 2>/dev/null || echo -1
}

# Runs one step of the UAC against one server; sets step_ok step_failed_pct step_achieved
# step_cpu_pct step_us step_mean step_p99 step_sipp_pct, and step_causes: what the failed calls
# got instead of their answers (from SIPp's errors.log: "503 x12, no answer x3", or none) and how
# many UDP datagrams the kernel dropped for a full receive buffer over the step (any socket:
# the server's, SIPp's)
step_no=0
run_step() {            # server transport auth rate seconds tag
    local s=$1 transport=$2 auth=$3 rate=$4 seconds=$5 tag=$6 mode=u1 target sockets=()
    [[ $transport == tcp ]] && mode=t1
    # a connection per call: SIPp refuses to start with more sockets than open files allowed
    [[ $transport == tcp-per-call ]] && mode=tn sockets=(-max_socket "$(( $(ulimit -n) * 3 / 4 ))")
    target=$(( rate * seconds ))
    step_no=$((step_no + 1))
    local dir=$work/steps/$step_no-$tag-r$rate
    mkdir -p "$dir"
    local stf=$dir/stat.csv scen=(-sf "$here/uac.xml" -s "bench-${transport%-per-call}")
    # the digest uri must be the INVITE's Request-URI (sipcrypt checks it); SIPp's default lacks the user
    (( auth )) && scen=(-sf "$here/uac-auth.xml" -inf "$users_csv" -s callee -auth_uri "callee@127.0.0.1:${srv_port[$s]}")
    local measured drops0
    read -r -a measured <<<"${srv_pids[$s]}"
    drops0=$(udp_rcvbuf_errors)
    begin_step "${uas_pids[$s]}" "${measured[@]}"
    # SIPp writes its -trace_rtt file into the working directory
    ( cd "$dir" && exec timeout -k 5 "$((seconds + GRACE_SECONDS + 10))" "${load_pin[@]}" "$SIPP" "${scen[@]}" \
        -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$(( ${srv_port[$s]} + 20 ))" -t "$mode" "${sockets[@]}" -buff_size 4194304 \
        -r "$rate" -m "$target" -timeout "$((seconds + GRACE_SECONDS))" -nostdin \
        -trace_stat -stf "$stf" -fd 100ms -trace_rtt -rtt_freq "$(rtt_freq "$rate")" \
        -trace_err -error_file "$dir/errors.log" \
        "127.0.0.1:${srv_port[$s]}" >/dev/null 2>"$dir/stderr" ) &
    started+=("$!")
    measure_step "$!" "$stf" "$target" "${uas_pids[$s]}" "${measured[@]}"
    read -r step_mean step_p99 < <(rtt_stats "$(rtt_file "$dir")")
    step_ok=$(step_verdict "$rate" "$step_mean")
    local drops1
    drops1=$(udp_rcvbuf_errors)
    step_causes="failed calls got: $(unexpected_answers "$dir/errors.log"); UDP receive-buffer drops: $( (( drops0 >= 0 && drops1 >= 0 )) && echo $(( drops1 - drops0 )) || echo unknown)"
    log "$(printf '%-22s %6d cps x %3d s: %s  %d/%d ok, %d failed (SIPp exit %d), %s%% lost, created at %s cps, CPU %s%% (%s us/call), INVITE->200 mean %s ms p99 %s ms, SIPp CPU %s%%; %s' \
        "$tag" "$rate" "$seconds" "$([[ $step_ok == 1 ]] && echo pass || echo FAIL)" "$step_ok_calls" "$target" "$step_failed" \
        "$step_rc" "$step_failed_pct" "$step_achieved" "$step_cpu_pct" "$step_us" "$step_mean" "$step_p99" "$step_sipp_pct" "$step_causes")"
    sleep "$COOLDOWN_SECONDS"
}

# ---------------------------------------------------------------- the cases

median_range() {        # numbers... -> "median (lowest–highest), n runs", or "-" for none
    (( $# > 0 )) || { echo "-"; return; }
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f (%.2f–%.2f), %d run%s", m, v[1], v[NR], NR, NR == 1 ? "" : "s" }'
}

# How often Kamailio's shared memory ran out so far in case C: it then answers 500 and fails steps
# its CPU could carry.
kamailio_shm_out() {    # case
    local n
    n=$(grep -c "could not allocate shared memory" "$work/$1-kamailio.log" 2>/dev/null)
    echo "${n:-0}"
}

# Step 6 for one server of case C (run `run`): its overload at OVERLOAD_FACTOR x its peak of this
# case and run, then at once the recovery at half that peak; appends a row to ov_rows and its
# goodput % of the peak to ov_pcts[C:server]. Reads last_pass, fr_rate, fr_mean and note of the case.
overload_step() {       # server case transport auth
    local s=$1 c=$2 transport=$3 auth=$4 lp=${last_pass[$1]} name=sipcrypt half over base_mean limit
    local mode=u1 sockets=() scen why= gc0 gc0_ms gc1 gc1_ms shm0 server_note= pct refused_pct dir
    [[ $s == kamailio ]] && name=Kamailio
    half=$(( lp / 20 * 10 ))
    over=$(awk -v p="$lp" -v f="$OVERLOAD_FACTOR" 'BEGIN { printf "%d", p * f }')
    if (( lp == 0 )); then
        why="no peak found (below $START_RATE cps)"
    elif (( half == 0 || over == 0 )); then
        why="peak $lp cps too low for an overload and a recovery at half of it"
    elif (( $(date +%s) - case_start + ov_cost > share )); then
        why="no time left for the overload step"
    fi
    if [[ -n $why ]]; then
        ov_rows+=("| $run | $c | $name | $( (( lp > 0 )) && echo "$lp" || echo -) | - | - | - | - | - | - | - | - | - | $why |")
        log "$c-$s overload: skipped: $why"
        return
    fi
    # the normal latency at half the peak: the equal-fraction step's when it ran there, else a step now
    if [[ ${fr_rate[$s]:-0} == "$half" && -n ${fr_mean[$s]:-} ]]; then
        base_mean=${fr_mean[$s]}
    else
        run_step "$s" "$transport" "$auth" "$half" "$FIXED_SECONDS" "$c-$s-half"
        base_mean=$step_mean
    fi
    limit=$(normal_limit "$base_mean")
    [[ $transport == tcp ]] && mode=t1
    [[ $transport == tcp-per-call ]] && mode=tn sockets=(-max_socket "$(( $(ulimit -n) * 3 / 4 ))")
    scen=(uac-overload.xml -s "bench-${transport%-per-call}")
    (( auth )) && scen=(uac-auth-overload.xml -inf "$users_csv" -s callee -auth_uri "callee@127.0.0.1:${srv_port[$s]}")
    at_server "$s"
    [[ $s == sipcrypt ]] && read -r gc0 gc0_ms _ < <(gc_pause_totals "$work/$c-gc.log")
    shm0=$(kamailio_shm_out "$c")
    step_no=$((step_no + 1))
    dir=$work/steps/$step_no-$c-$s-overload
    log "$c-$s overload: $over cps ($OVERLOAD_FACTOR x its peak $lp) for $OVERLOAD_SECONDS s, then at once $half cps for $RECOVERY_SECONDS s"
    overload_and_recovery "$over" "$OVERLOAD_SECONDS" "$half" "$RECOVERY_SECONDS" "$dir" "$UAC_PORT" "$limit" \
        "${scen[@]}" -t "$mode" "${sockets[@]}"
    if [[ $s == sipcrypt ]]; then
        read -r gc1 gc1_ms _ < <(gc_pause_totals "$work/$c-gc.log")
        server_note="GC pauses in the overload and recovery: $(( gc1 - gc0 )), Σ $(awk -v a="$gc1_ms" -v b="$gc0_ms" 'BEGIN { printf "%.1f", a - b }') ms"
    elif (( $(kamailio_shm_out "$c") > shm0 )); then
        server_note="shared memory ran out $(( $(kamailio_shm_out "$c") - shm0 )) times (-m $KAMAILIO_SHM_MB)"
    fi
    pct=$(awk -v g="$o_goodput" -v p="$lp" 'BEGIN { printf "%.0f", 100 * g / p }')
    refused_pct=$(awk -v n="$o_refused" -v t="$o_target" 'BEGIN { printf "%.1f", (t > 0 ? 100 * n / t : 0) }')
    ov_pcts[$c:$s]="${ov_pcts[$c:$s]:-} $pct"
    ov_rows+=("| $run | $c | $name | $lp | $over | $o_placed | $o_goodput | $pct | $o_refused ($refused_pct %) | $o_failed | $o_mean | $o_p99 | $recovered | failed: $o_answers; recovery at $half cps: $r_refused refused, $r_failed failed; normal: mean ≤ $limit ms${server_note:+; $server_note} |")
    log "$c-$s overload: placed at $o_placed cps, goodput $o_goodput cps = $pct % of $lp, $o_refused refused (503), $o_failed failed ($o_answers), INVITE->200 mean $o_mean ms p99 $o_p99 ms; back to normal after $recovered"
    sleep "$COOLDOWN_SECONDS"
}

rows=()
ov_rows=()
declare -A ov_pcts=()    # "case:server" -> goodput % of its own peak in the overload step, of every run
declare -A ratios=()     # "case:kind" -> the ratios s/K of every run, space-separated (kind: peak, fixed, fraction)
ncases=$(wc -w <<<"$CASES")
share=$(( BUDGET_SECONDS / (ncases * RUNS) ))
# what the overload step takes, per server, and what the case keeps for it
ov_cost=$(( OVERLOAD_SECONDS + RECOVERY_SECONDS + GRACE_SECONDS + COOLDOWN_SECONDS + 1 ))
ov_reserve=0
if (( OVERLOAD_SECONDS > 0 )); then
    ov_reserve=$(( 2 * ov_cost ))
    awk -v f="$FRACTION" 'BEGIN { exit !(f + 0 == 0.5) }' \
        || ov_reserve=$(( ov_reserve + 2 * (FIXED_SECONDS + GRACE_SECONDS + COOLDOWN_SECONDS + 1) ))
fi
run_start=$(date +%s)

for (( run = 1; run <= RUNS; run++ )); do
turn=$(( run - 1 ))      # who goes first alternates from case to case, and for each case from run to run
[[ $FIRST == kamailio ]] && turn=$(( turn + 1 ))
for c in $CASES; do
    if (( turn++ % 2 == 0 )); then order="sipcrypt kamailio"; else order="kamailio sipcrypt"; fi
    transport=${c%-auth}
    auth=0
    [[ $c == *-auth ]] && auth=1
    case_start=$(date +%s)
    for s in $SERVERS; do
        p=${srv_port[$s]}
        require_ports_free --port "udp tcp" "$p" "$((p + 10))" "$((p + 20))" "$((p + 21))"
    done
    start_sipcrypt "$c" "$auth"
    start_kamailio "$c" "$auth"
    for s in $SERVERS; do
        start_server_uas "$s" "${transport%-per-call}" "$c" "$auth"
    done
    log "$c (run $run of $RUNS): both servers up, UAS registered; budget ${share}s; first: ${order%% *}"

    if (( WARMUP_SECONDS > 0 )); then
        for s in $order; do
            run_step "$s" "$transport" "$auth" "$START_RATE" "$WARMUP_SECONDS" "$c-$s-warmup"
        done
    fi

    declare -A fx_cpu=() fx_us=() fx_mean=() fx_p99=() fx_failed=() fr_rate=() fr_us=() fr_failed=() fr_mean=()
    for s in $order; do
        run_step "$s" "$transport" "$auth" "$FIXED_RATE" "$FIXED_SECONDS" "$c-$s-fixed"
        fx_cpu[$s]=$step_cpu_pct fx_us[$s]=$step_us fx_mean[$s]=$step_mean fx_p99[$s]=$step_p99
        fx_failed[$s]=$step_failed_pct
    done

    # the peak searches, one step of each server in turn
    declare -A rate=() last_pass=() first_fail=() phase=() refine_left=() note=() \
        pk_us=() pk_mean=() pk_cpu=() pk_p99=()
    for s in $SERVERS; do
        rate[$s]=$START_RATE last_pass[$s]=0 first_fail[$s]=0 phase[$s]=step refine_left[$s]=$REFINE note[$s]=
    done
    step_cost=$(( STEP_SECONDS + GRACE_SECONDS + COOLDOWN_SECONDS + 1 ))
    budget_hit=0
    while :; do
        active=0
        for s in $order; do
            # what this server does next: a ladder step, a bisection step, its confirmation, or nothing
            r= kind=
            if [[ ${phase[$s]} == step ]]; then r=${rate[$s]} kind=step; fi
            if [[ ${phase[$s]} == refine ]]; then
                mid=$(( (last_pass[$s] + first_fail[$s]) / 20 * 10 ))
                if (( refine_left[$s] > 0 && first_fail[$s] > 0 && mid > last_pass[$s] && mid < first_fail[$s] )); then
                    r=$mid kind=refine
                else
                    phase[$s]=confirm
                fi
            fi
            if [[ ${phase[$s]} == confirm ]]; then
                if (( CONFIRM && last_pass[$s] > 0 )); then r=${last_pass[$s]} kind=confirm; else phase[$s]=done; fi
            fi
            [[ -n $r ]] || continue
            if (( $(date +%s) - case_start + step_cost > share - ov_reserve )); then
                budget_hit=1
                phase[$s]=done
                note[$s]="${note[$s]:+${note[$s]}; }time budget reached"
                continue
            fi
            active=1
            suffix=; [[ $kind == step ]] || suffix=-$kind
            run_step "$s" "$transport" "$auth" "$r" "$STEP_SECONDS" "$c-$s$suffix"
            if (( step_ok )); then
                pk_us[$s:$r]=$step_us pk_mean[$s:$r]=$step_mean pk_cpu[$s:$r]=$step_cpu_pct pk_p99[$s:$r]=$step_p99
            fi
            case $kind in
                step)
                    if (( step_ok )); then
                        last_pass[$s]=$r
                        if (( r >= MAX_RATE )); then
                            phase[$s]=refine note[$s]="${note[$s]:+${note[$s]}; }reached --max-rate"
                        else
                            rate[$s]=$(next_rate "$r")
                        fi
                    else
                        first_fail[$s]=$r phase[$s]=refine
                    fi ;;
                refine)
                    refine_left[$s]=$(( refine_left[$s] - 1 ))
                    if (( step_ok )); then last_pass[$s]=$r; else first_fail[$s]=$r; fi ;;
                confirm)
                    phase[$s]=done
                    if (( ! step_ok )); then
                        note[$s]="${note[$s]:+${note[$s]}; }$r cps passed once, failed on repeat"
                        unset "pk_us[$s:$r]"
                        last_pass[$s]=0
                        for k in "${!pk_us[@]}"; do
                            [[ $k == "$s:"* ]] && (( ${k#*:} > last_pass[$s] )) && last_pass[$s]=${k#*:}
                        done
                    fi ;;
            esac
        done
        (( active )) || break
    done

    # the same share of each one's own peak, so that neither is measured nearer its limit
    for s in $order; do
        fr_rate[$s]=$(awk -v p="${last_pass[$s]}" -v f="$FRACTION" 'BEGIN { print int(p * f / 10) * 10 }')
        (( fr_rate[$s] > 0 )) || continue
        if (( $(date +%s) - case_start + FIXED_SECONDS + GRACE_SECONDS + COOLDOWN_SECONDS + 1 > share - ov_reserve )); then
            note[$s]="${note[$s]:+${note[$s]}; }no time left for the equal-fraction step"
            fr_rate[$s]=0
            continue
        fi
        run_step "$s" "$transport" "$auth" "${fr_rate[$s]}" "$FIXED_SECONDS" "$c-$s-fraction"
        fr_us[$s]=$step_us fr_failed[$s]=$step_failed_pct fr_mean[$s]=$step_mean
    done

    # the GC column and the notes cover steps 1 to 5; the overload step's are in its own table
    read -r gc_n gc_total gc_max < <(gc_pause_totals "$work/$c-gc.log")
    shm_out=$(kamailio_shm_out "$c")
    if (( OVERLOAD_SECONDS > 0 )); then
        for s in $order; do
            overload_step "$s" "$c" "$transport" "$auth"
        done
    fi
    stop_case

    for s in $SERVERS; do
        (( first_fail[$s] > 0 )) && note[$s]="${note[$s]:+${note[$s]}; }first failing step ${first_fail[$s]} cps"
        if awk -v f="${fx_failed[$s]}" -v m="$MAX_FAILED_PCT" 'BEGIN { exit !(f >= m) }'; then
            note[$s]="${note[$s]:+${note[$s]}; }${fx_failed[$s]} % failed at $FIXED_RATE cps"
        fi
    done
    (( shm_out > 0 )) && note[kamailio]="${note[kamailio]:+${note[kamailio]}; }shared memory ran out $shm_out times (-m $KAMAILIO_SHM_MB)"
    lp_s=${last_pass[sipcrypt]} lp_k=${last_pass[kamailio]}
    ratio_peak=$(awk -v a="$lp_s" -v b="$lp_k" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
    ratio_us=$(awk -v a="${fx_us[sipcrypt]}" -v b="${fx_us[kamailio]}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
    ratio_fr=$(awk -v a="${fr_us[sipcrypt]:-}" -v b="${fr_us[kamailio]:-}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
    for kind in peak fixed fraction; do
        case $kind in peak) r=$ratio_peak ;; fixed) r=$ratio_us ;; fraction) r=$ratio_fr ;; esac
        [[ $r == - ]] || ratios[$c:$kind]="${ratios[$c:$kind]:-} $r"
    done
    for s in $SERVERS; do
        lp=${last_pass[$s]}
        name=sipcrypt gc="Σ $gc_total ms, max $gc_max ms ($gc_n)" rp=$ratio_peak ru=$ratio_us rf=$ratio_fr
        [[ $s == kamailio ]] && name=Kamailio gc="-" rp="" ru="" rf=""
        [[ $s == "${order%% *}" ]] && name="$name (first)"
        if awk -v f="${fr_failed[$s]:-0}" -v m="$MAX_FAILED_PCT" 'BEGIN { exit !(f >= m) }'; then
            note[$s]="${note[$s]:+${note[$s]}; }${fr_failed[$s]} % failed at ${fr_rate[$s]} cps"
        fi
        fr="-"
        (( ${fr_rate[$s]:-0} > 0 )) && fr="${fr_us[$s]:--} @ ${fr_rate[$s]}"
        if (( lp > 0 )); then
            peak=$lp pus=${pk_us[$s:$lp]:--} pmean=${pk_mean[$s:$lp]:--}
            if awk -v m="$pmean" 'BEGIN { exit !(m != "-" && m + 0 >= 50) }'; then
                note[$s]="queueing at peak (mean INVITE→200 ≥ 50 ms)${note[$s]:+; ${note[$s]}}"
            fi
        else
            peak="< $START_RATE" pus=- pmean=-
        fi
        rows+=("| $run | $c | $name | $peak | ${fx_cpu[$s]} | ${fx_us[$s]} | ${fx_mean[$s]} | ${fx_p99[$s]} | $pus | $pmean | $fr | $gc | $rp | $ru | $rf | ${note[$s]} |")
    done
    unset fx_cpu fx_us fx_mean fx_p99 fx_failed fr_rate fr_us fr_failed fr_mean rate last_pass first_fail phase refine_left \
        note pk_us pk_mean pk_cpu pk_p99
    (( budget_hit )) && log "$c: time budget reached"
    sleep 1
done
done

# ---------------------------------------------------------------- the table

kam_version=$("$KAMAILIO" -v 2>/dev/null | sed -n 's/^version: *//p' | head -1 | sed 's/ *$//')
java_version=$("$JAVA" -version 2>&1 | head -1)
sipp_version=$("$SIPP" -v 2>&1 | grep -o 'SIPp v[^ ]*' | head -1)
{
    echo
    echo "sipcrypt vs Kamailio, SIPp on loopback, $(date -u +%Y-%m-%dT%H:%MZ), $(( $(date +%s) - run_start )) s"
    echo "CPU: $(cpu_model | grep . || echo unknown) ($(nproc) cores online); $pin_note"
    echo "sipcrypt: $(basename "$JAR") on $java_version, JAVA_OPTS=$JAVA_OPTS${SERVER_ARGS:+, SERVER_ARGS=$SERVER_ARGS}"
    echo "Kamailio: $kam_version, -n $KAMAILIO_WORKERS -N $KAMAILIO_WORKERS -b $KAMAILIO_MAXBUFFER -m $KAMAILIO_SHM_MB -M $KAMAILIO_PKG_MB; $sipp_version"
    echo "$RUNS run(s); fixed rate $FIXED_RATE calls/s and $FRACTION of each server's own peak, ${FIXED_SECONDS} s each; peak: < ${MAX_FAILED_PCT} % failed$( (( MAX_MEAN_MS > 0 )) && echo " and mean INVITE→200 < $MAX_MEAN_MS ms"), ${STEP_SECONDS} s steps from $START_RATE (x$STEP_FACTOR, $REFINE bisections, confirm $CONFIRM, max $MAX_RATE); udp-auth: $USERS users, MD5"
    echo "(CPU % is of one core; µs/call is server CPU time per successful call; INVITE→200 is SIPp's response time 1 in ms, whole-ms resolution; GC: the sipcrypt JVM's pauses over the whole case, Σ, max and count; ratios are sipcrypt / Kamailio: peak, CPU µs per call at the fixed rate, and CPU µs per call at $FRACTION of each one's own peak; (first): the server that went first in that case's steps)"
    echo
    echo "| run | case | server | peak calls/s | CPU % @ $FIXED_RATE/s | CPU µs/call @ $FIXED_RATE/s | mean INVITE→200 ms @ $FIXED_RATE/s | p99 INVITE→200 ms @ $FIXED_RATE/s | CPU µs/call @ peak | mean INVITE→200 ms @ peak | CPU µs/call @ $FRACTION × own peak | GC pauses (sipcrypt) | peak ratio s/K | CPU/call ratio s/K @ $FIXED_RATE/s | CPU/call ratio s/K @ $FRACTION × own peak | note |"
    echo "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Ratios s/K over the runs: median (lowest–highest), from the runs where both servers had the figure"
    echo
    echo "| case | peak | CPU/call @ $FIXED_RATE/s | CPU/call @ $FRACTION × own peak |"
    echo "| --- | ---: | ---: | ---: |"
    for c in $CASES; do
        line="| $c"
        for kind in peak fixed fraction; do
            line="$line | $(median_range ${ratios[$c:$kind]:-})"
        done
        echo "$line |"
    done
    if (( OVERLOAD_SECONDS > 0 )); then
        echo
        echo "Overload: $OVERLOAD_FACTOR x each server's own peak of that case and run for $OVERLOAD_SECONDS s, then at once half that peak for $RECOVERY_SECONDS s"
        echo "(goodput: calls answered 200 per second of the overload; refused: 503s, % of the calls offered; failed: calls with no answer or another one, by kind in the note; INVITE→200 over the overload; back to normal: seconds of the recovery until every later second has no 503, no failed call and a mean INVITE→200 at most max(3 x the mean at half the peak, 2 ms))"
        echo
        echo "| run | case | server | peak calls/s | offered calls/s | placed at calls/s | goodput calls/s | goodput % of peak | refused 503 | failed | mean INVITE→200 ms | p99 INVITE→200 ms | back to normal after | note |"
        echo "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
        printf '%s\n' "${ov_rows[@]}"
        echo
        echo "Overload goodput as % of the server's own peak over the runs: median (lowest–highest)"
        echo
        echo "| case | sipcrypt | Kamailio |"
        echo "| --- | ---: | ---: |"
        for c in $CASES; do
            # shellcheck disable=SC2086  # the values are a word list
            echo "| $c | $(median_range ${ov_pcts[$c:sipcrypt]:-}) | $(median_range ${ov_pcts[$c:kamailio]:-}) |"
        done
    fi
} | if [[ -n $OUT ]]; then tee "$OUT"; else cat; fi
