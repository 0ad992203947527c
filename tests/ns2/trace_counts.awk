# Throughput and drop counts from an ns-2 wireless trace (the old CMU format that ns-2.35's
# `$ns_ trace-all` writes for mobile nodes), as an ns-2 user's script reads one:
#
#   awk -v src=0 -v dst=2 -f trace_counts.awk out.tr
#
# received: the packets and bytes node `dst`'s agents received from node `src` (`r ... AGT`,
# IP source `src`), and the throughput from the first packet `src`'s agents sent to `dst` to
# the last one received, in bit/s; drops: every `D` line, by layer and reason ($4, $5).
# Columns: $1 event, $2 time, $3 _node_, $4 layer, $5 reason, $6 uid, $7 type, $8 size,
# $14 "[src:port", $15 "dst:port".
function node_of(field) { sub(/^\[/, "", field); sub(/:.*/, "", field); return field }
$1 == "s" && $4 == "AGT" && $3 == "_" src "_" && node_of($15) == dst {
    if (first == "") first = $2
}
$1 == "r" && $4 == "AGT" && $3 == "_" dst "_" && node_of($14) == src {
    packets++; bytes += $8; last = $2
}
$1 == "D" { drops[$4 " " $5]++ }
END {
    thr = (last > first) ? bytes * 8 / (last - first) : 0
    printf "received %d %d %.3f\n", packets, bytes, thr
    for (k in drops) printf "drop %s %d\n", k, drops[k]
}
