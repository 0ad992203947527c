"""The simulated side of `tcplab validate linux` (docs/validation/linux.md) for each cumulative step of the Linux
profile: the switches added for issue 17 part 1, one by one. Run from the repository root:
`.venv/bin/python validation/linux_profile_steps.py`."""
from pathlib import Path
from tcplab import _core
from tcplab.result import Result
from tcplab.scenario import parse_set
from tcplab.validate import compare
from tcplab.validate.command import SIM_TRACE

LOSSY = ["links.bottleneck.rate=5Mbps", "links.bottleneck.delay=5ms",
         'links.bottleneck.loss={model="bernoulli", p=0.01}',
         'links.bottleneck.outage.intervals=[["10s","15s"],["30s","60s"]]']
CASES = {
    "bottleneck": ("examples/wired_bottleneck.toml", []),
    "outage": ("examples/wired_outage.toml", []),
    "lossy": ("examples/wired_bottleneck.toml", LOSSY),
    "lossy20": ("examples/wired_bottleneck.toml", LOSSY + ["flows.download.size=20MB"]),
}
OFF = ["tlp", "dsack", "undo", "frto", "rcv_buf_autotune", "hystart", "timestamp_undo", "quickack", "rcv_wnd_growth", "cubic_min_growth", "rack_after_rto"]
STEPS = {
    "none": OFF,
    "+tlp": OFF[1:],
    "+dsack,undo": OFF[3:],
    "+frto": OFF[4:],
    "+autotune": OFF[5:],
    "+hystart": OFF[6:],
    "+ts_undo": OFF[7:],
    "+quickack": OFF[8:],
    "+rcv_wnd": OFF[9:],
    "+cubic_min_growth": OFF[10:],
    "+rack_after_rto": [],
}
base = ["tcp.profile=linux", "tcp.variant=rack"]
for case, (path, sets) in CASES.items():
    text = Path(path).read_text()
    for step, off in STEPS.items():
        ov = [parse_set(s) for s in base + sets + [f"tcp.{o}=false" for o in off]]
        resolved = _core.resolve(text, "toml", ov)
        sim = Result.from_raw(_core.run(text, "toml", 1, [*ov, *SIM_TRACE], None))
        s = compare.simulated(sim, resolved)
        rto = " ".join(f"{t:.2f}" for t in s.rto_times_s)
        rec = " / ".join("-" if x is None else f"{x:.3f}" for x in s.recovery_s)
        ss = compare._exit(s.slow_start_exit)
        undos = sim.summary["flows"][0]["undos"]
        print(f"{case:10s} {step:18s} {s.completion_s:8.3f} s  retx {s.retransmissions:4d}  RTOs {s.rtos:3d}  "
              f"undos {undos:3d}  rec {rec}  slow start {ss}  RTO times {rto}", flush=True)
