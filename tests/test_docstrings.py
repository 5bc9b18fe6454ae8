"""Every public function and class of the library is documented in numpydoc.

- A function or method, ``__call__`` included: a Parameters section that names each of its
  arguments, and a Returns (or Yields) section when it returns a value.
- A class with its own ``__init__``: its arguments in the Parameters section of the class
  docstring (not of ``__init__``'s).
- A dataclass or a NamedTuple: each of its fields, with its type and meaning, in the
  Attributes section of the class docstring; that is the one convention for a record's
  fields (not Parameters, though they are its constructor's), ``init=False`` fields
  included. A ``ClassVar`` is not a field; an ``InitVar`` is a constructor parameter, not
  a field, and goes in Parameters. A field declared with ``param(default, "meaning", ...)``
  (a claim's ``Settings``) carries its meaning in its declaration, the one place it is
  written (each page's settings table shows it), and is not listed again.
- A property: a docstring, whose summary says what it returns (on its getter; a setter is
  documented there).

Public: a name without a leading underscore (``__call__`` and ``__init__`` are read in a
public class), at the top of a module or in a public class. A class's own body is read:
inherited fields are documented by the class that declares them.
"""

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
    without a leading underscore (or ``__call__``), at the top of the module or in a public
    class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("_"):
                yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and (not item.name.startswith("_") or item.name == "__call__")):
                    yield f"{node.name}.{item.name}", item


def public_classes(path: Path) -> list[ast.ClassDef]:
    """The public classes at the top of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in tree.body
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_")]


def decorators(node) -> set[str]:
    """The last names of a definition's decorators (``dataclass`` for
    ``@dataclasses.dataclass(frozen=True)``, ``setter`` for ``@name.setter``)."""
    names = set()
    for decorator in node.decorator_list:
        decorator = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(decorator.attr if isinstance(decorator, ast.Attribute)
                  else getattr(decorator, "id", ""))
    return names


def is_property(node) -> bool:
    return bool({"property", "cached_property"} & decorators(node))


def is_record(cls: ast.ClassDef) -> bool:
    """A dataclass or a NamedTuple: a class whose annotated fields are its constructor's."""
    return "dataclass" in decorators(cls) or any(
        ast.unparse(base).split(".")[-1] == "NamedTuple" for base in cls.bases)


def _call_name(node) -> str:
    if not isinstance(node, ast.Call):
        return ""
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
        node.func, "id", "")


def declares_meaning(value) -> bool:
    """Whether a field's value is ``param(default, "meaning", ...)`` with a meaning."""
    if _call_name(value) != "param":
        return False
    meaning = value.args[1] if len(value.args) > 1 else next(
        (k.value for k in value.keywords if k.arg == "meaning"), None)
    return isinstance(meaning, ast.JoinedStr) or (
        isinstance(meaning, ast.Constant) and isinstance(meaning.value, str)
        and bool(meaning.value.strip()))


def fields(cls: ast.ClassDef) -> tuple[list[str], list[str]]:
    """A record class's own annotated names to document, ``(attributes, parameters)``: its
    fields, and its ``InitVar`` pseudo-fields (constructor parameters only). ``ClassVar``
    annotations and fields declared with a meaning (:func:`declares_meaning`) are left
    out."""
    attributes, parameters = [], []
    for item in cls.body:
        if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
            continue
        annotation = re.sub(r"^(typing|dataclasses)\.", "", ast.unparse(item.annotation))
        if re.match(r"(ClassVar|KW_ONLY)\b", annotation) or declares_meaning(item.value):
            continue
        (parameters if annotation.startswith("InitVar") else attributes).append(
            item.target.id)
    return attributes, parameters


def unlisted(names: list[str], section: str) -> list[str]:
    """The names a numpydoc section (Parameters, Attributes) does not list."""
    return [n for n in names
            if not re.search(rf"^\s*(?:[\w*]+, )*{re.escape(n)}\b", section, re.M)]


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
    if is_property(node):
        return False
    if node.returns is not None:
        return ast.unparse(node.returns) not in ("None", "NoReturn")
    return any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom))
               and getattr(n, "value", None) is not None for n in ast.walk(node)
               if not isinstance(n, ast.Lambda))


