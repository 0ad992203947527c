"""Write docs/validation/data/<page>.json for a hand-written page as it stands (issue 39), to guard it.

    .venv/bin/python validation/doc_page_data.py PAGE_STEM [EXISTING_DATA_JSON]

One entry per section holding the numbers the section prints that no existing entry traces, with the command the
section names (or "none printed") and the last commit that changed the section's lines (`git blame`; commit the
page first).  The numbers are moved as they stand, not re-measured: the guard (tests/test_docs_pages.py) then keeps
them from going stale.  Check the entries by hand (a better command, a run's tables.json) before committing; then
`python -m tcplab.experiments.doc_pages docs/validation/PAGE.md` lists nothing.  Used for wireless_baselines,
robustness, baselines and mutants in session 16; performance and ns2 are next.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from tcplab.experiments import doc_pages as dp

CMD = re.compile(r"`((?:\.venv/bin/|tcplab |cargo |make |python|/usr/bin/time|tshark|valgrind|CI=)[^`]*)`")
CMDBLOCK = re.compile(r"```[a-z]*\n(.*?)```", re.S)

def blame(page):
    out = subprocess.run(["git", "blame", "--line-porcelain", str(page)], capture_output=True, text=True, check=True).stdout
    commits, times, c = [], {}, None
    for ln in out.splitlines():
        if re.match(r"^[0-9a-f]{40} ", ln):
            c = ln.split()[0]
        elif ln.startswith("committer-time "):
            times[c] = int(ln.split()[1])
        elif ln.startswith("\t"):
            commits.append(c)
    return commits, times

def main(name, extra=None):
    page = Path(f"docs/validation/{name}.md")
    text = page.read_text()
    commits, times = blame(page)
    data = {"page": page.name, "measurements": {}}
    if extra:
        data = json.loads(Path(extra).read_text())
    line = 0
    seen = {}
    for heading, part in dp.sections(text):
        n = part.count("\n") + 1
        own = commits[line:line + n]
        line += n
        strings, floats = dp.data_values(data, heading)
        toks = [t for t in dp.numbers(dp.prose(part)) if not dp._traced(t, strings, floats)]
        if not toks:
            continue
        uniq = list(dict.fromkeys(toks))
        last = max(set(own), key=lambda c: times.get(c, 0))
        if set(last) == {"0"}:
            raise SystemExit(f"{page}: section {heading!r} has uncommitted lines: commit the page first")
        when = subprocess.run(["git", "show", "-s", "--format=%cs", last], capture_output=True, text=True).stdout.strip()
        cmds = CMD.findall(part) + [c.strip().splitlines()[0] for c in CMDBLOCK.findall(part) if c.strip()]
        cmds = [c for c in cmds if re.match(r"(\.venv|tcplab|cargo|make|python|/usr/bin/time|tshark|valgrind|CI=|\.ci)", c)]
        cmd = "; ".join(dict.fromkeys(cmds)) if cmds else "none printed in this section: the numbers as the page states them (moved, not re-measured)"
        key = re.sub(r"[^a-z0-9]+", "_", heading.lower()).strip("_")[:50] or "title"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += f"_{seen[key]}"
        data["measurements"][key] = {
            "section": heading, "command": cmd, "date": when,
            "commit": f"{last[:7]} (the last commit that changed this section; its numbers moved as they stood)",
            "values": " ".join(uniq)}
    Path(f"docs/validation/data/{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(name, len(data["measurements"]), "entries")

if __name__ == "__main__":
    if not 2 <= len(sys.argv) <= 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
