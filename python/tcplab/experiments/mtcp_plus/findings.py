"""Seed 000's claims, each decided by a stated statistical rule on the paired replications.

Every variant and scenario is run with the same seeds, so two cells are compared seed by seed: the
claim "A's download is faster than B's" holds when the 95 % Student-t CI of the paired difference
``B − A`` lies wholly above 0, fails when it lies wholly at or below 0, and is "not separated"
otherwise (:func:`tcplab.stats.above`; an exact tie is not "faster").  Claims of sameness ("similar")
are two one-sided tests with the margin :data:`SIMILAR_PCT` (:func:`tcplab.stats.equivalent`), "the
lowest" where the paper's own table shows a tie is "faster or tied" (:func:`tcplab.stats.at_least`),
and a printed range ("2–15 %") holds when the CI lies inside it, both ends as printed
(:func:`tcplab.stats.within`).
A claim over several cases fails if any case fails and holds only if all hold (:func:`combine`).

A download that aborted has response time 0 (the paper's convention) and is worse than any completed
one; a case where one of the compared downloads aborted is decided by the completions, and said so.

Input: ``vals[(variant, scenario, delayed_ack, metric)] = {seed: value}`` with metrics
``response`` (s, 0 when aborted), ``retx`` (%, eq. (7)), ``completed`` (1 or 0) and
``fast_recoveries`` (count).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tcplab.experiments.base import Finding
from tcplab.stats import (
    FAILS,
    HOLDS,
    NOT_CHECKED,
    NOT_SEPARATED,
    Summary,
    above,
    all_or_none,
    at_least,
    combine,
    equivalent,
    never,
    paired,
    paired_diff,
    summarise,
    within,
)

Key = tuple[str, str, bool]  # (variant, scenario, delayed ACK)
Values = dict[tuple[str, str, bool, str], dict[int, float]]

LABEL = {"mtcp_plus": "M-TCP+", "mtcp": "M-TCP", "newreno": "NewReno", "sack": "SACK"}
DISCONNECTIONS = ("5s", "10s", "30s", "180s")
DELACK = (True, False)

#: The equivalence margin for "similar" / "same" response times, in % of the reference's time.  The
#: paper calls differences of at most 0.3 % "similar" (Table 2: 261.0 vs 261.1 s; Table 3 without
#: delayed ACK: 311.4 vs 311.9 s) and 1.7 % an improvement (Table 3, 5 s, delayed ACK off: 311.4 vs
#: 316.8 s, inside its "2–15 %"), so the margin lies between the two: 1 %.
SIMILAR_PCT = 1.0
#: The printed range of the response-time cut (§4.2, abstract: "2%–15%").
CUT_LOW, CUT_HIGH = 2.0, 15.0

#: The rules, stated once and shown with each finding.
RULE_FASTER = (
    "paired over seeds; holds when the 95 % CI of the difference excludes 0 in the stated direction, "
    "fails when it excludes 0 the other way; an aborted download counts as slower than any completed one"
)
RULE_LOWER = (
    "paired over seeds; holds when the 95 % CI of the difference lies wholly above 0, fails when it lies "
    "wholly at or below 0 (equal ratios fail)"
)
RULE_BAND = "paired over seeds; holds when the 95 % CI lies inside the band, fails when it lies wholly outside"
RULE_SIMILAR = (
    f"paired over seeds, the relative difference in % of the reference; two one-sided tests: holds when the 90 % CI "
    f"lies inside ±{SIMILAR_PCT:g} % (the margin: the paper calls ≤ 0.3 % similar and 1.7 % an improvement), fails "
    "when the 95 % CI lies wholly outside it"
)
RULE_TIE = (
    f"vs M-TCP without delayed ACK (a tie in the paper's Table 3) faster or tied: holds when the paired 95 % CI lies "
    f"wholly above 0 or a two one-sided test shows a tie within ±{SIMILAR_PCT:g} % of M-TCP's time, fails when M-TCP+ "
    f"is slower by more than that"
)
RULE_COMPLETION = "completion in every replication vs. abortion in every replication; mixed is not separated"

def _ack(d: bool) -> str:
    return "delayed ACK on" if d else "delayed ACK off"


def _case(k: Key) -> str:
    v, sc, d = k
    return f"{LABEL[v]} {sc}, {_ack(d)}"


def _seeds(vals: Values, k: Key, metric: str) -> dict[int, float]:
    """One metric of a cell, by seed (empty when the cell has no runs)."""
    return vals.get((*k, metric), {})


def _aborts(vals: Values, k: Key) -> tuple[int, int]:
    """(aborted, total) replications of a cell."""
    c = _seeds(vals, k, "completed")
    return sum(1 for x in c.values() if x < 0.5), len(c)


def _diff(vals: Values, a: Key, b: Key, metric: str) -> Summary:
    """The paired a − b of one metric over the seeds both cells have."""
    return paired_diff(_seeds(vals, a, metric), _seeds(vals, b, metric))


def _gap(vals: Values, a: Key, b: Key, metric: str) -> dict[int, float]:
    """Per seed both cells have, a − b of one metric (keyed by seed, to be paired in turn)."""
    xa, xb = _seeds(vals, a, metric), _seeds(vals, b, metric)
    return {k: xa[k] - xb[k] for k in xa if k in xb}


def faster(vals: Values, a: Key, b: Key, *, ties: bool = False) -> tuple[str, str]:
    """Verdict and detail for "cell a downloads faster than cell b" (response time, paired); with
    ``ties``, "a is faster or tied with b" (a tie: within ±SIMILAR_PCT % of b's mean by TOST)."""
    (ab_a, n_a), (ab_b, n_b) = _aborts(vals, a), _aborts(vals, b)
    if n_a == 0 or n_b == 0:
        return NOT_CHECKED, f"{_case(a)} vs {_case(b)}: no runs"
    if ab_a or ab_b:
        text = f"{_case(a)} aborted {ab_a}/{n_a}, {_case(b)} aborted {ab_b}/{n_b}"
        if ab_a == 0 and ab_b == n_b:
            return HOLDS, text
        if ab_a == n_a and ab_b == 0:
            return FAILS, text
        if ab_a == n_a and ab_b == n_b:
            return NOT_CHECKED, text + " (both aborted)"
        return NOT_SEPARATED, text
    s = _diff(vals, b, a, "response")
    if ties:
        margin = SIMILAR_PCT / 100 * summarise(_seeds(vals, b, "response").values()).mean
        return at_least(s, margin), f"{_case(b)} − {_case(a)} = {s.pm(2)} s (tie margin ±{margin:.2f} s)"
    return above(s), f"{_case(b)} − {_case(a)} = {s.pm(2)} s"


def _relative(vals: Values, a: Key, b: Key, metric: str) -> Summary:
    """Paired 100·(b − a)/b: how much lower a is than b, in % of b."""
    return summarise(100.0 * (y - x) / y if y else float("nan") for x, y in paired(_seeds(vals, a, metric),
                                                                                    _seeds(vals, b, metric)))


def _decide(
    text: str, results: Sequence[tuple[str, str]], rule: str, tables: Sequence[str], not_reproduced: Collection[str]
) -> Finding:
    """Combine the cases' verdicts; the detail lists every case that does not hold.  A finding resting
    on a table the model does not reproduce is "not checked", whatever our numbers say of it (issue 39: a
    reading resting on data we do not reproduce is not the paper's finding, neither confirmed nor refuted);
    the detail gives the reason first and what our numbers would have said after it."""
    verdict = combine(v for v, _ in results)
    detail = "; ".join([f"[{v}] {d}" for v, d in results if v != HOLDS] or [f"all {len(results)} cases hold"])
    resting = sorted(set(tables) & set(not_reproduced))
    if resting and verdict != NOT_CHECKED:
        are = "is" if len(resting) == 1 else "are"
        detail = f"it rests on {' and '.join(resting)}, which {are} not reproduced (our numbers: {verdict}; {detail})"
        verdict = NOT_CHECKED
    return Finding.decided(text, verdict, detail, rule)


def findings(vals: Values, not_reproduced: Collection[str] = ()) -> list[Finding]:
    """The paper's claims about Tables 2–6, each under its rule; ``not_reproduced`` names the tables
    ("Table 4", ...) the model does not reproduce."""
    out: list[Finding] = []

    def _finding(text: str, results: Sequence[tuple[str, str]], rule: str, tables: Sequence[str]) -> Finding:
        return _decide(text, results, rule, tables, not_reproduced)

    others = ("mtcp", "newreno", "sack")

    # Section V.2: "M-TCP+ exhibits the lowest download response time ... for all disconnection periods".
    # Without delayed ACK M-TCP ties it in the paper's own Table 3 (30 s: 489.3 s both), so there
    # M-TCP+ must only be not slower than M-TCP; it must be faster than NewReno and SACK everywhere.
    res = [faster(vals, ("mtcp_plus", sc, d), (v, sc, d), ties=(v == "mtcp" and not d))
           for d in DELACK for sc in DISCONNECTIONS for v in others]
    out.append(_finding("M-TCP+ has the lowest download response time in every disconnection case (Table 3)",
                        res, RULE_FASTER + "; " + RULE_TIE, ["Table 3"]))

    # "With delayed ACKs, M-TCP+ is the only variant that completes the download" (180 s).
    comp = {v: _aborts(vals, (v, "180s", True)) for v in ("mtcp_plus", *others)}
    res = []
    for v, (ab, n) in comp.items():
        # M-TCP+ must complete every replication, the others abort every one.
        verdict = all_or_none(n - ab if v == "mtcp_plus" else ab, n)
        res.append((verdict, f"{LABEL[v]}: no runs" if n == 0 else f"{LABEL[v]} aborted {ab}/{n}"))
    out.append(_finding("With 180 s disconnections and delayed ACK only M-TCP+ completes the download (Table 3)",
                        res, RULE_COMPLETION, ["Table 3"]))

    # "With delayed ACK the performance of M-TCP degrades" but it still beats NewReno at 5 and 10 s.
    res = [faster(vals, ("mtcp", sc, True), ("newreno", sc, True)) for sc in ("5s", "10s")]
    out.append(_finding("With delayed ACK, M-TCP is faster than NewReno at 5 s and 10 s disconnections (Table 3)",
                        res, RULE_FASTER, ["Table 3"]))

    # "M-TCP+ reduces download response time by 2%–15%" (§4.2 and the abstract), read as printed: the
    # cut vs NewReno lies in [2, 15] % in every disconnection case where both downloads complete.
    # (The paper's own Table 3 gives 0.9–14.7 %: three of its six cases are below 2 %.)
    res = []
    for d in DELACK:
        for sc in ("5s", "10s", "30s"):
            a, b = ("mtcp_plus", sc, d), ("newreno", sc, d)
            if _aborts(vals, a)[0] or _aborts(vals, b)[0]:
                res.append((NOT_CHECKED, f"{sc}, {_ack(d)}: a download aborted, no cut to measure"))
                continue
            s = _relative(vals, a, b, "response")
            res.append((within(s, CUT_LOW, CUT_HIGH), f"{sc}, {_ack(d)}: cut {s.pm(1, signed=False)} %"))
    out.append(_finding("M-TCP+ cuts the response time by 2–15 % vs NewReno in every disconnection case (Table 3)", res,
                        RULE_BAND + f"; band [{CUT_LOW:g}, {CUT_HIGH:g}] % per case, both ends as printed", ["Table 3"]))

    # "When the delayed ACK option is disabled, the M-TCP+ and M-TCP algorithms had similar performance."
    res = []
    for sc in DISCONNECTIONS:
        a, b = ("mtcp", sc, False), ("mtcp_plus", sc, False)
        if _aborts(vals, a)[0] or _aborts(vals, b)[0]:
            # One side aborting in every replication and the other never is not "similar".
            verdict, text = faster(vals, b, a)
            res.append((FAILS if verdict in (HOLDS, FAILS) else verdict, text))
            continue
        s = _relative(vals, b, a, "response")
        res.append((equivalent(s, SIMILAR_PCT), f"{sc}: M-TCP+ {s.pm(2)} % below M-TCP"))
    out.append(_finding(f"Without delayed ACK, M-TCP and M-TCP+ have similar response times (TOST, ±{SIMILAR_PCT:g} %, "
                        "Table 3)", res, RULE_SIMILAR, ["Table 3"]))

    # Table 2: "The four TCP variants exhibit similar performance" (no processing delay from M-TCP+).
    res = []
    for d in DELACK:
        for v in ("mtcp_plus", "mtcp", "sack"):
            s = _relative(vals, (v, "none", d), ("newreno", "none", d), "response")
            res.append((equivalent(s, SIMILAR_PCT), f"{LABEL[v]} vs NewReno, {_ack(d)}: {s.pm(2)} %"))
    out.append(_finding(f"Without disconnections the four variants have similar response times (TOST, ±{SIMILAR_PCT:g} % "
                        "of NewReno, Table 2)", res, RULE_SIMILAR, ["Table 2"]))

    # "In all cases, the delayed ACK option enabled outperforms the cases with it disabled."
    res = [faster(vals, (v, sc, True), (v, sc, False))
           for v in ("mtcp_plus", *others) for sc in ("none", "5s", "10s", "30s")]
    out.append(_finding("Delayed ACK on is faster than off for every variant (Tables 2, 3; 180 s aside)",
                        res, RULE_FASTER, ["Table 2", "Table 3"]))

    # NewReno and SACK can differ only when several segments of one window are lost and recovered
    # by fast recovery (RFC 6582 vs RFC 6675); where neither ever entered fast recovery they agree by
    # construction, so those cases are not checked.
    res = []
    for d in DELACK:
        for sc in ("none", *DISCONNECTIONS, "congestion"):
            a, b = ("sack", sc, d), ("newreno", sc, d)
            recoveries = sum(sum(_seeds(vals, k, "fast_recoveries").values()) for k in (a, b))
            if recoveries == 0:
                res.append((NOT_CHECKED, f"{sc}, {_ack(d)}: no fast recovery in any run"))
            elif _aborts(vals, a)[0] or _aborts(vals, b)[0]:
                res.append((NOT_CHECKED, f"{sc}, {_ack(d)}: a download aborted"))
            else:
                s = _relative(vals, a, b, "response")
                res.append((equivalent(s, SIMILAR_PCT), f"{sc}, {_ack(d)}: SACK {s.pm(2)} % below NewReno"))
    out.append(_finding(f"NewReno and SACK have the same response time where segments are lost within a window "
                        f"(TOST, ±{SIMILAR_PCT:g} %, Tables 3 and 5)", res, RULE_SIMILAR, ["Table 3", "Table 5"]))

    # Table 4: "M-TCP+ shows the lowest retransmission ratio in all cases" (M-TCP ties it without
    # delayed ACK, so M-TCP is compared only with delayed ACK on).
    res = []
    for d in DELACK:
        for sc in DISCONNECTIONS:
            for v in (others if d else ("newreno", "sack")):
                s = _diff(vals, (v, sc, d), ("mtcp_plus", sc, d), "retx")
                res.append((above(s), f"{LABEL[v]} − M-TCP+ at {sc}, {_ack(d)}: {s.pm(3)} points"))
    out.append(_finding("M-TCP+ has a lower retransmission ratio than NewReno and SACK (and M-TCP with delayed ACK) "
                        "in every disconnection case (Table 4)", res, RULE_LOWER, ["Table 4"]))

    # "Without delayed ACK, M-TCP+ and M-TCP ... are 2 %–8 % lower than TCP NewReno and TCP SACK."
    res = []
    for sc in DISCONNECTIONS:
        for a in ("mtcp_plus", "mtcp"):
            for b in ("newreno", "sack"):
                s = _diff(vals, (b, sc, False), (a, sc, False), "retx")
                res.append((within(s, 2.0, 8.0), f"{LABEL[b]} − {LABEL[a]} at {sc}: {s.pm(3)} points"))
    out.append(_finding("Without delayed ACK, M-TCP+ and M-TCP retransmit 2–8 points less than NewReno and SACK "
                        "(Table 4)", res, RULE_BAND + "; band [2, 8] percentage points", ["Table 4"]))

    # "As expected the retransmission ratio is higher for the four TCP variants in the congestion scenarios."
    res = []
    for d in DELACK:
        for v in ("mtcp_plus", *others):
            s = _diff(vals, (v, "congestion", d), (v, "10s", d), "retx")
            res.append((above(s), f"{LABEL[v]}, {_ack(d)}: congestion − 10 s = {s.pm(3)} points"))
    out.append(_finding("Congestion raises every variant's retransmission ratio (Table 6 > Table 4 at 10 s)",
                        res, RULE_LOWER, ["Table 4", "Table 6"]))

    # §4.3: "In the case with delayed ACKs, the M-TCP+ algorithm outperforms the M-TCP algorithm, TCP
    # NewReno, and TCP SACK" (Table 5).
    res = [faster(vals, ("mtcp_plus", "congestion", True), (v, "congestion", True)) for v in others]
    out.append(_finding("With congestion and delayed ACK, M-TCP+ is faster than M-TCP, NewReno and SACK (Table 5)",
                        res, RULE_FASTER, ["Table 5"]))

    # §4.3: "the download response times in both cases ... are higher [than] for the same disconnection
    # period (10 s) without congestion" (Table 5 vs Table 3).
    res = [faster(vals, (v, "10s", d), (v, "congestion", d)) for v in ("mtcp_plus", *others) for d in DELACK]
    out.append(_finding("Congestion lengthens every variant's download (Table 5 > Table 3 at 10 s)",
                        res, RULE_FASTER, ["Table 3", "Table 5"]))

    # §4.2: "In the case of a lengthy (180 s) disconnection, TCP NewReno and TCP SACK did not complete the
    # file transfer for either case with or without the delayed ACK option enabled."
    res = []
    for v in ("newreno", "sack"):
        for d in DELACK:
            ab, n = _aborts(vals, (v, "180s", d))
            res.append((all_or_none(ab, n), f"{LABEL[v]}, {_ack(d)}: no runs" if n == 0 else
                        f"{LABEL[v]}, {_ack(d)}: aborted {ab}/{n}"))
    out.append(_finding("With 180 s disconnections NewReno and SACK abort, with and without delayed ACK (Table 3)",
                        res, RULE_COMPLETION, ["Table 3"]))

    # §4.3: "M-TCP+ shows lower retransmission ratio than the other three TCP variants" with delayed ACK,
    # and without it "M-TCP+ and M-TCP ... both outperform TCP NewReno and TCP SACK" (Table 6).
    res = []
    for d in DELACK:
        for a in (("mtcp_plus",) if d else ("mtcp_plus", "mtcp")):
            for v in (others if d else ("newreno", "sack")):
                s = _diff(vals, (v, "congestion", d), (a, "congestion", d), "retx")
                res.append((above(s), f"{LABEL[v]} − {LABEL[a]}, {_ack(d)}: {s.pm(3)} points"))
    out.append(_finding("With congestion M-TCP+ retransmits less than the others with delayed ACK, and M-TCP+ and M-TCP "
                        "less than NewReno and SACK without it (Table 6)", res, RULE_LOWER, ["Table 6"]))
    # §4.1: "No segment losses occurred in the scenarios without disconnection ... hence, there are no
    # retransmissions."
    res = []
    for v in ("mtcp_plus", *others):
        for d in DELACK:
            r = _seeds(vals, (v, "none", d), "retx")
            if r:
                bad = sum(1 for x in r.values() if x > 0)
                res.append((never(bad, len(r)), f"{LABEL[v]}, {_ack(d)}: {bad}/{len(r)} runs retransmitted"))
    out.append(_finding("Without disconnections no segment is retransmitted (§4.1)", res,
                        "every replication: holds when the retransmission ratio is 0, fails when one run retransmits",
                        ["Table 2"]))

    # Fig. 5's caption (10 s, delayed ACK off): "The M-TCP+ and M-TCP algorithms exhibit higher goodput than
    # TCP NewReno and TCP SACK" — for a fixed file, the shorter download.
    res = [faster(vals, (a, "10s", False), (b, "10s", False)) for a in ("mtcp_plus", "mtcp") for b in ("newreno", "sack")]
    out.append(_finding("Without delayed ACK at 10 s, M-TCP+ and M-TCP are faster than NewReno and SACK (Fig. 5)",
                        res, RULE_FASTER, ["Table 3"]))

    # §4.3: "The M-TCP+ algorithm shows higher goodput (with or without the delayed ACK option enabled) than the
    # other three TCP variants" (Figs 7, 8).
    res = [faster(vals, ("mtcp_plus", "congestion", d), (v, "congestion", d)) for d in DELACK for v in others]
    out.append(_finding("With congestion M-TCP+ is faster than the other three with and without delayed ACK (Figs 7, 8)",
                        res, RULE_FASTER, ["Table 5"]))

    # §5: "When the delayed ACK option is enabled, the performance of the original M-TCP algorithm degrades":
    # M-TCP's lag behind M-TCP+ is larger with delayed ACK than without.
    res = []
    for sc in ("5s", "10s", "30s"):
        keys = [(v, sc, d) for v in ("mtcp", "mtcp_plus") for d in DELACK]
        if any(_aborts(vals, k)[0] for k in keys):
            res.append((NOT_CHECKED, f"{sc}: a download aborted"))
            continue
        on = _gap(vals, ("mtcp", sc, True), ("mtcp_plus", sc, True), "response")
        off = _gap(vals, ("mtcp", sc, False), ("mtcp_plus", sc, False), "response")
        s = paired_diff(on, off)
        res.append((above(s), f"{sc}: lag with − without delayed ACK = {s.pm(2)} s"))
    out.append(_finding("With delayed ACK M-TCP falls further behind M-TCP+ than without (§5)", res,
                        "paired over seeds, (T_M-TCP − T_M-TCP+) with delayed ACK minus the same without; holds when the "
                        "95 % CI lies wholly above 0, fails when wholly at or below", ["Table 3"]))
    return out
