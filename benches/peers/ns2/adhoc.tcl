# ns-2.35 ad hoc benchmark network, the peer of tcplab's ad hoc scenarios in benches/peers/.
#   ns adhoc.tcl ROUTING DURATION_S TOPOLOGY FLOWS
#   ROUTING   AODV | DSR | DSDV
#   TOPOLOGY  string:N (N+1 nodes 200 m apart) | grid:K (K x K nodes 200 m apart)
#             | file:NODES:W:H:PATH (a setdest movement file of NODES nodes in W x H m)
#   FLOWS     comma-separated SRC:DST:START_S (FTP over TCP NewReno, SRC sends to DST)
# 802.11 DSSS at 2 Mb/s (basic rate 1 Mb/s, RTS/CTS for every unicast: ns-2's defaults), two-ray
# ground with ns-2's default 250 m reception / 550 m carrier sense thresholds, 50-packet interface
# queue (CMUPriQueue under DSR, as ns-2 requires), 1000-B TCP packets, window_ WINDOW packets.
# No trace is written (tcplab --json writes none either; the trace file is /dev/null). Prints one line: "RESULT acked=N".
if {$argc < 4} {
    puts stderr "usage: ns adhoc.tcl ROUTING DURATION_S TOPOLOGY FLOWS \[WINDOW\]"
    exit 2
}
set rp [lindex $argv 0]
set duration [lindex $argv 1]
set topology [split [lindex $argv 2] ":"]
set flows [split [lindex $argv 3] ","]
set window 32
if {$argc > 4} { set window [lindex $argv 4] }

set kind [lindex $topology 0]
set movement ""
switch $kind {
    string { set nn [expr [lindex $topology 1] + 1]; set W [expr ($nn - 1) * 200 + 1]; set H 10 }
    grid   { set k [lindex $topology 1]; set nn [expr $k * $k]; set W [expr ($k - 1) * 200 + 1]; set H $W }
    file   {
        set nn [lindex $topology 1]; set W [lindex $topology 2]; set H [lindex $topology 3]
        set movement [join [lrange $topology 4 end] ":"]
    }
    default { puts stderr "TOPOLOGY: $kind is not one of string, grid, file"; exit 2 }
}

Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ $window

set ns_ [new Simulator]
# ns-2's wireless nodes need a trace object to exist; with every trace kind off nothing is written.
set tracefd [open /dev/null w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid $W $H
create-god $nn
set chan [new Channel/WirelessChannel]
if {$rp == "DSR"} { set ifq CMUPriQueue } else { set ifq Queue/DropTail/PriQueue }
$ns_ node-config -adhocRouting $rp -llType LL -macType Mac/802_11 -ifqType $ifq -ifqLen 50 \
    -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -topoInstance $topo -channel $chan \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
}
switch $kind {
    string {
        for {set i 0} {$i < $nn} {incr i} {
            $node_($i) set X_ [expr $i * 200.0]; $node_($i) set Y_ 5.0; $node_($i) set Z_ 0.0
        }
    }
    grid {
        for {set r 0} {$r < $k} {incr r} {
            for {set c 0} {$c < $k} {incr c} {
                set n $node_([expr $r * $k + $c])
                $n set X_ [expr $c * 200.0]; $n set Y_ [expr $r * 200.0]; $n set Z_ 0.0
            }
        }
    }
    file { source $movement }
}

set sinks {}
set i 0
foreach f $flows {
    set p [split $f ":"]
    set tcp($i) [new Agent/TCP/Newreno]
    set sink [new Agent/TCPSink]
    $ns_ attach-agent $node_([lindex $p 0]) $tcp($i)
    $ns_ attach-agent $node_([lindex $p 1]) $sink
    $ns_ connect $tcp($i) $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp($i)
    $ns_ at [lindex $p 2] "$ftp start"
    incr i
}
set nflows $i

proc finish {} {
    global tcp nflows
    set acked 0
    for {set i 0} {$i < $nflows} {incr i} { incr acked [$tcp($i) set ack_] }
    puts "RESULT acked=$acked"
    exit 0
}
$ns_ at $duration "finish"
$ns_ run
