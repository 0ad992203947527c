# ns-2.35 reference for tcplab on the wired–BS–802.11 path of examples/snoop.toml without errors
# (docs/validation/baselines.md):
#   fh --10 Mb/s, 50 ms, DropTail 50-- bs ~~802.11 DSSS 2 Mb/s~~ mh (50 m)
# A wired-cum-wireless script of the usual form: hierarchical addresses, the BS a base-station
# node, DSDV in the cell. One-way Agent/TCP/<variant> fh -> mh with an Agent/TCPSink, 1000-byte
# packets, window_ 20; FTP for <duration> s. Prints the goodput of 1000-byte packets acknowledged.
#
#   ns wlan_path.tcl <variant> <duration s> <seed>
set variant [lindex $argv 0]
set dur     [lindex $argv 1]
set seed    [lindex $argv 2]

global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]
# ns-2's wireless nodes need a trace target; nothing is kept.
set tf [open /dev/null w]
$ns trace-all $tf
$ns node-config -addressType hierarchical
AddrParams set domain_num_ 2
lappend cluster_num 1 1
AddrParams set cluster_num_ $cluster_num
lappend eilastlevel 1 2
AddrParams set nodes_num_ $eilastlevel

set topo [new Topography]
$topo load_flatgrid 500 500
create-god 3
set fh [$ns node 0.0.0]

# tcplab's ns2_dsss preset at 2 Mb/s: data at 2 Mb/s, control frames at 1 Mb/s (RTSThreshold_ 0:
# RTS/CTS before every data frame, ns-2.35's default).
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting DSDV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \
    -topoInstance $topo -wiredRouting ON -agentTrace OFF -routerTrace OFF -macTrace OFF
set bs [$ns node 1.0.0]
$bs random-motion 0
$bs set X_ 0.0
$bs set Y_ 0.0
$bs set Z_ 0.0
$ns node-config -wiredRouting OFF
set mh [$ns node 1.0.1]
$mh base-station [AddrParams addr2id [$bs node-addr]]
$mh random-motion 0
$mh set X_ 50.0
$mh set Y_ 0.0
$mh set Z_ 0.0

$ns duplex-link $fh $bs 10Mb 50ms DropTail
$ns queue-limit $fh $bs 50
$ns queue-limit $bs $fh 50

set tcp [new Agent/TCP/$variant]
$tcp set packetSize_ 1000
$tcp set window_ 20
set sink [new Agent/TCPSink]
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

proc done {} {
    global tcp dur
    set acked [$tcp set ack_]
    puts [format "goodput_mbps %.4f acked_segments %d retransmitted %d" \
        [expr {($acked + 1) * 1000.0 * 8 / $dur / 1e6}] [expr {$acked + 1}] [$tcp set nrexmitpack_]]
    exit 0
}
$ns at 1.0 "$ftp start"
$ns at [expr {$dur + 1.0}] "done"
$ns run
