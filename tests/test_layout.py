"""The package layout CONTRIBUTING.md describes: four sub-packages, geometry free of torch."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys

import anisotropy
from anisotropy.inputs.data import PROJECT_ROOT

SUBPACKAGES = {"inputs", "geometry", "claims", "book"}


def test_top_level_holds_only_the_subpackages_and_the_cli():
    found = {info.name for info in pkgutil.iter_modules(anisotropy.__path__)}
    assert found == SUBPACKAGES | {"__main__"}


def test_geometry_never_imports_torch():
    code = ("import sys\nimport anisotropy.geometry as g, pkgutil, importlib\n"
            "for m in pkgutil.iter_modules(g.__path__):\n"
            "    importlib.import_module('anisotropy.geometry.' + m.name)\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_readme_layout_lists_every_module():
    """Every module of every sub-package is named in the layout section of CONTRIBUTING.md."""
    readme = (PROJECT_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    for package in SUBPACKAGES:
        module = __import__(f"anisotropy.{package}", fromlist=["_"])
        for info in pkgutil.iter_modules(module.__path__):
            shown = f"{info.name}/" if info.ispkg else f"{info.name}.py"
            # the name itself, not inside another (verdicts.py in record_full_verdicts.py)
            assert re.search(rf"(?<![\w.-]){re.escape(shown)}", layout), \
                f"CONTRIBUTING.md layout misses {package}/{shown}"
