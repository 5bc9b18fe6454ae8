#!/usr/bin/env bash
# Stop before making .venv unless $1 is CPython 3.11, the Python requirements.lock is made for
# (its wheels, hashes and torch build are 3.11's); say how to get one.
set -euo pipefail
PYTHON=${1:-}
if [ -z "$PYTHON" ] || ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "make: no python3.11 or python3 on the PATH. Install CPython 3.11 (e.g." \
       "'sudo apt-get install python3.11 python3.11-venv', or 'pyenv install 3.11')," \
       "then rerun, or name it: make PYTHON=/path/to/python3.11 test" >&2
  exit 1
fi
version=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ "$version" != "3.11" ]; then
  echo "make: $PYTHON is Python $version; requirements.lock is made for CPython 3.11" \
       "(its wheels and sha256 are 3.11's). Install 3.11 (e.g. 'sudo apt-get install" \
       "python3.11 python3.11-venv', or 'pyenv install 3.11') and run" \
       "make PYTHON=python3.11 test, or remove .venv first if it was made with another." >&2
  exit 1
fi
