# shellcheck shell=bash disable=SC2034,SC2154  # a library: it sets and reads variables of the script that sources it
# The sipcrypt server, a SIPp UAS and its registration, as the benchmark scripts set them up
# (sourced right after the script has set `root`, not run), and what those scripts share besides:
# defaults, option parsing, usage, die and log; it sources processes.sh and sipp-stats.sh too. The
# sourcing script keeps `SERVER_PORT`, `UAS_PORT`, `REG_PORT` and `started`. Loopback only; every
# process runs under `timeout` and is listed in `started`, so cleanup ends it by PID.

# shellcheck source=../lib/processes.sh
source "$root/scenarios/lib/processes.sh"
# shellcheck source=../lib/sipp-stats.sh
source "$root/scenarios/lib/sipp-stats.sh"

# Defaults, each also an environment variable: the server jar, the JVM and its options (the
# server's recommended ones; set_pinning changes ZGC for G1 when it gives the server one CPU and
# JAVA_OPTS was not given), extra server options (a word list, none by default), SIPp, and
# whether to keep the work directory.
JAR=${JAR:-$root/server/target/sipcrypt-server.jar}
KEEP=${KEEP:-0}
JAVA=${JAVA:-java}
java_opts_given=${JAVA_OPTS+1}
JAVA_OPTS=${JAVA_OPTS--Xms1g -Xmx1g -XX:+UseZGC -XX:+AlwaysPreTouch}   # set but empty: no options
# The recommended options on one CPU: ZGC's concurrent cycles (a third of the time at 4,800 calls/s)
# would share that CPU with the SIP lane and stall it for 50-250 ms; G1 collects in short pauses.
JAVA_OPTS_ONE_CPU="-Xms1g -Xmx1g -XX:+UseG1GC -XX:+AlwaysPreTouch"
SERVER_ARGS=${SERVER_ARGS:-}
SIPP=${SIPP:-sipp}

# CPU pinning (set_pinning): command prefixes that run the server under test and the load (SIPp)
# on CPU sets of their own; empty, as every script starts, when nothing is pinned.
server_pin=() load_pin=() pin_note="SIPp and the server on the same cores"

# Sets the pinning from SPEC: "off" (none), "auto" (with two CPUs or more online, the server on the
# last one and the load on the others; none on one CPU) or "SERVER-CPUS/LOAD-CPUS" (taskset lists,
# e.g. 1/0 or 2-3/0-1). Sets server_pin, load_pin and pin_note (how the run was pinned, for reports);
# with the server on one CPU and no JAVA_OPTS given, JAVA_OPTS becomes JAVA_OPTS_ONE_CPU (G1).
set_pinning() {             # spec
    local spec=$1 server= load= cpus
    case $spec in
        off) ;;
        auto)
            cpus=$(nproc)
            if (( cpus >= 2 )); then
                server=$(( cpus - 1 )) load=0
                (( cpus > 2 )) && load=0-$(( cpus - 2 ))
            fi ;;
        */*) server=${spec%%/*} load=${spec#*/} ;;
        *) die "--pin: \"$spec\" is not auto, off or SERVER-CPUS/LOAD-CPUS (e.g. 1/0)" ;;
    esac
    server_pin=() load_pin=() pin_note="SIPp and the server on the same cores"
    [[ -z $server && -z $load ]] && return 0
    command -v taskset >/dev/null || die "--pin: taskset not found (util-linux)"
    [[ -n $server ]] && { taskset -c "$server" true 2>/dev/null || die "--pin: no such CPUs for the server: $server"; }
    [[ -n $load ]] && { taskset -c "$load" true 2>/dev/null || die "--pin: no such CPUs for the load: $load"; }
    [[ -n $server ]] && server_pin=(taskset -c "$server")
    [[ -n $load ]] && load_pin=(taskset -c "$load")
    pin_note="server under test pinned to CPU ${server:-any} (a JVM's JIT compiler threads with SIPp), SIPp to CPU ${load:-any} (taskset)"
    if [[ -n $server && -z $java_opts_given ]] && (( $(cpu_count "$server") == 1 )); then
        JAVA_OPTS=$JAVA_OPTS_ONE_CPU
        pin_note+="; the sipcrypt JVM on one CPU runs G1 (JAVA_OPTS=$JAVA_OPTS)"
    fi
}

