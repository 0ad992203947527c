# ns-2.35: one Agent/TCP/Reno + TCPSink flow over n0 --1 Mb/s, 50 ms, DropTail 50-- n1; the link
# is down from DOWN to UP s, which makes the sender time out repeatedly. Writes the traced
# variables (cwnd_, ssthresh_, backoff_, rtt_, srtt_, rttvar_) and the packet trace.
# usage: ns reno_outage.tcl TICK DOWN UP OUTDIR [AGENT]
set tick [lindex $argv 0]
set down [lindex $argv 1]
set up [lindex $argv 2]
set out [lindex $argv 3]
set agent Reno
if {$argc > 4} { set agent [lindex $argv 4] }

set ns [new Simulator]
set pt [open $out/packets.tr w]
$ns trace-all $pt
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 50ms DropTail
$ns rtmodel-at $down down $n0 $n1
$ns rtmodel-at $up up $n0 $n1

Agent/TCP set tcpTick_ $tick
set tcp [new Agent/TCP/$agent]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set vt [open $out/vars.tr w]
$tcp attach $vt
foreach v {cwnd_ ssthresh_ backoff_ rtt_ srtt_ rttvar_} { $tcp trace $v }
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
$ns at 10.0 "close $vt; close $pt; $ns halt"
$ns run
