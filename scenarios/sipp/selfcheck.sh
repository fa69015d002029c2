#!/usr/bin/env bash
# Checks the scenarios in this directory against each other with SIPp alone, no server:
#   uac.xml -> uas.xml over UDP (-t u1), TCP one connection (-t t1), TCP connection per call (-t tn)
#   register.xml -> registrar-200.xml over UDP
# A check passes when SIPp exits 0 and its final statistics line counts every call as successful.
# Loopback only; every SIPp run is bounded by -m, -timeout and an outer timeout.
#
# Usage: scenarios/sipp/selfcheck.sh [CALLS] [RATE]      (defaults: 200 calls at 100 calls/s)
# Env:   SIPP (default sipp), BASE_PORT (default 25070; BASE_PORT and BASE_PORT+1 are used)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
calls=${1:-200}
rate=${2:-100}
sipp=${SIPP:-sipp}
uas_port=${BASE_PORT:-25070}
uac_port=$((uas_port + 1))
limit=$(( calls / rate + 30 ))          # seconds any one SIPp run may take
work=$(mktemp -d -t sipp-selfcheck.XXXXXX)
pids=()

cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT

command -v "$sipp" >/dev/null || { echo "SIPp not found: install it with 'apt-get install -y sip-tester'" >&2; exit 2; }

# prints "created success failed" from the last line of a SIPp -trace_stat file
stat_counts() {
    awk -F';' 'NR==1 {for (i = 1; i <= NF; i++) {if ($i == "TotalCallCreated") t = i;
                  if ($i == "SuccessfulCall(C)") s = i; if ($i == "FailedCall(C)") f = i}}
               NR > 1 && NF > 1 {last = $0}
               END {split(last, a, ";"); print a[t] + 0, a[s] + 0, a[f] + 0}' "$1"
}

failures=0
check() {   # name server-scenario client-scenario mode [extra client args...]
    local name=$1 server_sf=$2 client_sf=$3 mode=$4; shift 4
    local server_mode=$mode
    [[ $mode == tn ]] && server_mode=t1     # a SIPp server accepts any number of connections
    timeout -k 5 $((limit + 10)) "$sipp" -sf "$here/$server_sf" -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$uas_port" \
        -t "$server_mode" -max_socket 1000 -m "$calls" -timeout "$((limit + 5))" -nostdin \
        -trace_stat -stf "$work/$name-server.csv" -fd 1 -trace_err -error_file "$work/$name-server-errors.log" \
        >"$work/$name-server.out" 2>"$work/$name-server.stderr" &
    local server_pid=$!
    pids+=("$server_pid")
    sleep 0.5
    local rc=0
    timeout -k 5 "$limit" "$sipp" -sf "$here/$client_sf" -i 127.0.0.1 -ci 127.0.0.1 -bind_local -p "$uac_port" \
        -t "$mode" -max_socket 1000 -r "$rate" -m "$calls" -timeout "$((limit - 5))" -nostdin "$@" \
        -trace_stat -stf "$work/$name-client.csv" -fd 1 -trace_err -error_file "$work/$name-client-errors.log" \
        "127.0.0.1:$uas_port" >"$work/$name-client.out" 2>"$work/$name-client.stderr" || rc=$?
    local server_rc=0
    wait "$server_pid" || server_rc=$?
    read -r created ok failed < <(stat_counts "$work/$name-client.csv")
    read -r s_created s_ok s_failed < <(stat_counts "$work/$name-server.csv")
    local verdict=PASS
    if (( rc != 0 || server_rc != 0 || ok != calls || failed != 0 || s_ok != calls )); then
        verdict=FAIL
        failures=$((failures + 1))
    fi
    printf '%-14s %s  client: exit %d, %d created, %d successful, %d failed;  server: exit %d, %d successful, %d failed\n' \
        "$name" "$verdict" "$rc" "$created" "$ok" "$failed" "$server_rc" "$s_ok" "$s_failed"
}

check call-udp      uas.xml           uac.xml      u1 -s alice
check call-tcp      uas.xml           uac.xml      t1 -s alice
check call-tcp-pc   uas.xml           uac.xml      tn -s alice
check register-udp  registrar-200.xml register.xml u1 -s alice -key contact_port 25080 -key contact_transport udp

if (( failures > 0 )); then
    echo "$failures check(s) failed; logs in $work" >&2
    exit 1
fi
rm -rf "$work"
