"""Shared figure style: one colour per model across the whole book (and, through
:func:`setup`, the table format)."""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt

from anisotropy.inputs.resolved import short_name
from anisotropy.report import tables

__all__ = ["MODEL_COLORS", "color", "short_name", "setup"]

MODEL_COLORS = {
    "sentence-transformers/all-MiniLM-L6-v2": "#1b9e77",
    "sentence-transformers/all-mpnet-base-v2": "#7570b3",
    "HuggingFaceTB/SmolLM2-135M-Instruct": "#d95f02",
    "google/gemma-3-270m": "#e7298a",
    "glove-6B-50d": "#666666",
    "BERT-base-cased (paper)": "#1f78b4",
    "GPT-2 small (paper)": "#e31a1c",
}
_EXTRA = ["#66a61e", "#e6ab02", "#a6761d", "#1f78b4"]


def color(name: str) -> str:
    """The model's colour; unknown models get a stable colour from a spare palette.

    Parameters
    ----------
    name : str
        A model name, as :data:`MODEL_COLORS` keys it (a hub id, a registry name, or a paper's
        model such as ``"GPT-2 small (paper)"``).

    Returns
    -------
    str
        A hex colour (``"#1b9e77"``): the model's own in :data:`MODEL_COLORS`, else one of the
        spare palette chosen from the sum of the name's character codes, so the same name
        always gets the same colour.
    """
    if name in MODEL_COLORS:
        return MODEL_COLORS[name]
    return _EXTRA[sum(map(ord, name)) % len(_EXTRA)]


def setup() -> None:
    """Apply the book's matplotlib style and table format (call once per notebook):
    every DataFrame the notebook displays is formatted by
    :func:`anisotropy.report.tables.frame_html`."""

    tables.install()
    mpl.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 100, "figure.figsize": (7, 4),
        "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
        "grid.alpha": 0.3, "font.size": 10, "axes.titlesize": 11, "legend.fontsize": 8,
    })
    plt.rcParams["svg.fonttype"] = "none"
