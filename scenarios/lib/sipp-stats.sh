# shellcheck shell=bash disable=SC2034  # a library: it sets variables for the script that sources it
# Readers of SIPp's output (and of the JVM's GC log) shared by the benchmark scripts (sourced, not run).

# "created successful failed made_at creating_seconds" from a SIPp -trace_stat file; made_at is the
# number created when the target was first reached, creating_seconds how long that took
stat_counts() {     # file target
    [[ -s $1 ]] || { echo "0 0 0 0 0"; return; }
    awk -F';' -v target="$2" '
        function epoch(field,   p) { split(field, p, "\t"); return p[3] + 0 }
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "TotalCallCreated") t = i;
                      if ($i == "SuccessfulCall(C)") s = i; if ($i == "FailedCall(C)") f = i;
                      if ($i == "StartTime") st = i; if ($i == "CurrentTime") ct = i } }
        NR > 1 && NF > 1 { last = $0
                           if (!made && $t >= target) { made = $t; secs = epoch($ct) - epoch($st) } }
        END { split(last, a, ";")
              if (!made) { made = a[t] + 0; secs = epoch(a[ct]) - epoch(a[st]) }
              printf "%d %d %d %d %.3f\n", a[t], a[s], a[f], made, secs }' "$1"
}

# mean and p99 (nearest rank) of SIPp's response time 1 in a -trace_rtt file, "- -" without data
rtt_stats() {       # file
    [[ -s $1 ]] || { echo "- -"; return; }
    awk -F';' 'NR > 1 && $3 == 1 { print $2 }' "$1" | sort -g | awk '
        { v[NR] = $1; sum += $1 }
        END { if (NR == 0) { print "- -"; exit }
              k = int(NR * 0.99 + 0.999999); if (k < 1) k = 1; if (k > NR) k = NR
              printf "%.2f %.0f\n", sum / NR, v[k] }'
}

# the last value of the named column of a SIPp -trace_stat file, 0 without data
stat_last() {       # file column-name
    awk -F';' -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
        NR > 1 && NF > 1 { v = $c } END { print v + 0 }' "$1"
}

# "answered refused" of a -trace_rtt file: the calls with response time 1 (the 200) and with
# response time 2 (the 503 of uac-overload.xml)
rtt_counts() {      # file
    awk -F';' 'NR > 1 && $3 == 1 { ok++ } NR > 1 && $3 == 2 { no++ } END { printf "%d %d\n", ok, no }' "$1"
}

rtt_file() { ls "$1"/*_rtt.csv 2>/dev/null | head -1; }     # the -trace_rtt file SIPp wrote in DIR

# SIPp writes response times every -rtt_freq calls and drops the last incomplete batch: about 50
# flushes a second, so that only the last 20 ms or so of a run go unrecorded
rtt_freq() {        # rate
    local f=$(( $1 / 50 ))
    (( f < 1 )) && f=1
    (( f > 100 )) && f=100
    echo "$f"
}

# "count total_ms max_ms" of the Pause lines of a JVM unified GC log (-Xlog:gc,gc+phases)
gc_pause_totals() { # file
    [[ -s $1 ]] || { echo "0 0.0 0.0"; return; }
    awk '/ Pause / && $NF ~ /ms$/ { v = $NF; sub(/ms$/, "", v); v += 0; n++; s += v; if (v > m) m = v }
         END { printf "%d %.1f %.1f\n", n, s, m }' "$1"
}

cpu_model() { lscpu 2>/dev/null | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2; exit }'; }
