"""Size, generation cost and opening time of `tcplab view` pages (docs/viewer.md, "Size and speed").

For each case: the plain run's CPU time (`tcplab run SCENARIO --json`), the viewer's
(`tcplab view SCENARIO --out FILE`), both as the children's user + system CPU seconds, runs
alternated; the file's size; and the time from navigation start to the first frame drawn with the
events, read from the page itself (`window.tcplabView.readyMs`, `performance.now()` when the page
sets its ready flag, the page's time origin being the navigation start) in Debian's headless
Chromium driven by Selenium, each page opened `--opens` times in a fresh tab. Prints one JSON line
per case with the load average before and after, medians and every sample.

    .venv/bin/python benches/viewer_open.py [--runs 3] [--opens 5] [--keep DIR]

Not a test: wall times on a shared machine vary with its load, which is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "7-hop string, 600 s": ["examples/adhoc_string.toml"],
    "50 mobile nodes, 300 s": ["examples/adhoc_mobile.toml", "--set", "duration=300s"],
}


def cpu_of(cmd: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def open_times(pages: list[Path], opens: int) -> dict[Path, list[float]]:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,900"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=opts)
    driver.set_script_timeout(600)
    out: dict[Path, list[float]] = {p: [] for p in pages}
    try:
        for _ in range(opens):
            for p in pages:  # alternated
                driver.get("about:blank")
                driver.get(p.resolve().as_uri())
                ms = driver.execute_async_script(
                    """const done = arguments[arguments.length - 1];
                    window.tcplabView.whenReady.then(() => done(window.tcplabView.readyMs), (e) => done(String(e)));"""
                )
                if not isinstance(ms, (int, float)):
                    raise RuntimeError(f"{p}: {ms}")
                out[p].append(ms / 1000.0)
    finally:
        driver.quit()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="plain/view runs per case (alternated)")
    ap.add_argument("--opens", type=int, default=5, help="page openings per case")
    ap.add_argument("--keep", type=Path, help="folder to keep the pages in")
    ap.add_argument("--only", help="run only the case whose name contains this")
    a = ap.parse_args()
    tcplab = [str(Path(sys.executable).with_name("tcplab"))]
    tmp = Path(tempfile.mkdtemp(prefix="viewer_open_"))
    folder = a.keep or tmp
    folder.mkdir(parents=True, exist_ok=True)
    pages: dict[str, Path] = {}
    results: dict[str, dict[str, object]] = {}
    for name, args in CASES.items():
        if a.only and a.only not in name:
            continue
        page = folder / (Path(args[0]).stem + ".html")
        load0 = os.getloadavg()[0]
        plain, view = [], []
        for _ in range(a.runs):
            plain.append(cpu_of([*tcplab, "run", *args, "--json"]))
            view.append(cpu_of([*tcplab, "view", *args, "--out", str(page)]))
        pages[name] = page
        results[name] = {
            "plain_cpu_s": plain, "view_cpu_s": view,
            "ratio_median": statistics.median(view) / statistics.median(plain),
            "bytes": page.stat().st_size, "load_before": load0, "load_after": os.getloadavg()[0],
        }
    load0 = os.getloadavg()[0]
    times = open_times(list(pages.values()), a.opens)
    for name, page in pages.items():
        results[name].update(
            open_s=times[page], open_median_s=statistics.median(times[page]),
            open_load_before=load0, open_load_after=os.getloadavg()[0],
        )
        print(json.dumps({"case": name, **results[name]}))
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
