"""The pure parts of `tcplab validate linux` (no root needed): quantities, routes, the kernel
settings taken from [tcp], outage windows and recovery times."""

from __future__ import annotations

from pathlib import Path

import pytest

import tcplab
from tcplab.validate.compare import outages, recovery_times
from tcplab.validate.kernel_tcp import kernel_tcp
from tcplab.validate.topology import Route, Topology
from tcplab.validate.units import rate_bps, seconds, size_bytes


def test_the_cores_quantities_read_as_numbers() -> None:
    assert seconds("20ms") == pytest.approx(0.02)
    assert seconds("1min") == 60 and seconds("1h") == 3600 and seconds("1.5s") == 1.5
    assert size_bytes("10MB") == 10**7 and size_bytes("64KiB") == 65536 and size_bytes(1460) == 1460
    assert rate_bps("10Mbps") == 10e6 and rate_bps("1MB/s") == 8e6
    with pytest.raises(ValueError, match="'fast' is not a quantity"):
        seconds("fast")


def test_routes_take_the_first_link_of_the_path() -> None:
    topo = Topology.of(tcplab.resolve("examples/wired_bottleneck.toml"))
    assert topo.address("client") == "10.0.0.3"
    routes = set(topo.routes())
    assert Route("server", "client", "l0") in routes
    assert Route("router", "client", "l1") in routes
    assert Route("client", "server", "l1") in routes
    assert len(routes) == 6


def test_the_tcp_table_becomes_kernel_settings() -> None:
    tcp = tcplab.resolve("examples/wired_bottleneck.toml")["flows"][0]["tcp"]
    k = kernel_tcp(tcp)
    # RFC 3390 with a 1460-byte MSS is 3 segments; the classic rto_min is 1 s.
    assert k.route_attrs == ["initcwnd", "3", "rto_min", "1000ms"]
    assert k.sysctls["net.ipv4.tcp_sack"] == "0" and k.sysctls["net.ipv4.tcp_timestamps"] == "0"
    assert k.sysctls["net.ipv4.tcp_recovery"] == "0" and k.sysctls["net.ipv4.tcp_frto"] == "0"
    assert k.congestion_control == "reno" and k.rcvbuf == 65536 and k.mtu == 1500
    assert any(line.startswith("tcp.limited_transmit") for line in k.unmatched)
    k = kernel_tcp({**tcp, "sack": True, "delayed_ack": False, "cc": "cubic", "initial_window": 10})
    assert k.sysctls["net.ipv4.tcp_sack"] == "1" and k.congestion_control == "cubic"
    assert k.route_attrs[:2] == ["initcwnd", "10"] and k.route_attrs[-2:] == ["quickack", "1"]
    assert not any(line.startswith("tcp.ack_delay") for line in k.unmatched)
    k = kernel_tcp({**tcp, "cc": "westwood"})
    assert k.congestion_control == "reno" and any("westwood" in line for line in k.unmatched)


def test_outages_and_the_recovery_after_each() -> None:
    resolved = tcplab.resolve("examples/wired_outage.toml")
    assert outages(resolved, 100.0) == [(30.0, 40.0), (90.0, 100.0)][:1]
    assert outages(resolved, 101.0) == [(30.0, 40.0), (90.0, 100.0)]
    progress = [(29.0, 10.0), (35.0, 20.0), (41.0, 20.0), (45.5, 21.0)]
    # Bytes counted up to the outage's end (20), then the first growth at 45.5 s.
    assert recovery_times(progress, [(30.0, 40.0)]) == [pytest.approx(5.5)]
    assert recovery_times(progress[:3], [(30.0, 40.0)]) == [None]


def test_every_simulated_rto_is_timed() -> None:
    from tcplab.validate.command import SIM_TRACE
    from tcplab.validate.compare import simulated

    resolved = tcplab.resolve("examples/wired_outage.toml")
    result = tcplab.run("examples/wired_outage.toml", overrides=dict(SIM_TRACE))
    side = simulated(result, resolved)
    # Outages at 30 s and 90 s with rto_min 1 s: timeouts back off 1, 2, 4, 8 s from each.
    assert side.rtos == len(side.rto_times_s) == 8
    assert side.rto_times_s[:4] == pytest.approx([31.0, 33.0, 37.0, 45.0], abs=0.01)
    assert not side.notes


