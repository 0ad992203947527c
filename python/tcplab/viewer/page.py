"""The HTML page: the viewer's own JavaScript and CSS (viewer.js, viewer.css beside this file) and
the run's data, inlined into one file that needs no network."""

from __future__ import annotations

import html
from importlib import resources

from tcplab.viewer.data import ViewData


def _asset(name: str) -> str:
    return resources.files("tcplab.viewer").joinpath(name).read_text(encoding="utf-8")


def render(data: ViewData) -> str:
    header, blob = data.encoded()
    title = html.escape(f"tcplab view — {data.header.get('scenario')} (seed {data.header.get('seed')})")
    # "</" cannot end a script element inside JSON text (names are user text).
    header = header.replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{title}</title>\n<style>{_asset('viewer.css')}</style></head>\n<body>\n"
        f"{_asset('viewer.html')}\n"
        f"<script id=\"tcplab-header\" type=\"application/json\">{header}</script>\n"
        f"<script id=\"tcplab-blob\" type=\"application/octet-stream\">{blob}</script>\n"
        f"<script>{_asset('viewer.js')}</script>\n</body></html>\n"
    )
