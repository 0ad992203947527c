"""Where things are in the real run: one namespace per node, one TUN pair per link, static routes.

Node ``i`` (in the scenario's order) has address 10.0.0.(i+1), as in the simulator
(crates/tcplab-core/src/net, ``node_addr``), so the real pcaps read like the simulated ones.  Link
``k`` is the device ``l<k>`` in both of its ends' namespaces.  Routes follow the fewest hops,
ties broken by the scenario's link order (the simulator's static routes; on the chains the
validation is meant for there is only one path).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Link:
    index: int
    name: str
    a: str
    b: str

    @property
    def ifname(self) -> str:
        return f"l{self.index}"


@dataclass(frozen=True)
class Route:
    node: str
    dest: str
    ifname: str


@dataclass(frozen=True)
class Topology:
    nodes: list[str]
    links: list[Link]

    @classmethod
    def of(cls, scenario: dict[str, Any]) -> Topology:
        nodes = [n["name"] for n in scenario["nodes"]]
        links = [
            Link(k, l.get("name") or f"{l['a']}-{l['b']}", l["a"], l["b"]) for k, l in enumerate(scenario["links"])
        ]
        return cls(nodes, links)

    def address(self, node: str) -> str:
        return f"10.0.0.{self.nodes.index(node) + 1}"

    def routes(self) -> list[Route]:
        """A host route from every node to every other node it can reach, via the first hop."""
        out = []
        for src in self.nodes:
            first_hop = self._first_hops(src)
            out += [Route(src, dest, link.ifname) for dest, link in first_hop.items() if dest != src]
        return out

    def _first_hops(self, src: str) -> dict[str, Link]:
        """Breadth-first search from ``src``: for each node reached, the link its path starts on."""
        seen: dict[str, Link] = {}
        queue: deque[tuple[str, Link | None]] = deque([(src, None)])
        visited = {src}
        while queue:
            node, first = queue.popleft()
            for link in self.links:
                if node not in (link.a, link.b):
                    continue
                peer = link.b if node == link.a else link.a
                if peer in visited:
                    continue
                visited.add(peer)
                seen[peer] = first or link
                queue.append((peer, first or link))
        return seen
