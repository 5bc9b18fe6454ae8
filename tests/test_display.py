"""The display layer: numbers to 3 significant figures, verdict tables, forest plots."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anisotropy.report import display


@pytest.mark.parametrize("value, text", [
    (0.123456, "0.123"), (1.23456, "1.23"), (12.3456, "12.3"), (123.456, "123"),
    (1234.56, "1,235"), (-0.0451, "−0.0451"), (0.000123456, "0.000123"), (0.5, "0.500"),
    (12000.0, "12,000"), (1234, "1,234"), (0, "0"), (0.0, "0"), (None, "–"),
    (float("nan"), "–"), (True, "yes"), (np.float64(0.31346), "0.313"), (np.int64(7), "7"),
    (3.2e-7, "3.20e−07"), ({"rho norm": -0.38354, "k": 3}, "rho norm −0.384; k 3"),
    ([0.1, 0.25], "0.100, 0.250"), ("text", "text"),
])
def test_sig_reads_as_a_reader_expects(value, text):
    assert display.sig(value) == text


@given(st.floats(min_value=1e-4, max_value=1e6, allow_nan=False).filter(lambda x: x != 0))
def test_sig_keeps_three_significant_figures(value):
    shown = float(display.sig(value).replace(",", "").replace("−", "-"))
    assert math.isclose(shown, value, rel_tol=5e-3)
    digits = display.sig(value).replace(",", "").replace(".", "").lstrip("0")
    assert len(digits) >= 3 or float(digits) == round(value)


def _checks():
    base = {"statement": "s", "paper": "BERT .105 to .675", "comparator": ">",
            "threshold": 0.0}
    return [
        {**base, "id": "baseline-positive:a", "check": "baseline-positive", "model": "org/a",
         "subject": "", "verdict": "reproduced", "measured": 0.0308, "interval": [0.02, 0.04]},
        {**base, "id": "baseline-positive:b / layer 3", "check": "baseline-positive",
         "model": "org/b", "subject": "layer 3", "verdict": "inconclusive", "measured": 0.01,
         "interval": [-0.01, 0.03]},
        {**base, "id": "last-layer-rise:a", "check": "last-layer-rise", "model": "org/a",
         "subject": "", "verdict": "finding", "measured": {"self-sim change": 0.0763},
         "interval": None, "comparator": None, "threshold": None, "paper": ""},
    ]


def test_verdict_table_has_human_cells_and_no_reprs():
    frame = display.verdict_frame(_checks(), {"baseline-positive": "Anisotropic layers"})
    assert frame.loc[0, "Check"] == "Anisotropic layers"
    assert frame.loc[0, "Measured [95% interval]"] == "0.0308 [0.0200, 0.0400]"
    assert frame.loc[1, "Model"] == "b (layer 3)" and frame.loc[0, "Threshold"] == "> 0"
    assert frame.loc[2, "Measured [95% interval]"] == "self-sim change 0.0763"
    for cell in frame.drop(columns=["_id", "_verdict", "_note"]).to_numpy().ravel():
        assert isinstance(cell, str) and "{" not in cell and "[np." not in cell
    page = display.verdict_table_html(_checks(), collapse_after=2)
    assert 'title="baseline-positive:b / layer 3"' in page and "overflow-x:auto" in page
    assert "<details><summary>1 more rows</summary>" in page


def test_forest_plot_draws_one_panel_per_graded_check_with_its_threshold():
    import matplotlib

    matplotlib.use("Agg")
    fig = display.forest_plot(_checks())
    assert len(fig.axes) == 1  # the finding is not graded
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b (layer 3)", "a"]
    assert any(line.get_linestyle() == "--" and line.get_xdata()[0] == 0.0
               for line in ax.get_lines())
    marked = display.forest_plot(_checks(), paper={("baseline-positive", "layer 3"): 0.5})
    diamonds = [line for line in marked.axes[0].get_lines() if line.get_marker() == "D"]
    assert len(diamonds) == 1 and diamonds[0].get_xdata()[0] == 0.5
    assert diamonds[0].get_ydata()[0] == 0  # the row of b (layer 3), drawn first
    assert marked.axes[0].get_legend() is not None
    empty = display.forest_plot(_checks()[2:])
    assert "No check was graded" in empty.axes[0].texts[0].get_text()


def test_settings_table_names_each_value_and_its_source():
    from anisotropy.book import catalog
    from anisotropy.report.display import settings_table_html

    settings = catalog.settings("01-layerwise-anisotropy", "smoke", {"seed": 3})
    text = settings_table_html(settings)
    assert text.startswith("<details") and "profile smoke, 1 override(s)" in text
    assert "<td>seed</td><td>3</td><td>override</td>" in text
    size = f"{settings.n_sentences:,}"
    assert f"<td>n_sentences</td><td>{size}</td><td>profile smoke</td>" in text
    assert "<td>min_contexts</td><td>5</td><td>default</td>" in text
    assert "(&#x27;" not in text and "[&#x27;" not in text  # no tuple or list reprs


def test_the_paper_column_gives_the_papers_numbers_not_its_statement():
    from anisotropy.report.checks import load_checks

    spec = load_checks("01-layerwise-anisotropy")["baseline-positive"]
    assert "Contextualized" in spec.paper_text()
    assert "Contextualized" not in spec.paper_values_text()
    assert "0.105" in spec.paper_values_text()
    check = {**_checks()[0], "paper": spec.paper_text(), "paper_values": ""}
    assert display.verdict_frame([check]).loc[0, "Paper"] == "–"


def test_the_paper_cell_prefers_the_number_on_the_measured_scale_and_stays_short():
    check = {**_checks()[0], "paper_value": -0.808, "paper_values": "polarity: -0.808"}
    assert display.verdict_frame([check]).loc[0, "Paper"] == "−0.808"
    long = {**_checks()[0], "paper_values": "STS12: 45.46, 43.53; " * 10}
    cell = display.verdict_frame([long]).loc[0, "Paper"]
    assert len(cell) <= display.PAPER_MAX and cell.endswith("…")


def test_forest_plot_marks_the_paper_value_each_record_carries():
    import matplotlib

    matplotlib.use("Agg")
    checks = _checks()
    checks[0] = {**checks[0], "paper_value": 0.105}
    diamonds = [line for line in display.forest_plot(checks).axes[0].get_lines()
                if line.get_marker() == "D"]
    assert len(diamonds) == 1 and diamonds[0].get_xdata()[0] == 0.105
    assert diamonds[0].get_ydata()[0] == 1  # the row of a, drawn second


def _record(check, model, verdict, measured, subject="", interval=(0.0, 1.0)):
    return {"id": f"{check}:{model}", "check": check, "model": model, "subject": subject,
            "verdict": verdict, "measured": measured, "interval": list(interval),
            "comparator": ">=", "threshold": 0.46}


def test_verdict_matrix_gives_one_cell_per_check_and_model_with_mark_and_value():
    page = display.verdict_matrix_html(_checks(), {"baseline-positive": "Anisotropic layers"})
    header = page[page.index("<thead>"):page.index("</thead>")]
    assert [h.split("</th>")[0] for h in header.split("<th>")[1:]] == \
        ["Check", "Threshold", "a", "b"]
    row = page[page.index('title="baseline-positive"'):].split("</tr>")[0]
    assert ">Anisotropic layers<" in row and "<td>&gt; 0</td>" in row
    assert "✓ 0.0308</td>" in row and "? 0.0100</td>" in row
    assert 'title="reproduced 0.0308 [0.0200, 0.0400]"' in row        # the interval
    assert 'title="layer 3: inconclusive 0.0100 [−0.0100, 0.0300]"' in row
    assert "background:#009E7326" in row                              # tinted by verdict
    finding = page[page.index('title="last-layer-rise"'):].split("</tr>")[0]
    assert "• finding" not in finding and ">•</td>" in finding         # a dict is not shown
    assert '<td class="empty"></td>' in finding                        # b has no record
    assert "{" not in page and "[np." not in page
    assert "✓ reproduced · ? inconclusive · • finding" in page          # the legend


def test_verdict_matrix_counts_a_checks_subjects_and_splits_shared_ones():
    tasks = [_record("per-task", "org/m", v, 1.0, subject=t)
             for t, v in [("STS12", "reproduced"), ("STS13", "reproduced"),
                          ("STS14", "not reproduced")]]
    page = display.verdict_matrix_html(tasks)
    assert ">✓ 2 · ✗ 1</td>" in page and "<th>m</th>" in page          # one check's tasks
    assert "≥ 0.460" in page                                            # as a reader writes it
    shared = [_record(check, "org/m", "reproduced", 0.5, subject=s)
              for check in ("pearson", "spearman") for s in ("polarity", "SNLI")]
    shared.append(_record("appendix", "org/m", "inconclusive", -0.7))
    page = display.verdict_matrix_html(shared)
    assert "<th>m: polarity</th><th>m: SNLI</th><th>m</th>" in page    # datasets apart
    assert page.count("✓ 0.500") == 4 and "? −0.700" in page


def test_verdict_matrix_leaves_out_checks_not_run_anywhere_and_counts_them():
    run = _record("a", "org/m", "reproduced", 0.5)
    partly = [_record("b", "org/m", "not run", None), _record("b", "org/n", "inconclusive", 0.1)]
    never = [_record(c, "org/m", "not run", None) for c in ("c", "d")]
    page = display.verdict_matrix_html([run, *partly, *never])
    assert 'title="a"' in page and 'title="b"' in page                # b ran on n
    assert 'title="c"' not in page and 'title="d"' not in page
    assert "2 checks not run here, listed in the table below" in page
    assert "not run here" not in display.verdict_matrix_html([run])


def test_verdict_matrix_names_a_record_over_several_models_by_their_count():
    record = _record("appendix", "org/a, org/b, org/c", "reproduced", -0.8)
    page = display.verdict_matrix_html([record])
    assert '<th title="a, b, c">3 models</th>' in page and "✓ −0.800" in page


def test_frame_html_formats_escapes_and_collapses():
    import pandas as pd

    from anisotropy.report.display import frame_html

    frame = pd.DataFrame({"a <b>": [0.123456, "1.00 [0.5, 2.0]"] * 8}, index=[f"t{i}" for i in
                                                                          range(16)])
    frame.index.name = "Task"
    text = frame_html(frame, caption="note & more", collapse_after=12)
    assert "<th>Task</th><th>a &lt;b&gt;</th>" in text and "0.123" in text
    assert "0.123456" not in text and "4 more rows" in text and "note &amp; more" in text
    assert 'overflow-x:auto' in text


def test_forest_plot_takes_a_log_axis_only_for_positive_numbers_over_two_decades():
    import matplotlib

    matplotlib.use("Agg")
    ratios = [{**_record("massive", m, "not reproduced", v, interval=(v * 0.8, v * 1.2)),
               "threshold": 1000.0} for m, v in (("a", 49.7), ("b", 11600.0))]
    ax = display.forest_plot(ratios).axes[0]
    assert ax.get_xscale() == "log" and "(log scale)" in ax.get_title(loc="left")
    near = [{**r, "measured": 900.0, "interval": [800.0, 1100.0]} for r in ratios]
    assert display.forest_plot(near).axes[0].get_xscale() == "linear"
    signed = [{**_record("change", "a", "reproduced", 12.6, interval=(-0.5, 20.0)),
               "threshold": 0.0}]
    assert display.forest_plot(signed).axes[0].get_xscale() == "linear"


def test_the_forest_caption_names_the_panels_that_carry_the_papers_value():
    from anisotropy.report.display import paper_marks_text

    def record(check, verdict="reproduced", paper=None, basis="derived", margin=None):
        return {"check": check, "verdict": verdict, "interval": [0.1, 0.2], "measured": 0.15,
                "paper_value": paper, "threshold_basis": basis, "margin": margin}

    labels = {"a": "Alpha", "b": "Beta", "c": "Gamma"}
    none = paper_marks_text([record("a"), record("b", basis="book")], labels)
    assert none == ("No panel here has a paper value on the measured scale to mark. The "
                    "dashed line is derived from the paper's numbers in “Alpha”; the book's "
                    "own (the paper gives no number) in “Beta”.")
    one = paper_marks_text([record("a", paper=0.3, basis="paper"), record("b"),
                            record("c", basis="direction"), record("c", basis="direction"),
                            record("d", verdict="finding", paper=0.2)], labels)
    assert one.startswith("An open black diamond marks the paper's own value in “Alpha”; no "
                          "other panel has one")
    assert "the paper's own number in “Alpha”; derived from the paper's numbers in “Beta”; "\
        "the direction the paper states in “Gamma”." in one
    margin = paper_marks_text([record("a", basis="derived", margin=[-1, 1])], labels)
    assert margin.endswith("the edges of the declared margin in “Alpha”.")
    assert paper_marks_text([record("a", verdict="finding")], labels) == ""


def test_a_findings_interval_is_read_from_its_details_and_shown():
    finding = {"id": "f:m", "check": "f", "model": "org/m", "verdict": "finding",
               "measured": 1.5, "interval": None,
               "details": {"95% interval over fits": [1.0, 2.0], "fits": 5}}
    assert display.finding_interval(finding) == [1.0, 2.0]
    assert display.verdict_frame([finding]).loc[0, "Measured [95% interval]"] == "1.50 [1.00, 2.00]"
    # a graded check's own interval is the one shown; details never stand in for it
    graded = {**finding, "verdict": "reproduced", "interval": [1.2, 1.8]}
    assert display.finding_interval(graded) is None
    assert display.verdict_frame([graded]).loc[0, "Measured [95% interval]"] == "1.50 [1.20, 1.80]"
    # text or a wrong shape under the label is not an interval
    assert display.finding_interval({**finding, "details": {"95% interval": "n/a"}}) is None
    assert display.finding_interval({**finding, "details": {"95% interval": [1, 2, 3]}}) is None
