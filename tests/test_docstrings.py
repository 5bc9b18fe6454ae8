"""Every public function of the library is documented in numpydoc: a Parameters section that
names each of its arguments, and a Returns (or Yields) section when it returns a value."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from anisotropy.inputs.data import PROJECT_ROOT

LIB = PROJECT_ROOT / "lib" / "anisotropy"
SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}$", re.M)


def public_functions(path: Path):
    """``(qualified name, node)`` of every public function and method of a module: a name
    without a leading underscore, at the top of the module or in a public class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("_"):
                yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and not item.name.startswith("_")):
                    yield f"{node.name}.{item.name}", item


def sections(doc: str) -> dict[str, str]:
    """A numpydoc docstring's sections, ``{title: body}``."""
    found = list(SECTION.finditer(doc))
    return {m.group(1): doc[m.end():found[i + 1].start() if i + 1 < len(found) else None]
            for i, m in enumerate(found)}


def arguments(node) -> list[str]:
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [f"*{args.vararg.arg}"] if args.vararg else []
    names += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return [n for n in names if n not in ("self", "cls")]


def returns_value(node) -> bool:
    if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
        return False
    if node.returns is not None:
        return ast.unparse(node.returns) not in ("None", "NoReturn")
    return any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom))
               and getattr(n, "value", None) is not None for n in ast.walk(node)
               if not isinstance(n, ast.Lambda))


def problems(path: Path, root: Path = LIB) -> list[str]:
    """What the numpydoc of ``path``'s public functions misses (named relative to ``root``)."""
    out = []
    for name, node in public_functions(path):
        doc = ast.get_docstring(node) or ""
        found = sections(doc)
        where = f"{path.relative_to(root)}:{name}"
        names = arguments(node)
        if names:
            listed = found.get("Parameters", "")
            missing = [n for n in names if not re.search(
                rf"^\s*(?:[\w*]+, )*{re.escape(n)}\b", listed, re.M)]
            if missing:
                out.append(f"{where}: Parameters misses {missing}")
        if returns_value(node) and not ({"Returns", "Yields"} & set(found)):
            out.append(f"{where}: no Returns section")
    return out


MODULES = sorted(LIB.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(LIB)) for p in MODULES])
def test_public_functions_have_numpydoc(path):
    missing = problems(path)
    assert not missing, "\n".join(missing)


def test_the_check_reads_numpydoc():
    """The check accepts a documented function and names what an undocumented one misses."""
    code = '''
def good(a, b=1, *rest, key=None):
    """Sum.

    Parameters
    ----------
    a, b : int
        Terms.
    *rest : int
        More terms.
    key : str, optional
        Unused.

    Returns
    -------
    int
    """
    return a + b


def bad(a, b) -> int:
    """Sum.

    Parameters
    ----------
    a : int
    """
    return a + b
'''
    tree = ast.parse(code)
    good, bad = tree.body
    assert arguments(good) == ["a", "b", "key", "*rest"]
    assert not [n for n in arguments(good) if not re.search(
        rf"^\s*(?:[\w*]+, )*{re.escape(n)}\b", sections(ast.get_docstring(good))["Parameters"],
        re.M)]
    doc = sections(ast.get_docstring(good))
    assert set(doc) == {"Parameters", "Returns"}
    assert returns_value(bad)
    listed = sections(ast.get_docstring(bad))["Parameters"]
    assert re.search(r"^\s*(?:[\w*]+, )*a\b", listed, re.M)
    assert not re.search(r"^\s*(?:[\w*]+, )*b\b", listed, re.M)
