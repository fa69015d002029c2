# shellcheck shell=bash disable=SC2034  # a library: it sets variables for the script that sources it
# The measured load step of bench.sh and vs-kamailio.sh (sourced after sipp-server.sh, not run): a
# SIPp UAC places RATE x SECONDS calls while the server's CPU time is read from /proc. The sourcing
# script sets CLK_TCK, START_RATE and (vs-kamailio.sh) MAX_MEAN_MS; the step ladder's other settings
# have their defaults here.

# Defaults of the step ladder both scripts climb, each also an environment variable (and an option
# of the script): the highest rate, the factor between passing steps, the bisections after the first
# failure, whether the best rate is repeated, a step's length, the pass marks of a step, and the
# pause between steps.
MAX_RATE=${MAX_RATE:-20000}
STEP_FACTOR=${STEP_FACTOR:-1.5}
REFINE=${REFINE:-3}
CONFIRM=${CONFIRM:-1}
STEP_SECONDS=${STEP_SECONDS:-10}
MAX_FAILED_PCT=${MAX_FAILED_PCT:-1}
MIN_ACHIEVED_PCT=${MIN_ACHIEVED_PCT:-90}
COOLDOWN_SECONDS=${COOLDOWN_SECONDS:-2}

# Before the UAC starts: the measured processes' and the UAS's CPU time, and the clock.
begin_step() {      # uas-pid measured-pid...
    step_uas0=$(cpu_ticks "$1")
    shift
    step_cpu0=$(sum_ticks "$@")
    step_t0=$(now_ns)
}

# Follows the UAC (its `timeout` wrapper) to its end, then sets step_rc (SIPp's exit), step_ok_calls,
# step_failed (calls), step_failed_pct (failed or unfinished, of the target), step_achieved (calls/s
# at which SIPp created them), step_cpu_pct (the measured processes' CPU, % of one core, over the
# load window), step_us (their CPU time over the whole step per successful call) and step_sipp_pct
# (UAC + UAS CPU over the load window).
# The load window ends when SIPp has created the step's last call (its statistics line, written
# every 100 ms, says so), so that a few calls still waiting for retransmissions do not dilute the
# CPU %. The UAC's CPU is read while it runs (its /proc entry goes when it exits).
measure_step() {    # uac-wrapper stat-file target uas-pid measured-pid...
    local wrapper=$1 stf=$2 target=$3 uas=$4 uac_pid uac_ticks=0 last col= made
    shift 4
    local w_ns= w_cpu= w_uas= w_uac= t1 cpu1 created made_at creating_s
    uac_pid=$(command_pid "$wrapper")
    while kill -0 "$wrapper" 2>/dev/null; do
        [[ -n $uac_pid ]] && last=$(cpu_ticks "$uac_pid") && (( last > 0 )) && uac_ticks=$last
        if [[ -z $w_ns && -s $stf ]]; then
            [[ -n $col ]] || col=$(head -1 "$stf" | tr ';' '\n' | grep -nx 'TotalCallCreated' | cut -d: -f1)
            made=$( [[ -n $col ]] && tail -n 1 "$stf" | cut -d';' -f"$col")
            if [[ $made =~ ^[0-9]+$ ]] && (( made >= target )); then
                w_ns=$(now_ns) w_cpu=$(sum_ticks "$@") w_uas=$(cpu_ticks "$uas") w_uac=$uac_ticks
            fi
        fi
        sleep 0.1
    done
    step_rc=0
    wait "$wrapper" || step_rc=$?
    t1=$(now_ns)
    cpu1=$(sum_ticks "$@")
    forget_pid "$wrapper"
    if [[ -z $w_ns ]]; then      # SIPp ended before it had created every call: the whole run
        w_ns=$t1 w_cpu=$cpu1 w_uas=$(cpu_ticks "$uas") w_uac=$uac_ticks
    fi
    read -r created step_ok_calls step_failed made_at creating_s < <(stat_counts "$stf" "$target")
    read -r step_failed_pct step_achieved step_cpu_pct step_us step_sipp_pct < <(awk \
        -v target="$target" -v ok="$step_ok_calls" -v made="$made_at" -v creating="$creating_s" -v tck="$CLK_TCK" \
        -v window="$(( (w_ns - step_t0) / 1000000 ))" -v wcpu="$((w_cpu - step_cpu0))" -v cpu="$((cpu1 - step_cpu0))" \
        -v sipp="$(( w_uas - step_uas0 + w_uac ))" 'BEGIN {
            window = (window > 0 ? window : 1) / 1000.0
            printf "%.2f %.0f %.0f %.0f %.0f\n",
                100.0 * (target - ok) / target,
                (creating > 0 ? made / creating : 0),
                100.0 * (wcpu / tck) / window,
                (ok > 0 ? (cpu / tck) * 1e6 / ok : 0),
                100.0 * (sipp / tck) / window }')
}

# 1 when the step passed: fewer than MAX_FAILED_PCT % failed, calls created at MIN_ACHIEVED_PCT % of
# the rate or more, and (MAX_MEAN_MS > 0) a mean response time below MAX_MEAN_MS; else 0.
step_verdict() {    # rate [mean-ms]
    awk -v f="$step_failed_pct" -v a="$step_achieved" -v r="$1" \
        -v maxf="$MAX_FAILED_PCT" -v mina="$MIN_ACHIEVED_PCT" -v mean="${2:--}" -v maxm="${MAX_MEAN_MS:-0}" \
        'BEGIN { print ((f < maxf && a >= r * mina / 100.0 && (maxm == 0 || (mean != "-" && mean + 0 < maxm))) ? 1 : 0) }'
}

next_rate() {       # rate -> the next step of the ladder: x STEP_FACTOR, in tens, at most MAX_RATE
    awk -v r="$1" -v f="$STEP_FACTOR" -v m="$MAX_RATE" \
        'BEGIN { n = int(r * f / 10 + 0.5) * 10; if (n <= r) n = r + 10; print (n > m ? m : n) }'
}
