"""The package layout CONTRIBUTING.md describes: five floors of sub-packages, each importing
only its own floor and those below it, a package per claim, geometry free of torch."""

from __future__ import annotations

import ast
import json
import pkgutil
import re
import subprocess
import sys
from collections import defaultdict

import yaml

import anisotropy
from anisotropy.book import catalog
from anisotropy.inputs.data import PROJECT_ROOT
from anisotropy.report.checks import CHECKS_FILE, SCOPE_KEY

SUBPACKAGES = {"inputs", "geometry", "report", "claims", "book"}
#: The floors, from the bottom up: a module imports only modules of its own floor and below.
FLOORS = {"geometry": 0, "inputs": 1, "report": 2, "claims": 3, "book": 4}
LIB = PROJECT_ROOT / "lib" / "anisotropy"
#: Strings of the library equal to a check id that are not that check, and why
#: (``test_each_check_id_is_written_once_in_the_library``).
NOT_CHECK_IDS = {
    ("claims/later_work/measure.py", "all-but-the-top"):
        "ABTT_COLUMN, the column of the Spearman after all-but-the-top, named after the "
        "method as the finding is; renaming the finding must not rename a column",
}


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
    """Every module of every sub-package is named in the layout section of CONTRIBUTING.md,
    but the claim packages: the layout describes a claim's package once ("one package per
    claim"), and the catalog finds them, so that a new claim adds no line here."""
    readme = (PROJECT_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    assert "one package per claim" in layout
    claim_packages = {catalog.claim_module(slug).__name__.split(".")[-2]
                      for slug in catalog.claims()}
    for package in SUBPACKAGES:
        module = __import__(f"anisotropy.{package}", fromlist=["_"])
        for info in pkgutil.iter_modules(module.__path__):
            if package == "claims" and info.ispkg and info.name in claim_packages:
                continue
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


def _module_name(path) -> str:
    parts = path.relative_to(LIB.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _lib_graph() -> dict[str, set[str]]:
    """Every ``anisotropy`` module and the project modules it imports, at the top of the file
    or inside a function (a name imported from a module counts as that module)."""
    import ast

    modules = {_module_name(p): p for p in LIB.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                raise AssertionError(f"{path}:{node.lineno}: a relative import; the layout "
                                     "tests read absolute ones (from anisotropy... import)")
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:  # a name imported from a module counts as the module
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def _floor(module: str) -> int:
    parts = module.split(".")
    return FLOORS[parts[1]] if len(parts) > 1 and parts[1] in FLOORS else len(FLOORS)


def _assert_no_circle(graph: dict[str, set[str]]) -> None:
    """Fail, naming the circle, when a chain of imports comes back to where it started."""
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


def test_lib_imports_run_down_the_floors_and_never_in_a_circle():
    """Every import between the library's modules (inside functions too) goes to the
    importer's own floor or below (geometry, inputs, report, claims, book), and no chain of
    imports comes back to where it started."""
    graph = _lib_graph()
    up = [f"{a} -> {b}" for a, targets in graph.items() for b in targets
          if _floor(b) > _floor(a) and a != "anisotropy"]
    assert not up, f"imports running up a floor: {up}"
    _assert_no_circle(graph)


#: Names that import a module given as a string, called or passed on: an arrow between
#: floors that the import statements read above never show.
BY_NAME = {"import_module", "__import__"}
#: What of importlib a module below the book may import: package metadata and resources,
#: which import no module.
IMPORTLIB_READERS = {"importlib.metadata", "importlib.resources"}


def _imports_by_name(tree: ast.Module) -> list[int]:
    """Lines of a module that import a module by name or import importlib to: any use of a
    name of :data:`BY_NAME` (``importlib.import_module(...)``, ``__import__(...)``,
    ``builtins.__import__``), and an import of ``importlib`` or of any part of it but
    :data:`IMPORTLIB_READERS` (``import importlib``, ``import importlib.util``, ``from
    importlib import import_module``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in BY_NAME or \
                isinstance(node, ast.Attribute) and node.attr in BY_NAME:
            lines.append(node.lineno)
        elif isinstance(node, ast.Import):
            if any(a.name.partition(".")[0] == "importlib" and a.name not in IMPORTLIB_READERS
                   for a in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.partition(".")[0] == "importlib":
            names = ({f"importlib.{a.name}" for a in node.names} if node.module == "importlib"
                     else {node.module})
            if names - IMPORTLIB_READERS:
                lines.append(node.lineno)
    return sorted(set(lines))


def test_only_the_book_imports_a_module_by_name():
    """No module outside ``book/`` imports a module by name (``importlib.import_module``,
    ``__import__``) or imports ``importlib`` to (its ``metadata`` and ``resources`` read
    packages and import nothing): such an import is an arrow that
    :func:`test_lib_imports_run_down_the_floors_and_never_in_a_circle` cannot see, as when
    the catalog sat in ``report/`` and imported the claims, a floor up. The catalog
    (``book/catalog.py``), on the top floor, is where the claims are imported by the names
    it finds; ``__main__.py`` gets no pass either: it takes the claims from the catalog."""
    assert _imports_by_name(ast.parse(
        "import importlib\nfrom importlib import metadata, util\nimportlib.import_module('m')\n"
        "__import__('m')\nimport importlib.metadata as md")) == [1, 2, 3, 4]
    found = [f"{path.relative_to(LIB)}:{line}" for path in sorted(LIB.rglob("*.py"))
             if LIB / "book" not in path.parents
             for line in _imports_by_name(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, f"imports by name outside book/ (see book/catalog.py): {found}"


def test_a_claim_is_one_package_that_imports_no_other_claim():
    """Each claim the catalog finds is ``anisotropy.claims.<package>.claim``, its
    package holds a ``page`` module, and no module of a claim's package imports another
    claim's (what several claims share is in ``anisotropy.inputs``,
    ``anisotropy.claims.sts``, the declaration and the loops of ``anisotropy.claims.base``)."""
    from anisotropy.book import catalog

    packages = set()
    for slug, entry in catalog.claims().items():
        parts = entry["module"].split(".")
        assert parts[:2] == ["anisotropy", "claims"] and parts[3:] == ["claim"], (slug, entry)
        assert (LIB / "claims" / parts[2] / "page.py").is_file(), f"{slug}: no page module"
        packages.add(parts[2])
    found = {p.name for p in (LIB / "claims").iterdir() if (p / "__init__.py").is_file()}
    assert found == packages, f"claim packages without a declaration: {found - packages}"
    for module, targets in _lib_graph().items():
        parts = module.split(".")
        if len(parts) < 4 or parts[1] != "claims":
            continue
        others = {t for t in targets if t.startswith("anisotropy.claims.")
                  and t.split(".")[2] not in (parts[2], "sts", "declaration", "base")}
        assert not others, f"{module} imports another claim: {others}"


def test_project_imports_sit_at_the_top_of_the_file():
    """No library module imports a project module inside a function (heavy third-party
    imports, torch, transformers and papermill, may stay there), and the modules of report/
    and of book/ never import each other in a circle."""
    inner = [line for path in sorted(LIB.rglob("*.py")) for line in _project_imports(path)[1]]
    assert not inner, f"imports of project modules inside functions: {inner}"
    for folder in (LIB / "report", LIB / "book"):
        _one_way_stack(folder)


def _one_way_stack(folder) -> None:
    package = folder.name
    modules = {p.stem: p for p in folder.glob("*.py") if p.stem != "__init__"}
    graph, inner = {}, []
    for name, path in modules.items():
        top, late = _project_imports(path)
        inner += late
        graph[name] = {m.split(".")[2] for m in top
                       if m.startswith(f"anisotropy.{package}.")
                       and m.split(".")[2] in modules} - {name}
    assert not inner, f"imports of project modules inside functions: {inner}"
    _assert_no_circle(graph)


def test_no_function_in_the_claims_is_over_80_lines():
    """A claim's measurements are small functions: a check-once step, a per-layer (or
    per-task) reducer and a named result, none over 80 lines in all, from its ``def`` line
    to its last, its numpydoc docstring included (a function whose parameters fill the
    page is split, not its docstring cut)."""
    import ast

    long = []
    for path in sorted((LIB / "claims").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 80:
                    long.append(f"{path.relative_to(LIB)}:{node.name} ({lines} lines)")
    assert not long, f"functions over 80 lines, docstring included: {long}"


def _strings(path) -> list[tuple[int, str]]:
    """(line, value) of every string constant of a module but its docstrings (the first
    statement of the module, a class or a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_each_check_id_is_written_once_in_the_library():
    """Every check id of ``data/checks.yaml`` is a string of the library exactly once: its
    constant in its claim's ``ids.py``, which the claim's other modules import (docstrings
    and longer strings that mention an id do not count; :data:`NOT_CHECK_IDS` lists the
    strings that equal an id without being that check)."""
    package = {slug: entry["module"].split(".")[2] for slug, entry in catalog.claims().items()}
    declared = yaml.safe_load(CHECKS_FILE.read_text(encoding="utf-8"))
    home = {check: f"claims/{package[slug]}/ids.py" for slug, block in declared.items()
            for check in block if check != SCOPE_KEY}
    found, excused = defaultdict(list), set()
    for path in sorted(LIB.rglob("*.py")):
        name = path.relative_to(LIB).as_posix()
        for line, value in _strings(path):
            if (name, value) in NOT_CHECK_IDS:
                excused.add((name, value))
            elif value in home:
                found[value].append(f"{name}:{line}")
    wrong = [f"{check}: {found[check] or 'never'} (once, in {where})"
             for check, where in home.items()
             if len(found[check]) != 1 or not found[check][0].startswith(f"{where}:")]
    assert not wrong, "check ids not written once in their ids.py:\n" + "\n".join(wrong)
    assert excused == set(NOT_CHECK_IDS), f"stale NOT_CHECK_IDS: {set(NOT_CHECK_IDS) - excused}"


def test_notebooks_name_each_check_by_its_constant():
    """A claim's page names a check by its claim's constant (``ids.MEV_LOW``), never by the
    string: no code cell of a notebook holds a check id of ``data/checks.yaml`` as a string
    constant (shell and magic lines aside), so each id stays written once."""
    declared = yaml.safe_load(CHECKS_FILE.read_text(encoding="utf-8"))
    ids = {check for block in declared.values() for check in block if check != SCOPE_KEY}
    found = []
    for path in sorted((PROJECT_ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "\n".join(line for line in "".join(cell["source"]).splitlines()
                               if not line.lstrip().startswith(("!", "%")))
            found += [f"{path.name} ({cell.get('id')}): {node.value!r}"
                      for node in ast.walk(ast.parse(source))
                      if isinstance(node, ast.Constant) and node.value in ids]
    assert not found, "check ids written as strings in notebooks:\n" + "\n".join(found)
