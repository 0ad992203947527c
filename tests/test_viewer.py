"""The run viewer (`tcplab view`, docs/viewer.md) opened in a real browser: Debian's Chromium driven
headless through Selenium and chromium-driver (both installed by `make test`).

Checked in the page: it loads with no console error and without the network; at chosen times the
positions it draws are the simulator's (hand-computed for a waypoint track, the core's exported
track for random waypoint); a drop the run recorded is drawn at its node with its reason; the cwnd
plot's cursor value is the series' value; a node's routing table in the panel is the one the event
trace's route rows give at the cursor (the core's tests check those rows against the agents' own
tables), and on the AODV string it is the known one. Outside the browser: the page's rows are the
event trace's, they agree with the run's counters, and bad input exits 2 naming the field, writing
nothing.

Screenshots of two scenarios are saved into $TCPLAB_VIEWER_SHOTS (docs/img when refreshing the
documentation's pictures), else into the test's temporary folder.
"""

from __future__ import annotations

import bisect
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tcplab
from tcplab import viewer
from tcplab.viewer import data as vdata

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")

# Outside CI a missing browser skips the browser tests; in CI (where `make test` installs it) it fails them.
needs_browser = pytest.mark.skipif(
    (CHROMIUM is None or DRIVER is None) and not os.environ.get("CI"),
    reason="chromium and chromium-driver are installed by `make test`",
)

# examples/adhoc_break.toml: n2 rests at (400, 0) until 20 s, goes to (400, 400) by 40 s and back by
# 60 s (straight lines at constant speed), which breaks the n0 → n3 string's route.
BREAK_POSITIONS = {
    10.0: (400.0, 0.0),
    25.0: (400.0, 100.0),
    30.0: (400.0, 200.0),
    45.0: (400.0, 300.0),
    70.0: (400.0, 0.0),
}


def shots_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = os.environ.get("TCPLAB_VIEWER_SHOTS")
    if d:
        path = Path(d)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("shots")


@pytest.fixture(scope="module")
def browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,900"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER or "/usr/bin/chromedriver"), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, path: Path) -> None:
    """Load the page and wait for its own ready promise (``tcplabView.whenReady``): it resolves after
    the events are loaded and the first frame is drawn, or rejects with the error that stopped it."""
    driver.get(path.resolve().as_uri())
    driver.set_script_timeout(300)  # a safety net against a page that never settles, not a speed check
    failure = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        if (!window.tcplabView) return done("the viewer's script did not start");
        window.tcplabView.whenReady.then(() => done(null), (e) => done(String(e && e.stack || e)));"""
    )
    assert failure is None, failure
    errors = driver.execute_script("return window.tcplabView.errors")
    assert not errors, errors


def screenshot(driver: Any, path: Path) -> None:
    """Save the page as a PNG, reduced to a 256-colour palette (the documentation commits them)."""
    from PIL import Image

    assert driver.save_screenshot(str(path))
    Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def set_time(driver: Any, t: float) -> dict[str, Any]:
    return driver.execute_script("return window.tcplabView.setTime(arguments[0])", t)


_PAGES: dict[int, dict[str, np.ndarray]] = {}


def col(res: tcplab.Result, name: str) -> np.ndarray:
    """A column of the page's rows (derived from the run's event trace, all of the run)."""
    if id(res) not in _PAGES:
        _PAGES[id(res)] = vdata.page_rows(*vdata._events(res))[1]
    return _PAGES[id(res)][name]


def names(res: tcplab.Result) -> tuple[list[str], list[str], list[str], list[str]]:
    """Nodes, the page's events and classes, the drop reasons: the names of the page's codes."""
    return res.view["meta"]["nodes"], list(vdata.PAGE_EVENTS), list(vdata.PAGE_CLASSES), res.raw_events["names"]["reasons"]


def track_position(res: tcplab.Result, node: str, t: float) -> tuple[float, float]:
    """The core's exported track of `node` evaluated at t (last point at or before t, moved on at its velocity)."""
    tr = res.view["tracks"]
    k = res.view["meta"]["nodes"].index(node)
    pts = sorted(
        (t0, x, y, vx, vy)
        for n, t0, x, y, vx, vy in zip(tr["node"], tr["t_s"], tr["x"], tr["y"], tr["vx"], tr["vy"], strict=True)
        if n == k
    )
    i = max(0, bisect.bisect_right([p[0] for p in pts], t) - 1)
    t0, x, y, vx, vy = pts[i]
    return (x + vx * (t - t0), y + vy * (t - t0))


