"""Static assets served once by the book instead of inlined in each page.

An interactive plotly figure carries plotly.js (4.6 MB) inline, so that the executed
notebook shows it in any Jupyter. :func:`externalize_plotly` replaces that inline copy in a
staged page by a reference to ``_static/plotly.min.js``, which :func:`install_plotly`
copies from the installed plotly package once per book: the notebook keeps its
self-contained output, the page stays small.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

__all__ = ["PLOTLY_ASSET", "externalize_plotly", "install_plotly"]

PLOTLY_ASSET = "plotly.min.js"
_INLINE_PLOTLY = re.compile(r"<script[^>]*>\s*/\*\*\s*\*\s*plotly\.js v[\d.]+.*?</script>",
                            re.DOTALL)


def externalize_plotly(notebook, static_url: str = "../_static") -> int:
    """Replace every inline plotly.js in the HTML outputs of ``notebook`` (an nbformat
    notebook, changed in place) by ``<script src="STATIC_URL/plotly.min.js">``. Returns how
    many copies were replaced.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The notebook whose cells' ``text/html`` outputs are rewritten in place.
    static_url : str, optional
        The URL of the book's ``_static`` folder as seen from the page; default
        ``"../_static"`` (a page in ``notebooks/``).

    Returns
    -------
    int
        How many inline copies were replaced (0 when the notebook has no plotly figure).
    """
    tag = f'<script charset="utf-8" src="{static_url}/{PLOTLY_ASSET}"></script>'
    replaced = 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text = data.get("text/html")
            if text is None:
                continue
            text = "".join(text) if isinstance(text, list) else text
            new, count = _INLINE_PLOTLY.subn(lambda _: tag, text)
            if count:
                data["text/html"] = new
                replaced += count
    return replaced


def install_plotly(static: Path) -> Path:
    """Copy the installed plotly package's ``plotly.min.js`` into ``static``.

    Parameters
    ----------
    static : Path
        The book's ``_static`` folder; created if needed.

    Returns
    -------
    Path
        The copy, ``static / "plotly.min.js"``.

    Raises
    ------
    FileNotFoundError
        When the installed plotly package has no ``package_data/plotly.min.js``.
    """
    import plotly

    source = Path(plotly.__file__).parent / "package_data" / PLOTLY_ASSET
    if not source.is_file():
        raise FileNotFoundError(f"{source} is missing: reinstall plotly (make setup).")
    static.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(source, static / PLOTLY_ASSET))
