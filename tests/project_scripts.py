"""Load a script of ``scripts/`` as a module, from its file.

The tests import the scripts' functions this way rather than by putting ``scripts/`` on
``sys.path``, where its files would shadow packages of the same name (``scripts/coverage.py``
is not the ``coverage`` package that numba imports).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module (named ``NAME_script``), executed afresh."""
    spec = importlib.util.spec_from_file_location(f"{name}_script", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