def problems(path: Path, root: Path = LIB) -> list[str]:
    """What the numpydoc of ``path``'s public functions, properties and classes misses
    (named relative to ``root``)."""
    out = []
    for name, node in public_functions(path):
        if {"setter", "deleter"} & decorators(node):
            continue  # documented by its property's getter
        doc = ast.get_docstring(node) or ""
        found = sections(doc)
        where = f"{path.relative_to(root)}:{name}"
        names = arguments(node)
        if names:
            missing = unlisted(names, found.get("Parameters", ""))
            if missing:
                out.append(f"{where}: Parameters misses {missing}")
        if returns_value(node) and not ({"Returns", "Yields"} & set(found)):
            out.append(f"{where}: no Returns section")
        if is_property(node) and not doc.strip():
            out.append(f"{where}: property without a docstring")
    for cls in public_classes(path):
        out += class_problems(cls, f"{path.relative_to(root)}:{cls.name}")
    return out


def class_problems(cls: ast.ClassDef, where: str) -> list[str]:
    """What a public class's docstring misses: the arguments of its ``__init__`` (and a
    record's ``InitVar`` fields) in Parameters, a record's fields in Attributes."""
    found = sections(ast.get_docstring(cls) or "")
    out = []
    init = next((item for item in cls.body if isinstance(item, ast.FunctionDef)
                 and item.name == "__init__"), None)
    if init is not None:
        missing = unlisted(arguments(init), found.get("Parameters", ""))
        if missing:
            out.append(f"{where}: Parameters misses {missing} (arguments of __init__)")
    if is_record(cls):
        attributes, parameters = fields(cls)
        for title, names in (("Attributes", attributes), ("Parameters", parameters)):
            missing = unlisted(names, found.get(title, ""))
            if missing:
                kind = "fields" if title == "Attributes" else "InitVars"
                out.append(f"{where}: {title} misses {missing} ({kind})")
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


def test_the_check_reads_classes(tmp_path):
    """The class rules each fail on a class that breaks them, and pass a documented one: the
    arguments of ``__init__`` and of ``__call__``, properties, and a dataclass's fields."""
    code = '''
from dataclasses import InitVar, dataclass, field
from typing import ClassVar, NamedTuple


class Good:
    """A documented class.

    Parameters
    ----------
    a : int
        A term.
    """

    def __init__(self, a):
        self.a = a

    def __call__(self, b) -> int:
        """Add.

        Parameters
        ----------
        b : int
            Another term.

        Returns
        -------
        int
        """
        return self.a + b

    @property
    def double(self) -> int:
        """Twice ``a``."""
        return 2 * self.a

    @double.setter
    def double(self, value) -> None:
        self.a = value / 2


@dataclass(frozen=True)
class GoodRecord:
    """A documented record.

    Parameters
    ----------
    scale : float
        Applied on construction.

    Attributes
    ----------
    low, high : float
        The bounds.
    cache : dict
        Filled later.
    """

    kind: ClassVar[str] = "record"
    low: float
    high: float
    scale: InitVar[float]
    seed: int = param(0, "the seed")
    cache: dict = field(init=False, default_factory=dict)


class BadInit:
    """No Parameters."""

    def __init__(self, a, *, b=None):
        self.a = a


class BadCall:
    """Callable."""

    def __call__(self, name):
        """No Parameters, no Returns."""
        return name


class BadProperty:
    """A property without a docstring."""

    @property
    def name(self) -> str:
        return "x"


@dataclass
class BadRecord:
    """Fields listed as Parameters, not as Attributes; an InitVar and an init=False field
    unlisted.

    Parameters
    ----------
    low : float
        Listed in the wrong section.
    """

    low: float
    scale: InitVar[float]
    high: float = 1.0
    count: int = param(0, "")
    cache: dict = field(init=False, default_factory=dict)


class BadTuple(NamedTuple):
    """A NamedTuple without Attributes."""

    value: float


class _Private:
    def __init__(self, a):
        self.a = a
'''
    path = tmp_path / "module.py"
    path.write_text(code, encoding="utf-8")
    assert problems(path, tmp_path) == [
        "module.py:BadCall.__call__: Parameters misses ['name']",
        "module.py:BadCall.__call__: no Returns section",
        "module.py:BadProperty.name: property without a docstring",
        "module.py:BadInit: Parameters misses ['a', 'b'] (arguments of __init__)",
        "module.py:BadRecord: Attributes misses ['low', 'high', 'count', 'cache'] (fields)",
        "module.py:BadRecord: Parameters misses ['scale'] (InitVars)",
        "module.py:BadTuple: Attributes misses ['value'] (fields)",
    ]