@pytest.fixture(scope="module")
def broken() -> tcplab.Result:
    return viewer.run(ROOT / "examples/adhoc_break.toml", overrides={"duration": "80s"})


@pytest.fixture(scope="module")
def broken_page(broken: tcplab.Result, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(tcplab.view(broken, tmp_path_factory.mktemp("view") / "adhoc_break.html"))


@pytest.fixture(scope="module")
def mobile() -> tcplab.Result:
    return viewer.run(ROOT / "examples/adhoc_mobile.toml", overrides={"duration": "60s"})


# ------------------------------------------------------------------ the data, without a browser


def test_the_pages_rows_agree_with_the_runs_counters(broken: tcplab.Result) -> None:
    """Drops per node and reason, transmissions, collisions and MAC give-ups per station in the page's
    rows are the summary's counters: the page shows what the run counted."""
    nodes, events, classes, reasons = names(broken)
    ev, cl, node, reason = (col(broken, k) for k in ("event", "class", "node", "reason"))
    rows = len(ev)
    drops = Counter((nodes[node[i]], reasons[reason[i]]) for i in range(rows) if events[ev[i]] == "drop")
    counted = Counter()
    for n in broken.summary.get("nodes", []):
        for r in ("no_route", "discovery_failed", "buffer_full", "buffer_timeout", "link_broken", "ttl"):
            if n[f"drops_{r}"]:
                counted[(n["node"], r)] = n[f"drops_{r}"]
    for w in broken.summary.get("wifi", []):
        if w["drops_queue"]:
            counted[(w["node"], "queue")] = w["drops_queue"]
    assert counted, "the scenario drops packets"
    assert drops == counted
    # Data frames on the air per station (retransmissions included) = frames_sent.
    data_classes = {classes.index(c) for c in ("tcp_data", "tcp_ack", "routing", "udp", "icmp", "arp")}
    sent = Counter(nodes[node[i]] for i in range(rows) if events[ev[i]] == "tx" and cl[i] in data_classes)
    assert sent == Counter({w["node"]: w["frames_sent"] for w in broken.summary["wifi"] if w["frames_sent"]})
    # Collisions at every hearer and the MAC's give-ups are the stations' counters too.
    for event, counter in (("rx_collision", "collisions"), ("link_fail", "drops_retry_limit")):
        got = Counter(nodes[node[i]] for i in range(rows) if events[ev[i]] == event)
        assert got == Counter({w["node"]: w[counter] for w in broken.summary["wifi"] if w[counter]}), event


def test_the_page_reads_the_event_trace(broken: tcplab.Result, tmp_path: Path) -> None:
    """The page's rows are the event trace's, as its Parquet file holds them: one row per MAC or wire
    send, per drop; the core records no packet rows of its own for the viewer (``trace.view`` holds the
    tracks and the network's shape only)."""
    import polars as pl

    assert set(broken.view) == {"meta", "tracks"}
    path = tmp_path / "events.parquet"
    tcplab.events.write_parquet(broken.events, path)
    ev = pl.read_parquet(path)
    nodes, events, classes, reasons = names(broken)
    page_ev, page_node, page_t = col(broken, "event"), col(broken, "node"), col(broken, "t_s")
    sends = ev.filter(pl.col("layer").is_in(["mac", "link"]) & (pl.col("event") == "send"))
    assert int((page_ev == events.index("tx")).sum()) == sends.height > 0
    drops = ev.filter((pl.col("layer") != "mac") & (pl.col("event") == "drop"))
    got = sorted(zip(page_t[page_ev == events.index("drop")].tolist(), (nodes[n] for n in page_node[page_ev == events.index("drop")]), strict=True))
    assert got == sorted(zip(drops["t_s"].to_list(), drops["node"].cast(pl.String).to_list(), strict=True))
    # The route rows the node panel replays are the trace's.
    routes = ev.filter(pl.col("event") == "route")
    assert routes.height > 0
    assert vdata.build(broken).header["routes"][0] == routes["t_s"].to_list()


def test_the_queue_at_each_transmission_counts_the_packets_waiting(broken: tcplab.Result) -> None:
    """The queue the node panel shows at a node's transmission is the number of packets enqueued at its
    interface (event trace ``ifq`` ``enqueue``) not yet sent from it nor dropped there, counted here
    packet by packet from the event trace's DataFrame; the relays' queues do fill."""
    import polars as pl

    ev = broken.events
    nodes, events, classes, _ = names(broken)
    t, ev_, node, cl, qlen = (col(broken, k) for k in ("t_s", "event", "node", "class", "qlen"))
    for name in ("n0", "n1"):
        rows = ev.filter(pl.col("node") == name).select("t_s", "layer", "event", "kind", "uid").rows()
        waiting: set[int] = set()
        sent: set[int] = set()
        after: list[tuple[float, int]] = []  # (time, packets waiting after each change)
        for ts, layer, event, kind, uid in rows:
            if layer == "ifq" and event == "enqueue":
                waiting.add(uid)
            elif event == "send" and layer in ("mac", "link") and kind not in ("rts", "cts", "mac_ack") and uid in waiting:
                waiting.discard(uid)
                sent.add(uid)
            elif event == "drop" and layer != "mac" and uid in waiting and uid not in sent:
                waiting.discard(uid)
            else:
                continue
            after.append((ts, len(waiting)))
        times = [a[0] for a in after]
        mine = np.flatnonzero((ev_ == events.index("tx")) & (node == nodes.index(name)))
        assert len(mine) > 100
        for i in mine[:: max(1, len(mine) // 400)]:
            k = bisect.bisect_right(times, t[i])
            assert qlen[i] == (after[k - 1][1] if k else 0), (name, t[i])
        assert qlen[mine].max() >= 3, name


def route_table(ev: Any, node: str, t: float, order: list[str]) -> list[dict[str, Any]]:
    """`node`'s routing table at `t`, replayed from the event trace's route rows (a DataFrame as its
    Parquet file holds it): destination, next hop, hops."""
    import polars as pl

    table: dict[str, tuple[str, int]] = {}
    rows = ev.filter((pl.col("event") == "route") & (pl.col("node") == node) & (pl.col("t_s") <= t))
    for dst, nxt, hops in zip(rows["dst"].cast(pl.String), rows["peer"].cast(pl.String), rows["ttl"], strict=True):
        if nxt is None:
            table.pop(dst, None)
        else:
            table[dst] = (nxt, hops)
    return [{"dst": d, "next": n, "hops": h} for d, (n, h) in sorted(table.items(), key=lambda kv: order.index(kv[0]))]


def test_tracks_reproduce_the_waypoints(broken: tcplab.Result) -> None:
    for t, expected in BREAK_POSITIONS.items():
        assert track_position(broken, "n2", t) == pytest.approx(expected, abs=1e-6), t


def test_an_untraced_run_has_no_view(broken: tcplab.Result) -> None:
    plain = tcplab.run(ROOT / "examples/adhoc_break.toml", overrides={"duration": "80s"})
    assert plain.view is None and broken.view is not None
    # The trace observes; it does not change the run.
    assert plain.summary["flows"] == broken.summary["flows"] and plain.summary["wifi"] == broken.summary["wifi"]


def test_the_page_needs_no_network(broken_page: Path) -> None:
    text = broken_page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    assert "<script src" not in text and "<link" not in text


# ------------------------------------------------------------------ in the browser


@needs_browser
def test_page_loads_and_draws_the_simulators_positions(browser: Any, broken: tcplab.Result, broken_page: Path) -> None:
    open_page(browser, broken_page)
    assert console_errors(browser) == []
    for t, expected in BREAK_POSITIONS.items():
        got = set_time(browser, t)["positions"]
        assert got["n2"] == pytest.approx(list(expected), abs=1e-6), t
        for n in ("n0", "n1", "n3"):
            assert got[n] == pytest.approx(list(track_position(broken, n, t)), abs=1e-9)
    # Before n2 leaves, the download's data goes along the string; n2 away (30 s), no route.
    assert set_time(browser, 10.0)["route"] == [["n0", "n1"], ["n1", "n2"], ["n2", "n3"]]
    assert set_time(browser, 33.0)["route"] == []
    # Nothing in the page went to the network.
    urls = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [u for u in urls if u.startswith(("http:", "https:"))]
    assert console_errors(browser) == []


@needs_browser
def test_a_page_that_cannot_load_says_why(browser: Any, broken_page: Path, tmp_path: Path) -> None:
    """The ready promise rejects with the error (here: events that are not gzip) instead of never settling."""
    text = broken_page.read_text(encoding="utf-8")
    start = text.index('<script id="tcplab-blob" type="application/octet-stream">')
    end = text.index("</script>", start)
    bad = tmp_path / "bad.html"
    bad.write_text(text[:start] + '<script id="tcplab-blob" type="application/octet-stream">AAAA' + text[end:], encoding="utf-8")
    with pytest.raises(AssertionError, match="TypeError"):
        open_page(browser, bad)
    assert "error" in browser.find_element("id", "status").text
    assert console_errors(browser), "the error reaches the console"  # (and is read off the log here)


@needs_browser
def test_a_known_drop_is_drawn_at_its_node(browser: Any, broken: tcplab.Result, broken_page: Path) -> None:
    # The first drop counted in the summary's node table, found in the trace for its time.
    nodes, events, _, reasons = names(broken)
    times, node_col, ev, reason_col = (col(broken, k) for k in ("t_s", "node", "event", "reason"))
    drops = np.flatnonzero(ev == events.index("drop"))
    reported = {n["node"] for n in broken.summary["nodes"] if n["drops_link_broken"] or n["drops_no_route"]}
    i = next(int(i) for i in drops if nodes[node_col[i]] in reported)
    node, reason = nodes[node_col[i]], reasons[reason_col[i]]
    open_page(browser, broken_page)
    drawn = set_time(browser, float(times[i]))["drops"]
    assert {"node": node, "reason": reason} in [{"node": d["node"], "reason": d["reason"]} for d in drawn]
    # 2 s later it is gone (drops stay on screen for max(trail, 0.5 s)).
    later = set_time(browser, float(times[i]) + 2.0)["drops"]
    assert all(d["t"] > times[i] for d in later)


@needs_browser
def test_cwnd_cursor_value_is_the_series_value(browser: Any, broken: tcplab.Result, broken_page: Path) -> None:
    s = broken.series.filter((broken.series["flow"] == "download") & (broken.series["series"] == "cwnd"))
    ts, vs = s["t_s"].to_list(), s["value"].to_list()
    assert len(ts) > 50
    open_page(browser, broken_page)
    checked = 0
    for t in (1.0, 5.5, 12.25, 33.3, 61.0, 75.0):
        k = bisect.bisect_right(ts, t)
        if k == 0:
            continue
        cursor = set_time(browser, t)["cursor"]
        assert cursor["cwnd"] == vs[k - 1], t
        checked += 1
    assert checked >= 5
    assert console_errors(browser) == []


@needs_browser
def test_the_node_panel_shows_the_routing_table_at_the_cursor(browser: Any, broken: tcplab.Result, broken_page: Path) -> None:
    """Clicking a node shows its routing table at the cursor: the one the event trace's route rows give
    then (as read back from its Parquet file), for every node at times before, during and after the
    break; and on this AODV string n0 reaches n3 through n1 in 3 hops before n2 leaves, has no route to
    it while n2 is away, and has it again once n2 is back and TCP retries."""
    import polars as pl

    ev = broken.events
    open_page(browser, broken_page)
    seen = []
    for t in (10.0, 26.0, 35.0, 50.0, 79.0):
        for node in ("n0", "n1", "n2", "n3"):
            browser.execute_script("window.tcplabView.select(arguments[0])", node)
            set_time(browser, t)
            # What the panel shows, read off the page's table.
            cells = [
                [c.text for c in r.find_elements("tag name", "td")]
                for r in browser.find_elements("css selector", "#rtable tr.route")
            ]
            shown = [{"dst": d, "next": n, "hops": int(h)} for d, n, h in cells]
            assert shown == route_table(ev, node, t, broken.view["meta"]["nodes"]), (node, t)
            if node == "n0":
                seen.append(next(((r["next"], r["hops"]) for r in shown if r["dst"] == "n3"), None))
    assert seen[0] == ("n1", 3) and seen[2] is None and seen[4] == ("n1", 3), seen
    # A route lost is a row with no next hop: the break is in the trace.
    assert ev.filter((pl.col("event") == "route") & pl.col("peer").is_null()).height > 0
    assert console_errors(browser) == []


@needs_browser
def test_random_waypoint_positions_and_screenshots(
    browser: Any,
    mobile: tcplab.Result,
    broken: tcplab.Result,
    broken_page: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    page = Path(tcplab.view(mobile, tmp_path_factory.mktemp("view") / "adhoc_mobile.html"))
    open_page(browser, page)
    assert console_errors(browser) == []
    for t in (0.0, 7.3, 29.95, 59.0):
        got = set_time(browser, t)["positions"]
        for n in ("m00", "m17", "m43", "s0", "r2"):
            assert got[n] == pytest.approx(list(track_position(mobile, n, t)), abs=1e-9), (n, t)
    out = shots_dir(tmp_path_factory)
    # The busiest second of TCP data on the air, to show packets.
    _, events, classes, _ = names(mobile)
    t, ev, cl = col(mobile, "t_s"), col(mobile, "event"), col(mobile, "class")
    data = t[(ev == events.index("tx")) & (cl == classes.index("tcp_data"))]
    busiest = float(np.argmax(np.bincount(data.astype(int)))) + 0.5
    browser.execute_script("window.tcplabView.select('m21'); document.getElementById('ranges').click()")
    drawn = set_time(browser, busiest)
    assert drawn["tx"], "packets are drawn"
    screenshot(browser, out / "viewer_adhoc_mobile.png")
    # adhoc_break just after its first drop once n2 is well on its way out (25 s).
    open_page(browser, broken_page)
    bt, bev = col(broken, "t_s"), col(broken, "event")
    first_drop = float(bt[(bev == vdata.PAGE_EVENTS.index("drop")) & (bt > 25.0)][0])
    browser.execute_script("window.tcplabView.select('n1'); document.getElementById('ranges').click()")
    drawn = set_time(browser, first_drop + 0.05)
    assert drawn["drops"]
    # The side panel scrolled to n1's routing table.
    browser.execute_script("document.getElementById('rtable').scrollIntoView({block: 'center'})")
    screenshot(browser, out / "viewer_adhoc_break.png")
    assert console_errors(browser) == []


# ------------------------------------------------------------------ bad input


def tcplab_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--set", "wlans.manet.rate=fast"], "wlans"),
        (["--from", "300s"], "--from"),
        (["--to", "90s"], "--to"),
        (["--from", "50s", "--to", "40s"], "--to"),
        (["--from", "soon"], "--from"),
    ],
)
def test_bad_input_exits_2_naming_the_field_and_writes_nothing(tmp_path: Path, args: list[str], field: str) -> None:
    out = tmp_path / "page.html"
    p = tcplab_cli("view", str(ROOT / "examples/adhoc_break.toml"), "--set", "duration=80s", *args, "--out", str(out), cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert field in p.stderr
    assert "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_view_of_an_untraced_result_is_refused(tmp_path: Path) -> None:
    plain = tcplab.run(ROOT / "examples/adhoc_break.toml", overrides={"duration": "5s"})
    with pytest.raises(ValueError, match="trace.view"):
        tcplab.view(plain, tmp_path / "x.html")
    assert list(tmp_path.iterdir()) == []


def test_the_python_api_names_a_bad_argument(broken: tcplab.Result) -> None:
    """viewer.run takes tcplab.run's arguments and checks them as it does; tcplab.view checks ``out``."""
    with pytest.raises(tcplab.ScenarioError, match="seed"):
        viewer.run(ROOT / "examples/adhoc_break.toml", seed=-1)
    with pytest.raises(TypeError, match="overrides"):
        viewer.run(ROOT / "examples/adhoc_break.toml", overrides="duration=5s")
    with pytest.raises(TypeError, match="out"):
        tcplab.view(broken, 123)  # type: ignore[arg-type]


def test_the_page_widens_a_scenarios_own_event_trace() -> None:
    """`tcplab view` keeps a scenario's own trace settings but records every node and at least the
    layers the page draws from; a scenario tracing every layer keeps them all. The page is the output:
    its run writes no trace file (the rows stay in memory for the page), so the file and format go."""
    own = viewer.traced_overrides(
        {"trace": {"events": {"layers": ["agt"], "nodes": ["n0"], "file": "x.parquet", "format": "parquet"}}})
    assert ("trace.events", '{ "layers" = ["agt", "ifq", "link", "mac", "rtr"] }') in own
    assert ("trace.events", "{  }") in viewer.traced_overrides({"trace": {"events": {}}})
    assert ("trace.events", '{ "layers" = ["ifq", "link", "mac", "rtr"] }') in viewer.traced_overrides({"trace": {}})
