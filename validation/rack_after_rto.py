"""What `rack_after_rto` changes (docs/validation/linux.md): a 40 MB download over a 20 Mb/s,
40 ms bottleneck with Bernoulli loss and one 2 s outage, on the Linux profile, seeds 1-8, with the
switch on and off. Run from the repository root:
`.venv/bin/python validation/rack_after_rto.py 0.01` (the loss probability)."""
import json
import subprocess
import sys

p = sys.argv[1] if len(sys.argv) > 1 else "0.01"
base = ["tcp.profile=linux", "tcp.variant=rack", "links.bottleneck.rate=20Mbps", "links.bottleneck.delay=40ms",
        'links.bottleneck.outage.intervals=[["10s","12s"]]', f'links.bottleneck.loss={{model="bernoulli", p={p}}}',
        "flows.download.size=40MB"]
for seed in range(1, 9):
    row = []
    for on in ("true", "false"):
        args = [".venv/bin/tcplab", "run", "examples/wired_bottleneck.toml", "--json", "--seed", str(seed)]
        for s in base + [f"tcp.rack_after_rto={on}"]:
            args += ["--set", s]
        f = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["flows"][0]
        row.append(f"{f['response_time_s']:.3f} s, {f['timeouts']} RTOs, {f['retransmissions']} retx")
    print(f"seed {seed}: on {row[0]} | off {row[1]}", flush=True)
