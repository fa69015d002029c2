# The sipcrypt server, a SIPp UAS and its registration, as the SIPp benchmark scripts set them up
# (sourced right after the script has set `root`, not run), and what those scripts share besides:
# defaults, usage, die and log. The sourcing script keeps `SERVER_PORT`, `UAS_PORT`, `REG_PORT` and
# `started`, and sources processes.sh too. Loopback only; every process runs under `timeout` and is
# listed in `started`, so cleanup ends it by PID.

# Defaults, each also an environment variable: the server jar, the JVM and its options (the
# server's recommended ones), SIPp, and whether to keep the work directory.
JAR=${JAR:-$root/server/target/sipcrypt-server.jar}
KEEP=${KEEP:-0}
JAVA=${JAVA:-java}
JAVA_OPTS=${JAVA_OPTS--Xms1g -Xmx1g -XX:+UseZGC -XX:+AlwaysPreTouch}   # set but empty: no options
SIPP=${SIPP:-sipp}

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }   # the script's header comment
die() { echo "${0##*/}: $*" >&2; exit 2; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# The options every script takes, at the front of "$@": --jar, --server-port, --keep and --help;
# any other is an error. Sets opt_used to how many arguments it took.
shared_option() {           # "$@"
    case $1 in
        --jar) JAR=$2; opt_used=2 ;;
        --server-port) SERVER_PORT=$2; opt_used=2 ;;
        --keep) KEEP=1; opt_used=1 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
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
# on SERVER_PORT for each of PROTOS (a space-separated list of udp and tcp).
start_server() {            # limit log protos [jvm-option...] -- [server-option...]
    local limit=$1 out=$2 protos=$3 jvm=() p
    shift 3
    while (( $# > 0 )) && [[ $1 != -- ]]; do jvm+=("$1"); shift; done
    (( $# > 0 )) && shift
    # shellcheck disable=SC2086  # JAVA_OPTS is a word list
    timeout -k 10 "$limit" "$JAVA" $JAVA_OPTS "${jvm[@]}" -jar "$JAR" "$@" >"$out" 2>&1 &
    server_wrapper=$!
    started+=("$server_wrapper")
    server_pid=$(command_pid "$server_wrapper") || die "server did not start"
    for p in $protos; do
        wait_listening "$p" "$SERVER_PORT" "$server_wrapper" \
            || { tail -20 "$out" >&2; die "server not listening on $p 127.0.0.1:$SERVER_PORT"; }
    done
}

# Starts the SIPp UAS (uas.xml) on UAS_PORT for at most LIMIT seconds, over udp or tcp; sets
# uas_wrapper and waits until it listens.
start_uas() {               # limit transport(udp|tcp) stderr-file
    local mode=u1
    [[ $2 == tcp ]] && mode=t1
    timeout -k 5 "$1" "$SIPP" -sf "$root/scenarios/sipp/uas.xml" -i 127.0.0.1 -ci 127.0.0.1 -bind_local \
        -p "$UAS_PORT" -t "$mode" -buff_size 4194304 -m 100000000 -timeout "$(( $1 - 10 ))" -nostdin \
        >/dev/null 2>"$3" &
    uas_wrapper=$!
    started+=("$uas_wrapper")
    wait_listening "$2" "$UAS_PORT" "$uas_wrapper" || die "SIPp UAS did not start: $(tail -3 "$3")"
}

# Registers the UAS as user bench-TRANSPORT at the server (REGISTER over UDP from REG_PORT), its
# contact on UAS_PORT over TRANSPORT.
register_uas() {            # transport(udp|tcp)
    timeout -k 5 20 "$SIPP" -sf "$root/scenarios/sipp/register.xml" -i 127.0.0.1 -ci 127.0.0.1 -bind_local \
        -p "$REG_PORT" -t u1 -s "bench-$1" -key contact_port "$UAS_PORT" -key contact_transport "$1" -m 1 \
        -timeout 10 -nostdin "127.0.0.1:$SERVER_PORT" >/dev/null 2>&1 || die "REGISTER of the UAS failed"
}
