"""``python -m tcplab`` is the ``tcplab`` command (useful where the console script is not on PATH)."""

import sys

from tcplab.cli import main

sys.exit(main())
