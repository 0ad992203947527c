# wired_outage: written by `tcplab validate ns2` for ns-2.35; do not edit.
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
$ns_ rtmodel-at 30 down $n(1) $n(2)
$ns_ rtmodel-at 40 up $n(1) $n(2)
$ns_ rtmodel-at 90 down $n(1) $n(2)
$ns_ rtmodel-at 100 up $n(1) $n(2)
$ns_ rtmodel-at 150 down $n(1) $n(2)
$ns_ rtmodel-at 160 up $n(1) $n(2)
$ns_ rtmodel-at 210 down $n(1) $n(2)
$ns_ rtmodel-at 220 up $n(1) $n(2)
$ns_ rtmodel-at 270 down $n(1) $n(2)
$ns_ rtmodel-at 280 up $n(1) $n(2)
$ns_ rtmodel-at 330 down $n(1) $n(2)
$ns_ rtmodel-at 340 up $n(1) $n(2)
$ns_ rtmodel-at 390 down $n(1) $n(2)
$ns_ rtmodel-at 400 up $n(1) $n(2)
$ns_ rtmodel-at 450 down $n(1) $n(2)
$ns_ rtmodel-at 460 up $n(1) $n(2)
$ns_ rtmodel-at 510 down $n(1) $n(2)
$ns_ rtmodel-at 520 up $n(1) $n(2)
$ns_ rtmodel-at 570 down $n(1) $n(2)
$ns_ rtmodel-at 580 up $n(1) $n(2)
$ns_ rtmodel-at 630 down $n(1) $n(2)
$ns_ rtmodel-at 640 up $n(1) $n(2)
$ns_ rtmodel-at 690 down $n(1) $n(2)
$ns_ rtmodel-at 700 up $n(1) $n(2)
$ns_ rtmodel-at 750 down $n(1) $n(2)
$ns_ rtmodel-at 760 up $n(1) $n(2)
$ns_ rtmodel-at 810 down $n(1) $n(2)
$ns_ rtmodel-at 820 up $n(1) $n(2)
$ns_ rtmodel-at 870 down $n(1) $n(2)
$ns_ rtmodel-at 880 up $n(1) $n(2)
$ns_ rtmodel-at 930 down $n(1) $n(2)
$ns_ rtmodel-at 940 up $n(1) $n(2)
$ns_ rtmodel-at 990 down $n(1) $n(2)
$ns_ rtmodel-at 1000 up $n(1) $n(2)
$ns_ rtmodel-at 1050 down $n(1) $n(2)
$ns_ rtmodel-at 1060 up $n(1) $n(2)
$ns_ rtmodel-at 1110 down $n(1) $n(2)
$ns_ rtmodel-at 1120 up $n(1) $n(2)
$ns_ rtmodel-at 1170 down $n(1) $n(2)
$ns_ rtmodel-at 1180 up $n(1) $n(2)
$ns_ rtmodel-at 1230 down $n(1) $n(2)
$ns_ rtmodel-at 1240 up $n(1) $n(2)
$ns_ rtmodel-at 1290 down $n(1) $n(2)
$ns_ rtmodel-at 1300 up $n(1) $n(2)
$ns_ rtmodel-at 1350 down $n(1) $n(2)
$ns_ rtmodel-at 1360 up $n(1) $n(2)
$ns_ rtmodel-at 1410 down $n(1) $n(2)
$ns_ rtmodel-at 1420 up $n(1) $n(2)
$ns_ rtmodel-at 1470 down $n(1) $n(2)
$ns_ rtmodel-at 1480 up $n(1) $n(2)
$ns_ rtmodel-at 1530 down $n(1) $n(2)
$ns_ rtmodel-at 1540 up $n(1) $n(2)
$ns_ rtmodel-at 1590 down $n(1) $n(2)
$ns_ rtmodel-at 1600 up $n(1) $n(2)
$ns_ rtmodel-at 1650 down $n(1) $n(2)
$ns_ rtmodel-at 1660 up $n(1) $n(2)
$ns_ rtmodel-at 1710 down $n(1) $n(2)
$ns_ rtmodel-at 1720 up $n(1) $n(2)
$ns_ rtmodel-at 1770 down $n(1) $n(2)
$ns_ rtmodel-at 1780 up $n(1) $n(2)
$ns_ rtmodel-at 1830 down $n(1) $n(2)
$ns_ rtmodel-at 1840 up $n(1) $n(2)
$ns_ rtmodel-at 1890 down $n(1) $n(2)
$ns_ rtmodel-at 1900 up $n(1) $n(2)
$ns_ rtmodel-at 1950 down $n(1) $n(2)
$ns_ rtmodel-at 1960 up $n(1) $n(2)
$ns_ rtmodel-at 2010 down $n(1) $n(2)
$ns_ rtmodel-at 2020 up $n(1) $n(2)
$ns_ rtmodel-at 2070 down $n(1) $n(2)
$ns_ rtmodel-at 2080 up $n(1) $n(2)
$ns_ rtmodel-at 2130 down $n(1) $n(2)
$ns_ rtmodel-at 2140 up $n(1) $n(2)
$ns_ rtmodel-at 2190 down $n(1) $n(2)
$ns_ rtmodel-at 2200 up $n(1) $n(2)
$ns_ rtmodel-at 2250 down $n(1) $n(2)
$ns_ rtmodel-at 2260 up $n(1) $n(2)
$ns_ rtmodel-at 2310 down $n(1) $n(2)
$ns_ rtmodel-at 2320 up $n(1) $n(2)
$ns_ rtmodel-at 2370 down $n(1) $n(2)
$ns_ rtmodel-at 2380 up $n(1) $n(2)
$ns_ rtmodel-at 2430 down $n(1) $n(2)
$ns_ rtmodel-at 2440 up $n(1) $n(2)
$ns_ rtmodel-at 2490 down $n(1) $n(2)
$ns_ rtmodel-at 2500 up $n(1) $n(2)
$ns_ rtmodel-at 2550 down $n(1) $n(2)
$ns_ rtmodel-at 2560 up $n(1) $n(2)
$ns_ rtmodel-at 2610 down $n(1) $n(2)
$ns_ rtmodel-at 2620 up $n(1) $n(2)
$ns_ rtmodel-at 2670 down $n(1) $n(2)
$ns_ rtmodel-at 2680 up $n(1) $n(2)
$ns_ rtmodel-at 2730 down $n(1) $n(2)
$ns_ rtmodel-at 2740 up $n(1) $n(2)
$ns_ rtmodel-at 2790 down $n(1) $n(2)
$ns_ rtmodel-at 2800 up $n(1) $n(2)
$ns_ rtmodel-at 2850 down $n(1) $n(2)
$ns_ rtmodel-at 2860 up $n(1) $n(2)
$ns_ rtmodel-at 2910 down $n(1) $n(2)
$ns_ rtmodel-at 2920 up $n(1) $n(2)
$ns_ rtmodel-at 2970 down $n(1) $n(2)
$ns_ rtmodel-at 2980 up $n(1) $n(2)
$ns_ rtmodel-at 3030 down $n(1) $n(2)
$ns_ rtmodel-at 3040 up $n(1) $n(2)
$ns_ rtmodel-at 3090 down $n(1) $n(2)
$ns_ rtmodel-at 3100 up $n(1) $n(2)
$ns_ rtmodel-at 3150 down $n(1) $n(2)
$ns_ rtmodel-at 3160 up $n(1) $n(2)
$ns_ rtmodel-at 3210 down $n(1) $n(2)
$ns_ rtmodel-at 3220 up $n(1) $n(2)
$ns_ rtmodel-at 3270 down $n(1) $n(2)
$ns_ rtmodel-at 3280 up $n(1) $n(2)
$ns_ rtmodel-at 3330 down $n(1) $n(2)
$ns_ rtmodel-at 3340 up $n(1) $n(2)
$ns_ rtmodel-at 3390 down $n(1) $n(2)
$ns_ rtmodel-at 3400 up $n(1) $n(2)
$ns_ rtmodel-at 3450 down $n(1) $n(2)
$ns_ rtmodel-at 3460 up $n(1) $n(2)
$ns_ rtmodel-at 3510 down $n(1) $n(2)
$ns_ rtmodel-at 3520 up $n(1) $n(2)
$ns_ rtmodel-at 3570 down $n(1) $n(2)
$ns_ rtmodel-at 3580 up $n(1) $n(2)
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
$ns_ at 0 "$app_ send 100000000"
$ns_ at 3600 "finish"
$ns_ run
