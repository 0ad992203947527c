"""Small filesystem helpers that make outputs appear whole or not at all.

Every file tcplab writes for a user (run outputs, reports, exports) is first written under a
temporary name in the destination folder and then renamed, so a crash or Ctrl-C never leaves a
truncated file or a half-filled folder that looks complete.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

#: Where sweeps and `tcplab results` keep their runs unless told otherwise (defined here, not in
#: ``store``, so that the CLI can name it without importing polars).
DEFAULT_STORE = Path("results") / "tcplab.db"


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def staging_dir(target: Path) -> Path:
    """A new empty folder beside ``target``, to be filled and then moved there by :func:`replace_dir`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))


def replace_dir(new: Path, target: Path) -> None:
    """Put folder ``new`` at ``target``, replacing an existing ``target`` (renames, no copying)."""
    if target.exists():
        old = target.with_name(f".{target.name}.old.{os.getpid()}")
        os.rename(target, old)
        os.rename(new, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(new, target)
