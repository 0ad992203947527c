# ns-2.35 reference for tcplab's Vegas and Veno (docs/validation/baselines.md).
#   server --100 Mb/s, 1 ms-- router --10 Mb/s, 20 ms, DropTail 50-- client
# One-way Agent/TCP/<variant> with an Agent/TCPSink (an ACK per segment), or, for a variant
# "Linux/<ca>", ns-2.35's Linux TCP (Agent/TCP/Linux, select_ca <ca>, timestamps) with an
# Agent/TCPSink/Sack1; in both,
# 1000-byte segments, window_ 64 segments, FTP for <duration> s; optional Bernoulli packet
# loss <p> on router -> client (ErrorModel, after the queue, as tcplab's link loss).
# Prints the goodput: segments cumulatively acknowledged at the end x 1000 B x 8 / duration.
#
#   ns dumbbell.tcl <variant> <loss p> <duration s> <seed>
set variant [lindex $argv 0]
set p       [lindex $argv 1]
set dur     [lindex $argv 2]
set seed    [lindex $argv 3]

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed

set s [$ns node]
set r [$ns node]
set c [$ns node]
$ns duplex-link $s $r 100Mb 1ms DropTail
$ns duplex-link $r $c 10Mb 20ms DropTail
$ns queue-limit $r $c 50
$ns queue-limit $c $r 50
$ns queue-limit $s $r 50
$ns queue-limit $r $s 50

if {$p > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $p
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $r $c
}

if {[string match "Linux/*" $variant]} {
    set tcp [new Agent/TCP/Linux]
    $tcp set timestamps_ true
    $ns at 0 "$tcp select_ca [string range $variant 6 end]"
    set sink [new Agent/TCPSink/Sack1]
    $sink set ts_echo_rfc1323_ true
} else {
    set tcp [new Agent/TCP/$variant]
    set sink [new Agent/TCPSink]
}
$tcp set packetSize_ 1000
$tcp set window_ 64
$ns attach-agent $s $tcp
$ns attach-agent $c $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

proc done {} {
    global tcp dur
    set acked [$tcp set ack_]
    set rexmit [$tcp set nrexmitpack_]
    puts [format "goodput_mbps %.4f acked_segments %d retransmitted %d" \
        [expr {($acked + 1) * 1000.0 * 8 / $dur / 1e6}] [expr {$acked + 1}] $rexmit]
    exit 0
}
$ns at 0.0 "$ftp start"
$ns at $dur "done"
$ns run
