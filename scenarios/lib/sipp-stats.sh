# Readers of SIPp's output shared by the benchmark scripts (sourced, not run).

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
