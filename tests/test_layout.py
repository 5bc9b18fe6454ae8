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


def _project_imports(path) -> tuple[set[str], list[str]]:
    """The ``anisotropy`` modules a file imports at its top level, and the lines where it
    imports one inside a function."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    top, inner = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                "anisotropy"):
            names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            if node in tree.body:
                top |= names
            else:
                inner.append(f"{path.name}:{node.lineno}")
        elif isinstance(node, ast.Import):
            names = {a.name for a in node.names if a.name.startswith("anisotropy")}
            if names and node in tree.body:
                top |= names
            elif names:
                inner.append(f"{path.name}:{node.lineno}")
    return top, inner


def test_book_is_a_one_way_stack_with_its_imports_at_the_top():
    """anisotropy.book's modules import each other at the top of the file only, and never in
    a circle (results and formatting at the bottom, pages and ledger above them); the claims
    never import the book."""
    folder = PROJECT_ROOT / "lib" / "anisotropy" / "book"
    modules = {p.stem: p for p in folder.glob("*.py") if p.stem != "__init__"}
    graph, inner = {}, []
    for name, path in modules.items():
        top, late = _project_imports(path)
        inner += late
        graph[name] = {m.split(".")[2] for m in top
                       if m.startswith("anisotropy.book.") and m.split(".")[2] in modules} - {name}
    assert not inner, f"imports of project modules inside functions: {inner}"
    done, path = set(), []

    def visit(node):
        assert node not in path, f"an import circle: {' -> '.join([*path, node])}"
        if node in done:
            return
        path.append(node)
        for child in sorted(graph[node]):
            visit(child)
        path.pop()
        done.add(node)

    for name in sorted(graph):
        visit(name)
    for path in (PROJECT_ROOT / "lib" / "anisotropy" / "claims").glob("*.py"):
        top, late = _project_imports(path)
        assert not any(m.startswith("anisotropy.book") for m in top), path.name
