# shellcheck shell=bash disable=SC2034  # a library: it sets variables for the script that sources it
# Process helpers shared by the benchmark scripts (sourced, not run). The sourcing script keeps
# `started` (the PIDs of the `timeout` wrappers it started), `work` (its work directory), `KEEP`
# (1 keeps the work directory) and a `log` function; start_work makes the first two and sets the
# traps. Loopback only; every process is ended by its PID.

# Makes the work directory sipcrypt-NAME.XXXXXX in the temporary directory and an empty `started`;
# at exit runs `cleanup` (or the function named), on INT and TERM exits 130.
start_work() {      # name [exit-function]
    work=$(mktemp -d -t "sipcrypt-$1.XXXXXX") || die "cannot make a work directory"
    started=()
    # shellcheck disable=SC2064  # the handler's name is fixed now
    trap "${2:-cleanup}" EXIT
    trap 'exit 130' INT TERM
}

# At exit: stops every process the script started, then removes its work directory unless kept.
cleanup() {
    local pid
    for pid in "${started[@]}"; do
        stop_pid "$pid"
    done
    if (( KEEP )); then
        log "work directory kept: $work"
    else
        rm -rf "$work"
    fi
}

# Ends a process this script started (a `timeout` wrapper, which passes the signal on to its
# command): TERM, up to 5 s grace, then KILL. Its command is signalled too, by PID, and killed only
# while it is still the same process (same start time).
stop_pid() {
    local pid=$1 child started_at
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; forget_pid "$pid"; return 0; }
    child=$(child_of "$pid")
    [[ -n $child ]] && started_at=$(start_time "$child")
    kill -TERM "$pid" 2>/dev/null
    [[ -n $child ]] && kill -TERM "$child" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    if [[ -n $child && -n $started_at && $(start_time "$child") == "$started_at" ]]; then
        kill -KILL "$child" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
    forget_pid "$pid"
    return 0
}

start_time() {      # field 22 of /proc/PID/stat: when the process started, in clock ticks since boot
    awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[20] }' "/proc/$1/stat" 2>/dev/null
}

forget_pid() {      # drops a reaped PID from the list, so that cleanup never signals a reused PID
    local keep=() p
    for p in "${started[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
    started=("${keep[@]}")
}

child_of() { ps -o pid= --ppid "$1" 2>/dev/null | head -1 | tr -d ' '; }

command_pid() {     # waits until the `timeout` wrapper $1 has started its command, prints its PID
    local child
    for _ in $(seq 50); do
        child=$(child_of "$1")
        [[ -n $child ]] && { echo "$child"; return 0; }
        sleep 0.1
    done
    return 1
}

cpu_ticks() {       # utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/PID/stat)
    [[ -n $1 && -r /proc/$1/stat ]] || { echo 0; return; }
    awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat" 2>/dev/null \
        || echo 0
}

sum_ticks() {       # pid... : utime + stime of all of them, in clock ticks
    local p t=0
    for p in "$@"; do t=$(( t + $(cpu_ticks "$p") )); done
    echo "$t"
}

now_ns() { date +%s%N; }

# Waits for a `timeout` wrapper this script started and drops it from `started`; returns its status.
wait_started() {    # wrapper-pid
    local rc=0
    wait "$1" || rc=$?
    forget_pid "$1"
    return "$rc"
}

# Runs COMMAND under `timeout` (LIMIT s, then KILL 10 s later) with its output in LOG, listed in
# `started`; sets bg_wrapper and bg_pid (the command's PID) and waits until it listens on each of
# LISTENS ("udp:PORT tcp:PORT ..."). Returns 1 when it did not start or does not listen.
launch_listening() {    # limit log listens command...
    local limit=$1 out=$2 listens=$3 l
    shift 3
    timeout -k 10 "$limit" "$@" >"$out" 2>&1 &
    bg_wrapper=$!
    started+=("$bg_wrapper")
    bg_pid=$(command_pid "$bg_wrapper") || return 1
    for l in $listens; do
        wait_listening "${l%%:*}" "${l#*:}" "$bg_wrapper" || return 1
    done
}

port_listening() {  # proto(udp|tcp) port
    local flag=-uln
    [[ $1 == tcp ]] && flag=-tln
    [[ -n $(ss -H "$flag" "sport = :$2" 2>/dev/null) ]]
}

# Fails naming OPTION when another process listens on PORT for one of PROTOS (udp, tcp).
require_ports_free() {  # option "protos" port...
    local option=$1 protos=$2 port proto
    shift 2
    for port in "$@"; do
        for proto in $protos; do
            port_listening "$proto" "$port" && die "$proto port 127.0.0.1:$port is already in use ($option)"
        done
    done
    return 0
}

wait_listening() {  # proto port wrapper-pid
    for _ in $(seq 300); do
        port_listening "$1" "$2" && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