def test_the_linux_profile_becomes_linux_as_it_ships() -> None:
    linux = {"tcp.profile": "linux", "tcp.variant": "rack"}
    tcp = tcplab.resolve("examples/wired_bottleneck.toml", overrides=linux)["flows"][0]["tcp"]
    k = kernel_tcp(tcp)
    # RACK with its tail loss probe, DSACK, SACK-enhanced F-RTO, autotuning from twice the window.
    assert k.sysctls["net.ipv4.tcp_recovery"] == "1" and k.sysctls["net.ipv4.tcp_early_retrans"] == "3"
    assert k.sysctls["net.ipv4.tcp_dsack"] == "1" and k.sysctls["net.ipv4.tcp_frto"] == "2"
    assert k.sysctls["net.ipv4.tcp_moderate_rcvbuf"] == "1" and k.rcvbuf is None
    assert k.sysctls["net.ipv4.tcp_rmem"] == "4096 131072 6291456"
    assert k.congestion_control == "cubic" and k.route_attrs[:4] == ["initcwnd", "10", "rto_min", "200ms"]
    assert not any(line.startswith(("tcp.undo", "tcp.rcv_")) for line in k.unmatched)
    k = kernel_tcp({**tcp, "rcv_buf_autotune": False, "undo": False, "tlp": False})
    assert k.rcvbuf == 65536 and "net.ipv4.tcp_moderate_rcvbuf" not in k.sysctls
    assert k.sysctls["net.ipv4.tcp_early_retrans"] == "0"
    assert any(line.startswith("tcp.undo") for line in k.unmatched)
    # The kernel always grows its window inside a buffer counted in truesize.
    assert any(line.startswith("tcp.rcv_wnd_growth") for line in kernel_tcp({**tcp, "rcv_wnd_growth": False}).unmatched)
    assert any(line.startswith("tcp.rcv_overhead") for line in kernel_tcp({**tcp, "rcv_overhead": "1KiB"}).unmatched)
    # The kernel's CUBIC always has its 5 %-per-round-trip floor before a loss.
    assert not any(line.startswith("tcp.cubic_min_growth") for line in kernel_tcp(tcp).unmatched)
    assert any(line.startswith("tcp.cubic_min_growth") for line in kernel_tcp({**tcp, "cubic_min_growth": False}).unmatched)
    # In its Loss state the kernel repairs a lost retransmission RACK finds (tcp_fastretrans_alert).
    assert not any(line.startswith("tcp.rack_after_rto") for line in kernel_tcp(tcp).unmatched)
    assert any(line.startswith("tcp.rack_after_rto") for line in kernel_tcp({**tcp, "rack_after_rto": False}).unmatched)


def test_hystart_settings_are_checked_against_the_kernels_module_parameters(tmp_path: Path) -> None:
    from tcplab.validate.kernel_tcp import cubic_params

    linux = {"tcp.profile": "linux", "tcp.variant": "rack"}
    tcp = tcplab.resolve("examples/wired_bottleneck.toml", overrides=linux)["flows"][0]["tcp"]
    stock = {"hystart": 1, "hystart_detect": 3, "hystart_low_window": 16, "hystart_ack_delta_us": 2000}
    assert not any("hystart" in line for line in kernel_tcp(tcp, stock).unmatched)
    k = kernel_tcp({**tcp, "hystart_detect": "delay", "hystart_low_window": 8}, stock)
    lines = [line for line in k.unmatched if "hystart" in line]
    assert len(lines) == 2
    assert lines[0].startswith("tcp.hystart_detect = delay") and "hystart_detect = 3" in lines[0]
    assert lines[1].startswith("tcp.hystart_low_window = 8") and "= 16" in lines[1]
    # The parameters are read from sysfs; a missing module gives none (nothing compared).
    (tmp_path / "hystart_low_window").write_text("16\n")
    assert cubic_params(tmp_path) == {"hystart_low_window": 16}


def test_where_the_kernels_slow_start_ended() -> None:
    from tcplab.validate.compare import _linux_slow_start_exit

    inf = 0x7FFFFFFF
    rows = [
        {"t_ns": 1_000_000_000 + k * 2_000_000, "snd_cwnd": 10 + 2 * k, "snd_ssthresh": inf if k < 5 else 18}
        for k in range(8)
    ]
    train = {"TCPHystartTrainDetect": 1, "TCPHystartTrainCwnd": 18}
    assert _linux_slow_start_exit(rows, 1_000_000_000, train) == (0.01, 18.0, "ack_train")
    delay = {"TCPHystartDelayDetect": 1, "TCPHystartDelayCwnd": 18}
    assert _linux_slow_start_exit(rows, 1_000_000_000, delay) == (0.01, 18.0, "delay")
    # No HyStart counter moved: a loss set ssthresh (cwnd then).
    assert _linux_slow_start_exit(rows, 1_000_000_000, {}) == (0.01, 20.0, "loss")
    assert _linux_slow_start_exit(rows[:5], 1_000_000_000, train) is None
