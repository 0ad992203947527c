#!/bin/bash
# Start-up times of two checkouts, alternated (issue 35): each round runs, for A then B,
# `tcplab --version`, `python -c 'import tcplab'` and `python -c pass` under /usr/bin/time, and
# prints one line per run: checkout, what, wall s, user s, sys s, peak RSS KB.  Medians are
# left to the reader (docs/validation/performance.md).  Usage: startup_times.sh DIR_A DIR_B [ROUNDS]
set -eu
a=$1 b=$2 rounds=${3:-12}
unset PYTHONDONTWRITEBYTECODE  # time the cached .pyc files, as an installed tcplab runs
for _ in $(seq 1 "$rounds"); do
  for d in "$a" "$b"; do
    (cd "$d" && /usr/bin/time -f "$d version %e %U %S %M" .venv/bin/tcplab --version >/dev/null)
    (cd "$d" && /usr/bin/time -f "$d import %e %U %S %M" .venv/bin/python -c 'import tcplab')
    (cd "$d" && /usr/bin/time -f "$d pass %e %U %S %M" .venv/bin/python -c pass)
  done
done