# The number of CPUs in a taskset list such as 1, 2-3 or 0,2-3.
cpu_count() {               # list
    local part n=0 IFS=,
    for part in $1; do
        if [[ $part == *-* ]]; then n=$(( n + ${part#*-} - ${part%-*} + 1 )); else n=$(( n + 1 )); fi
    done
    echo "$n"
}

# Moves a pinned JVM's JIT compiler threads (started with -XX:-UseDynamicNumberOfCompilerThreads, so
# that they all exist from the start) to the load's CPUs: compiling is a warm-up transient, not a
# cost of the calls, and on one CPU it would crowd out the server's own threads (the lab does the
# same). Does nothing when nothing is pinned.
jit_off_server_cpus() {     # pid
    local t n=0
    [[ ${#server_pin[@]} -gt 0 && ${#load_pin[@]} -gt 0 ]] || return 0
    for t in /proc/"$1"/task/*; do
        if [[ $(cat "$t/comm" 2>/dev/null) == C[12]\ CompilerThre* ]]; then
            taskset -p -c "${load_pin[2]}" "${t##*/}" >/dev/null 2>&1 && n=$((n + 1))
        fi
    done
    (( n > 0 )) || die "--pin: no JIT compiler thread found in JVM $1"
    log "JVM $1: $n JIT compiler threads moved to CPU ${load_pin[2]}"
}

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }   # the script's header comment
die() { echo "${0##*/}: $*" >&2; exit 2; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# The options most scripts take: --jar and --keep (--help every script takes); each script names its
# --server-port SERVER_PORT:-N in its own table, with its own default port.
server_options=(--jar JAR --keep KEEP=1)

# Parses "$@" by the script's table `options`: pairs of an option and either a variable (the option
# takes a value: VAR=$2), VAR:-DEFAULT (the same, VAR first set to DEFAULT unless the environment
# sets it, as VAR=${VAR:-DEFAULT}: each setting is named once, with its option and its default) or
# VAR=VALUE (a switch). -h and --help print the usage; anything else is an error naming the option.
parse_options() {           # "$@"
    local -A takes=() sets=()
    local i spec
    for (( i = 0; i < ${#options[@]}; i += 2 )); do
        spec=${options[i + 1]}
        if [[ $spec == *:-* ]]; then
            takes[${options[i]}]=${spec%%:-*}
            [[ -n ${!takes[${options[i]}]:-} ]] || printf -v "${spec%%:-*}" '%s' "${spec#*:-}"
        elif [[ $spec == *=* ]]; then sets[${options[i]}]=$spec
        else takes[${options[i]}]=$spec; fi
    done
    while (( $# > 0 )); do
        if [[ -n ${takes[$1]+x} ]]; then
            (( $# > 1 )) || die "$1 needs a value (see --help)"
            printf -v "${takes[$1]}" '%s' "$2"
            shift 2
        elif [[ -n ${sets[$1]+x} ]]; then
            printf -v "${sets[$1]%%=*}" '%s' "${sets[$1]#*=}"
            shift
        else
            case $1 in
                -h|--help) usage; exit 0 ;;
                *) die "unknown option $1 (see --help)" ;;
            esac
        fi
    done
}

# Sets the SIPp ports beside the server's: the UAS on +10, the UAC on +20, REGISTER on +21.
sipp_ports() {              # server-port
    UAS_PORT=$(( $1 + 10 )) UAC_PORT=$(( $1 + 20 )) REG_PORT=$(( $1 + 21 ))
}

# Fails unless every named variable holds a whole number.
require_whole_numbers() {   # VAR...
    local v
    for v in "$@"; do
        [[ ${!v} =~ ^[0-9]+$ ]] || die "$v: \"${!v}\" is not a whole number"
    done
}

# Fails unless the server jar and SIPp are there, saying how to get them.
require_jar_and_sipp() {
    [[ -f $JAR ]] || die "server jar $JAR not found (build it with ./mvnw -q -DskipTests package)"
    command -v "$SIPP" >/dev/null || die "SIPp not found: install it with 'apt-get install -y sip-tester'"
}

# Starts the server jar for at most LIMIT seconds, its output in LOG, with extra JVM options before
# `--` and server options after it; sets server_wrapper and server_pid and waits until it listens
# for each of LISTENS (a space-separated list of udp, tcp, or PROTO:PORT; a bare protocol on
# SERVER_PORT). Returns 1, the server stopped, when it does not come up.
try_start_server() {        # limit log listens [jvm-option...] -- [server-option...]
    local limit=$1 out=$2 listens=() l jvm=()
    for l in $3; do [[ $l == *:* ]] && listens+=("$l") || listens+=("$l:$SERVER_PORT"); done
    shift 3
    while (( $# > 0 )) && [[ $1 != -- ]]; do jvm+=("$1"); shift; done
    (( $# > 0 )) && shift
    # shellcheck disable=SC2086  # JAVA_OPTS is a word list
    if ! launch_listening "$limit" "$out" "${listens[*]}" "${server_pin[@]}" "$JAVA" $JAVA_OPTS "${jvm[@]}" -jar "$JAR" "$@"; then
        stop_pid "$bg_wrapper"
        return 1
    fi
    server_wrapper=$bg_wrapper server_pid=$bg_pid
}

# As try_start_server, but fails with the end of the server's log when it does not come up.
start_server() {            # limit log listens [jvm-option...] -- [server-option...]
    try_start_server "$@" && return 0
    tail -20 "$2" >&2
    die "the server did not start listening on $3 (127.0.0.1:$SERVER_PORT)"
}

# Starts the SIPp UAS (uas.xml) on UAS_PORT for at most LIMIT seconds, over udp or tcp, taking at
# most MAX_CALLS calls (default 100000000); its statistics (every 5 s), errors and stderr go to
# PREFIX-uas.csv, PREFIX-uas-errors.log and PREFIX-uas.stderr. Sets uas_wrapper and uas_pid and
# waits until it listens.
start_uas() {               # limit transport(udp|tcp) prefix [max-calls]
    local limit=$1 transport=$2 prefix=$3 mode=u1
    [[ $transport == tcp ]] && mode=t1
    timeout -k 5 "$limit" "${load_pin[@]}" "$SIPP" -sf "$root/scenarios/sipp/uas.xml" -i 127.0.0.1 -ci 127.0.0.1 -bind_local \
        -p "$UAS_PORT" -t "$mode" -buff_size 4194304 -m "${4:-100000000}" -timeout "$(( limit - 10 ))" -nostdin \
        -trace_stat -stf "$prefix-uas.csv" -fd 5 -trace_err -error_file "$prefix-uas-errors.log" \
        >/dev/null 2>"$prefix-uas.stderr" &
    uas_wrapper=$!
    started+=("$uas_wrapper")
    uas_pid=$(command_pid "$uas_wrapper") || die "SIPp UAS did not start: $(tail -3 "$prefix-uas.stderr")"
    wait_listening "$transport" "$UAS_PORT" "$uas_wrapper" \
        || die "SIPp UAS is not listening on $transport 127.0.0.1:$UAS_PORT: $(tail -3 "$prefix-uas.stderr")"
}

# Registers the UAS at the server on SERVER_PORT: one REGISTER over UDP from REG_PORT, its contact on
# UAS_PORT over TRANSPORT; by default register.xml as user bench-TRANSPORT, else the SIPp scenario
# arguments given. SIPp's errors and stderr go to PREFIX-register-errors.log and PREFIX-register.stderr.
register_uas() {            # transport(udp|tcp) prefix [scenario-args...]
    local transport=$1 prefix=$2 rc=0 who=(-sf "$root/scenarios/sipp/register.xml" -s "bench-$1")
    shift 2
    (( $# > 0 )) && who=("$@")
    timeout -k 5 20 "${load_pin[@]}" "$SIPP" "${who[@]}" -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$REG_PORT" -t u1 \
        -key contact_port "$UAS_PORT" -key contact_transport "$transport" -m 1 -timeout 10 -nostdin \
        -trace_err -error_file "$prefix-register-errors.log" \
        "127.0.0.1:$SERVER_PORT" >/dev/null 2>"$prefix-register.stderr" &
    local wrapper=$!
    started+=("$wrapper")
    wait_started "$wrapper" || rc=$?
    (( rc == 0 )) || die "REGISTER of the UAS (127.0.0.1:$UAS_PORT;transport=$transport) at 127.0.0.1:$SERVER_PORT failed (SIPp exit $rc): $(tail -c 600 "$prefix-register-errors.log" 2>/dev/null)"
}
