# adhoc_string: written by `tcplab validate ns2` for ns-2.35; do not edit.
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
# WLAN manet (adhoc, ns2_dsss)
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
set topo_ [new Topography]
$topo_ load_flatgrid 1401 1
set god_ [create-god 8]
set chan_ [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting AODV -llType LL -macType Mac/802_11 -ifqType Queue/DropTail/PriQueue \
    -ifqLen 50 -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy -channel $chan_ -topoInstance $topo_ \
    -agentTrace ON -routerTrace ON -macTrace ON -movementTrace OFF
set node_(0) [$ns_ node] ;# n0
$node_(0) random-motion 0
$node_(0) set X_ 0
$node_(0) set Y_ 0
$node_(0) set Z_ 0
set node_(1) [$ns_ node] ;# n1
$node_(1) random-motion 0
$node_(1) set X_ 200
$node_(1) set Y_ 0
$node_(1) set Z_ 0
set node_(2) [$ns_ node] ;# n2
$node_(2) random-motion 0
$node_(2) set X_ 400
$node_(2) set Y_ 0
$node_(2) set Z_ 0
set node_(3) [$ns_ node] ;# n3
$node_(3) random-motion 0
$node_(3) set X_ 600
$node_(3) set Y_ 0
$node_(3) set Z_ 0
set node_(4) [$ns_ node] ;# n4
$node_(4) random-motion 0
$node_(4) set X_ 800
$node_(4) set Y_ 0
$node_(4) set Z_ 0
set node_(5) [$ns_ node] ;# n5
$node_(5) random-motion 0
$node_(5) set X_ 1000
$node_(5) set Y_ 0
$node_(5) set Z_ 0
set node_(6) [$ns_ node] ;# n6
$node_(6) random-motion 0
$node_(6) set X_ 1200
$node_(6) set Y_ 0
$node_(6) set Z_ 0
set node_(7) [$ns_ node] ;# n7
$node_(7) random-motion 0
$node_(7) set X_ 1400
$node_(7) set Y_ 0
$node_(7) set Z_ 0
# flow bulk
set tcp_ [new Agent/TCP/Newreno]
$tcp_ set fid_ 1
$tcp_ set packetSize_ 1000
$tcp_ set window_ 32
set sink_ [new Agent/TCPSink]
$ns_ attach-agent $node_(0) $tcp_
$ns_ attach-agent $node_(7) $sink_
$ns_ connect $tcp_ $sink_
$tcp_ attach $tf
$tcp_ trace nrexmit_
set app_ [new Application/FTP]
$app_ attach-agent $tcp_
$ns_ at 0 "$app_ start"
$ns_ at 600 "finish"
$ns_ run
