"""The HTML page: viewer.html with the viewer's own CSS and JavaScript (viewer.css, viewer.js beside
this file) and the run's data filled in, one file that needs no network."""

from __future__ import annotations

import html
from importlib import resources
from string import Template

from tcplab.viewer.data import ViewData


def _asset(name: str) -> str:
    return resources.files("tcplab.viewer").joinpath(name).read_text(encoding="utf-8")


def render(data: ViewData) -> str:
    header, blob = data.encoded()
    # Only the template's own $names are replaced; the values are inserted as they are.
    return Template(_asset("viewer.html")).substitute(
        title=html.escape(f"tcplab view — {data.header.get('scenario')} (seed {data.header.get('seed')})"),
        css=_asset("viewer.css"),
        # "</" cannot end a script element inside JSON text (names are user text).
        header=header.replace("</", "<\\/"),
        blob=blob,
        js=_asset("viewer.js"),
    )
