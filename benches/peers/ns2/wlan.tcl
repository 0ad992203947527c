# ns-2.35 single-cell WLAN benchmark networks, the peers of benches/peers/scenarios/wlan_*.toml.
#   ns wlan.tcl download BYTES      AP -> station 10 m away, TCP NewReno, 1460-B packets, window 6
#                                   (8760-B receive buffer), delayed ACKs (TCPSink/DelAck),
#                                   11 Mb/s data, basic access; ends when the download is acked
#   ns wlan.tcl saturation SECONDS  10 stations on a 10 m circle each sending 1500-B UDP datagrams
#                                   to the AP as fast as the MAC takes them (CBR at 11 Mb/s each)
#   ns wlan.tcl fer SECONDS         a station sends FTP/TCP NewReno (1000-B packets, window 1000) to
#                                   the AP 10 m away; 1 % of the frames the AP receives are lost
#                                   (a uniform frame error model, retried by the MAC)
# One hop, so the routing agent is DumbAgent (no routing protocol; the MAC sends to the
# destination directly). ns-2's 802.11 defaults are DSSS timings (20 us slot, long PLCP preamble,
# CW 31-1023); data at 11 Mb/s, control frames at 2 Mb/s, RTS threshold above every frame.
# No trace is written (the trace file is /dev/null). Prints one line "RESULT ...".
if {$argc != 2} { puts stderr "usage: ns wlan.tcl download|saturation|fer N"; exit 2 }
set mode [lindex $argv 0]
set arg [lindex $argv 1]

Mac/802_11 set dataRate_ 11Mb
Mac/802_11 set basicRate_ 2Mb
Mac/802_11 set RTSThreshold_ 3000

set ns_ [new Simulator]
set tracefd [open /dev/null w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid 100 100
switch $mode {
    download   { set nn 2 }
    saturation { set nn 11 }
    fer        { set nn 2 }
    default    { puts stderr "mode: $mode is not one of download, saturation, fer"; exit 2 }
}
create-god $nn
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -topoInstance $topo \
    -channel $chan -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
# The AP is node 0 at the centre (50, 50); station i sits 10 m away at angle 36 i degrees.
# fer: the AP's incoming frames pass a uniform 1 % frame error model (ns-2 puts it between the PHY
# and the MAC: a lost data frame is not acknowledged and the MAC retries it).
proc ap_errors {} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ 0.01
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    return $em
}
if {$mode == "fer"} { $ns_ node-config -IncomingErrProc ap_errors }
set node_(0) [$ns_ node]
if {$mode == "fer"} { $ns_ node-config -IncomingErrProc "" }
$node_(0) random-motion 0
$node_(0) set X_ 50.0; $node_(0) set Y_ 50.0; $node_(0) set Z_ 0.0
for {set i 1} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    set a [expr ($i - 1) * 3.14159265358979 / 5.0]
    $node_($i) set X_ [expr 50.0 + 10.0 * cos($a)]
    $node_($i) set Y_ [expr 50.0 + 10.0 * sin($a)]
    $node_($i) set Z_ 0.0
}

proc finish {} {
    global result_proc
    puts "RESULT [$result_proc]"
    exit 0
}

switch $mode {
    download {
        Agent/TCP set packetSize_ 1460
        Agent/TCP set window_ 6
        Agent/TCP set windowInit_ 10
        set tcp [new Agent/TCP/Newreno]
        set sink [new Agent/TCPSink/DelAck]
        $ns_ attach-agent $node_(0) $tcp
        $ns_ attach-agent $node_(1) $sink
        $ns_ connect $tcp $sink
        set ftp [new Application/FTP]
        $ftp attach-agent $tcp
        set pkts [expr ($arg + 1459) / 1460]
        proc result {} { global ns_ tcp; return "acked=[$tcp set ack_] t=[$ns_ now]" }
        set result_proc result
        # Agent/TCP calls "done" when everything an FTP "produce" asked for is acknowledged.
        $tcp proc done {} { finish }
        $ns_ at 1.0 "$ftp produce $pkts"
        $ns_ at 100000.0 "finish"
    }
    saturation {
        for {set i 1} {$i < $nn} {incr i} {
            set udp($i) [new Agent/UDP]
            $udp($i) set packetSize_ 1500
            set null($i) [new Agent/Null]
            $ns_ attach-agent $node_($i) $udp($i)
            $ns_ attach-agent $node_(0) $null($i)
            $ns_ connect $udp($i) $null($i)
            set cbr($i) [new Application/Traffic/CBR]
            $cbr($i) set packetSize_ 1500
            $cbr($i) set rate_ 11Mb
            $cbr($i) attach-agent $udp($i)
            $ns_ at [expr 0.001 * $i] "$cbr($i) start"
        }
        proc result {} { return "done" }
        set result_proc result
        $ns_ at $arg "finish"
    }
    fer {
        Agent/TCP set packetSize_ 1000
        Agent/TCP set window_ 1000
        set tcp [new Agent/TCP/Newreno]
        set sink [new Agent/TCPSink]
        $ns_ attach-agent $node_(1) $tcp
        $ns_ attach-agent $node_(0) $sink
        $ns_ connect $tcp $sink
        set ftp [new Application/FTP]
        $ftp attach-agent $tcp
        proc result {} { global tcp; return "acked=[$tcp set ack_]" }
        set result_proc result
        $ns_ at 1.0 "$ftp start"
        $ns_ at $arg "finish"
    }
}
$ns_ run
