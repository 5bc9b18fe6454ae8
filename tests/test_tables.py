"""The table format every page uses: numbers to 3 significant figures, no reprs."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from anisotropy.report import tables


def text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_numbers_reprs_and_missing_values_read_as_text():
    frame = pd.DataFrame({"median_norm_position0": [0.123456, np.nan],
                          "details": [{"rho norm": -0.3835454562852221}, [1, 2.5]],
                          "n": [1500, 5000]}, index=pd.Index(["MiniLM", "GPT-2 (paper)"],
                                                             name="model"))
    html = tables.frame_html(frame)
    shown = text(html)
    assert "median norm position0" in shown and "model" in shown
    assert "0.123" in shown and "0.123456" not in shown
    assert "–" in shown and "nan" not in shown.lower()
    assert "rho norm −0.384" in shown and "{" not in shown and "[" not in shown
    assert "1,500" in shown and "5,000" in shown
    assert 'overflow-x:auto' in html and "<details>" not in html


def test_long_tables_fold_and_a_range_index_is_not_shown():
    frame = pd.DataFrame({"layer": range(20), "value": np.linspace(0, 1, 20)})
    html = tables.frame_html(frame)
    assert html.startswith("<details><summary>A table of 20 rows")
    assert "<th></th>" not in html and html.count("<tr>") == 21


def test_series_and_multi_level_headers():
    series = pd.Series([0.5, 0.25], index=["a", "b"], name="gain_points")
    assert "gain points" in tables.frame_html(series)
    wide = pd.DataFrame([[1.0, 2.0]], columns=pd.MultiIndex.from_tuples(
        [("spearman", "Mean"), ("spearman", "K-means")]), index=["m"])
    assert "spearman / K-means" in tables.frame_html(wide)


def test_install_is_harmless_outside_ipython():
    tables.install()  # no kernel here: nothing to register, no error


def test_inline_plotly_is_served_once_from_static(tmp_path):
    import nbformat
    import plotly.graph_objects as go

    from anisotropy.book.assets import PLOTLY_ASSET, externalize_plotly, install_plotly

    html = go.Figure([go.Scatter(x=[1], y=[2])]).to_html(include_plotlyjs=True,
                                                          full_html=False)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[
        nbformat.v4.new_output("display_data", data={"text/html": html})])])
    assert externalize_plotly(notebook) == 1
    page = notebook.cells[0].outputs[0]["data"]["text/html"]
    assert len(page) < 20_000 < len(html) and f'src="../_static/{PLOTLY_ASSET}"' in page
    assert "Plotly.newPlot" in page  # the figure itself stays
    assert install_plotly(tmp_path).stat().st_size > 1_000_000
