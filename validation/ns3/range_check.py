#!/usr/bin/env python3
"""Check that adhoc_common's PHY reproduces ns-2's two-ray-ground ranges in ns-3 3.44:
frames decoded up to 250 m and not beyond, medium sensed busy up to 550 m and not beyond.

One node at the origin broadcasts 100 UDP datagrams of 1000 B (1 Mb/s, the rate of broadcast
frames); silent receivers sit at the distances below on separate bearings.  Prints one
"RESULT {json}" line: per distance, frames decoded and seconds of CCA-busy or RX time.
"""
import math
import time

T_PROCESS0 = time.perf_counter()
import adhoc_common as c  # noqa: E402
from adhoc_common import A, ns  # noqa: E402

DISTANCES = [100.0, 249.0, 251.0, 400.0, 549.0, 551.0, 700.0]
N_PACKETS = 100

nodes = ns.NodeContainer()
nodes.Create(1 + len(DISTANCES))
devices = c.build_wifi(nodes)
pos = [(0.0, 0.0)]
for i, d in enumerate(DISTANCES):
    a = math.pi * i / len(DISTANCES)
    pos.append((d * math.cos(a), d * math.sin(a)))
c.place(nodes, pos)
ns.InternetStackHelper().Install(nodes)
addr = ns.Ipv4AddressHelper()
addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.0.0"))
addr.Assign(devices)
onoff = ns.OnOffHelper("ns3::UdpSocketFactory",
                       ns.InetSocketAddress(ns.Ipv4Address("10.0.255.255"), 9).ConvertTo())
onoff.SetConstantRate(ns.DataRate("80kbps"), 1000)
onoff.SetAttribute("MaxBytes", ns.UintegerValue(N_PACKETS * 1000))
apps = onoff.Install(nodes.Get(0))
apps.Start(ns.Seconds(1.0))
A.HookRange()
c.run_timed(30.0)
rows = [{"distance_m": d, "frames_decoded": int(A.RangeRxOk(i + 1)),
         "busy_s": round(float(A.RangeBusy(i + 1)), 6)} for i, d in enumerate(DISTANCES)]
res = {"scenario": "range_check", "broadcast_frames": N_PACKETS, "rows": rows,
       "rx_sensitivity_dBm": round(c.dbm(c.NS2_RX_THRESH_W), 3),
       "cca_threshold_dBm": round(c.dbm(c.NS2_CS_THRESH_W), 3),
       "tx_power_dBm": round(c.dbm(c.NS2_PT_W), 3)}
ns.Simulator.Destroy()
c.emit(res, T_PROCESS0)
