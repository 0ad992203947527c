"""The scenario reference (docs/scenario-reference.md), generated from the core's JSON Schema.

The schema is built from the Rust types and their doc comments, so a reference rendered from it
cannot drift from what the simulator accepts; ``tests/test_docs.py`` checks that the committed file
is what this module renders today.  Regenerate with ``python -m tcplab.schema_doc > docs/scenario-reference.md``.
"""

from __future__ import annotations

import json
from typing import Any

from tcplab import _core

UNITS = {
    "Duration": "duration",
    "Rate": "rate",
    "Size": "size",
    "Distance": "distance",
}
HEADER = """\
# Scenario reference

Generated from the scenario schema (`tcplab schema`) by `python -m tcplab.schema_doc`: do not edit
by hand. The tutorial is [scenario.md](scenario.md).

Units: a **duration** is a number and one of ns, us, ms, s, min, h (below 2^63 ns); a **rate** one
of bps, kbps, Mbps, Gbps, b/s, kb/s, Mb/s, Gb/s, bit/s, B/s (below 2^64 bit/s); a **size** one of
B, kB, MB, GB (powers of ten), KiB, MiB, GiB (powers of two), or a bare integer of bytes (below
2^63 B); a **distance** one of m, km, cm, mm (within ±10^6 km).
"""


def _anchor(name: str) -> str:
    return name.lower()


class Renderer:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("definitions", {})
        self.order: list[str] = []  # object definitions in the order they are first referred to

    def _ref(self, node: dict[str, Any]) -> str | None:
        ref = node.get("$ref")
        return ref.rsplit("/", 1)[-1] if ref else None

    def type_of(self, node: dict[str, Any]) -> str:
        """A short description of a property's type, in the scenario's words."""
        name = self._ref(node)
        if name is not None:
            if name in UNITS:
                return UNITS[name]
            d = self.defs[name]
            if "enum" in d:
                return "one of " + ", ".join(f"`{v}`" for v in d["enum"])
            alts = d.get("oneOf") or d.get("anyOf") or []
            if alts and all("enum" in a for a in alts):  # an enum whose variants have doc comments
                return "one of " + ", ".join(f"`{v}`" for alt in alts for v in alt["enum"])
            if alts and not any(a.get("type") == "object" for a in alts):  # untagged: a value of any form
                return " or ".join(self.type_of(a) for a in alts)
            if name not in self.order:
                self.order.append(name)
            return f"table ([{name}](#{_anchor(name)}))"
        if len(node.get("allOf", [])) == 1:
            return self.type_of(node["allOf"][0])
        for key in ("anyOf", "oneOf"):
            if key in node:
                alts = [a for a in node[key] if a.get("type") != "null"]
                return " or ".join(self.type_of(a) for a in alts)
        t = node.get("type")
        if isinstance(t, list):
            t = [x for x in t if x != "null"]
            t = t[0] if len(t) == 1 else t
        if t == "array":
            items = node.get("items", {})
            if isinstance(items, list):
                return "[" + ", ".join(self.type_of(i) for i in items) + "]"
            inner = self.type_of(items)
            return f"array of {inner}" if not inner.startswith("table") else f"array of {inner.replace('table', 'tables', 1)}"
        if t == "integer":
            fmt = node.get("format", "")
            top = {"uint8": 255, "uint16": 65535, "uint32": 2**32 - 1}.get(fmt)
            if fmt.startswith("uint"):
                return f"integer 0 to {top}" if top else "integer ≥ 0"
            return "integer"
        if t == "number":
            return "number"
        if t == "boolean":
            return "true or false"
        if t == "string":
            if "enum" in node:
                return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
            return "string"
        if t == "object":
            return "table"
        return "any"

    def fields(self, obj: dict[str, Any]) -> list[str]:
        required = set(obj.get("required", []))
        rows = ["| field | type | required / default | meaning |", "|---|---|---|---|"]
        for key, node in obj.get("properties", {}).items():
            if "enum" in node and len(node["enum"]) == 1 and key == "kind":
                continue  # the tag of a tagged variant, shown in its heading
            default = node.get("default")
            need = "required" if key in required else ("—" if default is None else f"`{json.dumps(default)}`")
            desc = " ".join((node.get("description") or "").split()).replace("|", "\\|")
            rows.append(f"| `{key}` | {self.type_of(node).replace('|', chr(92) + '|')} | {need} | {desc} |")
        return rows

    def section(self, name: str) -> list[str]:
        d = self.defs[name]
        out = [f"## {name}", ""]
        if d.get("description"):
            out += [" ".join(d["description"].split()), ""]
        if "oneOf" in d or "anyOf" in d:
            for alt in d.get("oneOf") or d.get("anyOf"):
                kind = alt.get("properties", {}).get("kind", {}).get("enum", [None])[0]
                if kind is not None:
                    out += [f"### `kind = \"{kind}\"`", ""]
                    if alt.get("description"):
                        out += [" ".join(alt["description"].split()), ""]
                    out += [*self.fields(alt), ""]
                else:
                    out += [f"- {self.type_of(alt)}", ""]
        else:
            out += [*self.fields(d), ""]
        return out

    def render(self, schema: dict[str, Any]) -> str:
        out = [HEADER, "## Top level", ""]
        if schema.get("description"):
            out += [" ".join(schema["description"].split()), ""]
        out += [*self.fields(schema), ""]
        done: set[str] = set()
        while len(done) < len(self.order):
            name = next(n for n in self.order if n not in done)
            done.add(name)
            out += self.section(name)
        return "\n".join(out).rstrip() + "\n"


def render() -> str:
    """The reference for this build's schema."""
    schema = json.loads(_core.schema())
    return Renderer(schema).render(schema)


if __name__ == "__main__":
    print(render(), end="")
