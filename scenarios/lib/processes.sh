# Process helpers shared by the benchmark scripts (sourced, not run). The sourcing script keeps
# `started` (the PIDs of the `timeout` wrappers it started), `work` (its work directory), `KEEP`
# (1 keeps the work directory) and a `log` function, and sets `trap cleanup EXIT`.
# Loopback only; every process is ended by its PID.

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

now_ns() { date +%s%N; }

port_listening() {  # proto(udp|tcp) port
    local flag=-uln
    [[ $1 == tcp ]] && flag=-tln
    [[ -n $(ss -H "$flag" "sport = :$2" 2>/dev/null) ]]
}

wait_listening() {  # proto port wrapper-pid
    for _ in $(seq 300); do
        port_listening "$1" "$2" && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
