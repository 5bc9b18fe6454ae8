#!/usr/bin/env bash
# Install the one torch this project uses, torch 2.13.0's CPU build, into the Python named by
# $PYTHON (default: python): a local copy of the wheel when pip finds one without an index
# (its configured find-links), else PyTorch's CPU index ($TORCH_INDEX). Never PyPI's torch,
# which is the CUDA build (several GB). Its dependencies come from requirements.lock.
# Used by the Makefile, postBuild (Binder, conda) and so by every install path.
set -euo pipefail
PYTHON=${PYTHON:-python}
TORCH=torch==2.13.0
TORCH_INDEX=${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
if "$PYTHON" -m pip install --quiet --no-deps --no-index "$TORCH" 2>/dev/null; then
  echo "install_torch: $TORCH from a local wheel"
else
  "$PYTHON" -m pip install --quiet --no-deps --index-url "$TORCH_INDEX" "$TORCH"
  echo "install_torch: $TORCH from $TORCH_INDEX"
fi
