# ns-2.35: paper 001's network as tcplab reads it (examples/ack_holding.toml), plain Reno:
#   FH --10 Mb/s, 50 ms, DropTail 50-- BS ==802.11 DSSS 2 Mb/s, RTS/CTS, two-ray== MH (50 m)
# One Agent/TCP/Reno + TCPSink flow FH -> MH for 40 s (ns-2.35 defaults, tcpTick_ TICK). Each fade
# takes the MH out of range (moved 100 km away) for its interval; DSDV routing (as ns-2's wired-cum-wireless example).
# usage: ns ack_holding_reno.tcl TICK OUTDIR FADE_START FADE_END [FADE_START FADE_END ...]
set tick [lindex $argv 0]
set out [lindex $argv 1]
set fades [lrange $argv 2 end]

set ns [new Simulator]
$ns node-config -addressType hierarchical
AddrParams set domain_num_ 2
lappend cluster_num 1 1
AddrParams set cluster_num_ $cluster_num
lappend eilastlevel 1 2
AddrParams set nodes_num_ $eilastlevel

set tr [open $out/trace.tr w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid 1000 1000
create-god 2

Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0

set fh [$ns node 0.0.0]
set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting DSDV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \
    -topoInstance $topo -wiredRouting ON -agentTrace ON -routerTrace OFF -macTrace OFF
set bs [$ns node 1.0.0]
$bs random-motion 0
$bs set X_ 100.0; $bs set Y_ 100.0; $bs set Z_ 0.0
$ns node-config -wiredRouting OFF
set mh [$ns node 1.0.1]
$mh random-motion 0
$mh set X_ 150.0; $mh set Y_ 100.0; $mh set Z_ 0.0
$mh base-station [AddrParams addr2id [$bs node-addr]]

$ns duplex-link $fh $bs 10Mb 50ms DropTail
$ns queue-limit $fh $bs 50
$ns queue-limit $bs $fh 50

Agent/TCP set tcpTick_ $tick
set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set vt [open $out/vars.tr w]
$tcp attach $vt
foreach v {cwnd_ ssthresh_ backoff_ rtt_} { $tcp trace $v }
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
foreach {a b} $fades {
    $ns at $a "$mh set X_ 100000.0"
    $ns at $b "$mh set X_ 150.0"
}
$ns at 40.0 "close $vt; close $tr; $ns halt"
$ns run
