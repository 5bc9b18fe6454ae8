"""Write ``notebooks/colab_cell.py`` into the first cell of every claim notebook and of
the example claim's notebook.

The Colab cell (clone the repository, run ``scripts/colab_install.sh``, enter the notebooks)
must sit in each notebook, since nothing can be imported before it has run; its one source
is ``notebooks/colab_cell.py``. Edit that file, then run this script;
``tests/test_launch.py`` fails while a notebook's cell differs from it.

Usage::

    .venv/bin/python scripts/sync_colab_cell.py          # rewrite the cells that differ
    .venv/bin/python scripts/sync_colab_cell.py --check  # exit 1 if one differs
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL = ROOT / "notebooks" / "colab_cell.py"
TAGS = ["remove-cell", "colab"]


def cell_source() -> str:
    """The cell's source as a notebook stores it: the file without its final newline."""
    return CELL.read_text(encoding="utf-8").removesuffix("\n")


def notebooks() -> list[Path]:
    """The claim notebooks (``notebooks/NN-*.ipynb``) and the example claim's
    (``tests/example_claim/NN-*.ipynb``), which CONTRIBUTING's recipe copies."""
    return sorted([*(ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"),
                   *(ROOT / "tests" / "example_claim").glob("[0-9][0-9]-*.ipynb")])


def sync(path: Path, source: str, write: bool) -> bool:
    """Whether ``path``'s first cell differed from ``source`` (rewritten when ``write``).

    Raises
    ------
    ValueError
        When the first cell is not a code cell tagged ``remove-cell`` and ``colab``.
    """
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    first = notebook["cells"][0]
    if first["cell_type"] != "code" or not set(TAGS) <= set(first["metadata"].get("tags", [])):
        raise ValueError(f"{path}: the first cell is not the Colab cell (a code cell tagged "
                         f"{TAGS}); add one before syncing")
    if "".join(first["source"]) == source:
        return False
    if write:
        first["source"] = source.splitlines(keepends=True)
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a "
                        "notebook's cell differs")
    args = parser.parse_args(argv)
    source = cell_source()
    changed = [path.name for path in notebooks() if sync(path, source, not args.check)]
    verb = "differ" if args.check else "rewritten"
    print(f"{len(changed)} Colab cells {verb}: {', '.join(changed) or 'none'}")
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
