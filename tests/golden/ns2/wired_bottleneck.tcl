# wired_bottleneck: written by `tcplab validate ns2` for ns-2.35; do not edit.
# Run: ns THIS.tcl [SEED [TRACE]]   (default seed 1, trace out.tr)
set seed 1
set tracefile out.tr
if {$argc >= 1} { set seed [lindex $argv 0] }
if {$argc >= 2} { set tracefile [lindex $argv 1] }
set ns_ [new Simulator]
$defaultRNG seed $seed
set tf [open $tracefile w]
$ns_ trace-all $tf
proc finish {} {
    global ns_ tf
    $ns_ flush-trace
    close $tf
    exit 0
}
set n(0) [$ns_ node] ;# server
set n(1) [$ns_ node] ;# router
set n(2) [$ns_ node] ;# client
# link access
$ns_ duplex-link $n(0) $n(1) 100Mb 1ms DropTail
$ns_ queue-limit $n(0) $n(1) 50
$ns_ queue-limit $n(1) $n(0) 50
# link bottleneck
$ns_ duplex-link $n(1) $n(2) 10Mb 20ms DropTail
$ns_ queue-limit $n(1) $n(2) 50
$ns_ queue-limit $n(2) $n(1) 50
# flow download
set tcp_ [new Agent/TCP/Newreno]
$tcp_ set fid_ 1
$tcp_ set window_ 44
set sink_ [new Agent/TCPSink]
$ns_ attach-agent $n(0) $tcp_
$ns_ attach-agent $n(2) $sink_
$ns_ connect $tcp_ $sink_
$tcp_ attach $tf
$tcp_ trace nrexmit_
set app_ [new Application/FTP]
$app_ attach-agent $tcp_
$ns_ at 0 "$app_ send 10000000"
$ns_ at 3600 "finish"
$ns_ run
