#!/usr/bin/env python3
"""Fold the per-run RESULT lines of results/<scenario>.jsonl into results/<scenario>.json:
per configuration (AODV preset, ARP mode, duration), every numeric counter's per-seed values,
mean and 95 % confidence half-width (Student t, n − 1 degrees of freedom).

Usage: python3 summarize.py adhoc_string   (plain Python; does not import ns-3)
"""
import json
import math
import os
import sys

# Two-sided 95 % Student t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(df):
    return T95.get(df) or T95[max(k for k in T95 if k <= df)]


def flatten(d, prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}, numbers only."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[prefix + k] = v
    return out


def stats(values):
    n = len(values)
    mean = sum(values) / n
    half = None
    if n > 1:
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        half = t95(n - 1) * sd / math.sqrt(n)
    return {"mean": mean, "ci95": half, "n": n, "values": values}


def main(scenario):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    runs = [json.loads(line) for line in open(os.path.join(here, scenario + ".jsonl"))]
    groups = {}
    for r in runs:
        p = r["params"]
        key = "aodv=%s arp=%s duration=%gs" % (
            p["aodv"], "static" if p.get("static_arp") else "dynamic", p["duration_s"])
        groups.setdefault(key, []).append(r)
    out = {"scenario": scenario, "ns3_version": runs[0]["ns3_version"], "configurations": {}}
    for key, rs in sorted(groups.items()):
        rs.sort(key=lambda r: r["params"]["seed"])
        flat = [flatten({k: v for k, v in r.items() if k != "params"}) for r in rs]
        names = sorted(set().union(*flat))
        out["configurations"][key] = {
            "params": {k: v for k, v in rs[0]["params"].items() if k != "seed"},
            "seeds": [r["params"]["seed"] for r in rs],
            "metrics": {m: stats([f.get(m, 0) for f in flat]) for m in names},
        }
    path = os.path.join(here, scenario + ".json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", path)
    for key, cfg in out["configurations"].items():
        print("==", key, "seeds", cfg["seeds"])
        for m, s in cfg["metrics"].items():
            ci = "" if s["ci95"] is None else " ± %.4g" % s["ci95"]
            print("  %-55s %.6g%s" % (m, s["mean"], ci))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "adhoc_string")
