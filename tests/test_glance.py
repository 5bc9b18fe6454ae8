"""Results at a glance: the verdict grid and the two sentences per claim."""

from __future__ import annotations

import re

from anisotropy.book import glance

SLUG = "03-frequency-bias"


def row(check, model, verdict, measured=0.5, interval=(0.4, 0.6), subject="", threshold=0.0,
        slug=SLUG):
    return {"slug": slug, "check": check, "model": model, "verdict": verdict,
            "measured": measured, "interval": list(interval) if interval else None,
            "comparator": ">" if threshold is not None else None, "threshold": threshold,
            "subject": subject}


def cell(text: str, model_column: int, claim: str) -> str:
    line = next(line for line in text.splitlines() if f"{claim}.html" in line)
    return re.findall(r"<td[^>]*>.*?</td>", line)[model_column]


def test_a_cell_counts_the_graded_verdicts_and_takes_the_commonest_colour():
    rows = [row("whitening-helps", "org/a", "reproduced"),
            row("flow-helps", "org/a", "reproduced"),
            row("flow-helps", "org/b", "not reproduced", -6.4, (-11.1, -1.67)),
            row("whitening-helps", "org/b", "inconclusive"),
            row("norm-frequency", "glove", "control"),
            row("knn-frequency", "org/a", "finding")]
    text = glance.grid_html(rows, [SLUG])
    first, second = cell(text, 0, SLUG), cell(text, 1, SLUG)
    assert "2&nbsp;✓" in first and "✗" not in first and "#cdeee3" in first
    # one of each: a tie reads as inconclusive
    assert "1&nbsp;✗" in second and "1&nbsp;?" in second and "#fdecc8" in second
    # a model with only controls or findings gets no column
    assert "glove" not in text and text.count("<th scope='col'>") == 3
    assert "href='../notebooks/03-frequency-bias.html'" in text


def test_a_claim_without_results_on_a_model_is_a_grey_dash():
    rows = [row("whitening-helps", "org/a", "reproduced"),
            row("baseline-positive", "org/b", "reproduced", slug="01-layerwise-anisotropy")]
    text = glance.grid_html(rows, ["01-layerwise-anisotropy", SLUG])
    assert "#eeeeee" in cell(text, 1, SLUG) and "–" in cell(text, 1, SLUG)


def test_the_sentences_name_what_held_and_what_did_not_with_numbers():
    rows = [row("whitening-helps", "org/a", "reproduced"),
            row("whitening-helps", "org/b", "reproduced"),
            row("flow-helps", "org/a", "reproduced"),
            row("flow-helps", "org/b", "not reproduced", -6.4, (-11.1, -1.67)),
            row("norm-frequency", "org/b", "inconclusive", -0.111, (-0.145, -0.0744),
                subject="input embeddings", threshold=-0.1)]
    text = glance.claim_sentences(rows, SLUG)
    assert text.startswith("Held on every model graded: Whitening improves STS (")
    assert "Flow improves STS" not in text.split("(")[0]  # held on a only: not listed
    assert "3 of 5 graded checks reproduced" in text
    assert "Flow improves STS on b: −6.40 [−11.1, −1.67] (needs > 0)" in text
    assert "(input embeddings) on b: −0.111 [−0.145, −0.0744] (needs > −0.100, undecided)" in text
    assert text.count(".") >= 2 and "{" not in text and "nan" not in text


def test_long_lists_are_cut_with_a_count_and_an_empty_claim_says_nothing():
    rows = [row("flow-helps", f"org/m{i}", "not reproduced", -1.0, (-2.0, -0.5))
            for i in range(5)]
    text = glance.claim_sentences(rows, SLUG)
    assert text.startswith("No check held on every model graded (0 of 5")
    assert text.endswith("; and 2 more.")
    assert glance.claim_sentences(rows, "01-layerwise-anisotropy") == ""
    assert "No claim has results" in glance.glance_markdown([], [SLUG])


def test_generalisations_are_marked_counted_apart_and_never_colour_a_reproduction():
    """A verdict on a kind of model the paper did not study follows the ↗ mark, is left out
    of the reproduction count and colour, and reads "carry over" in the sentences; a cell
    of generalisations alone is dashed."""
    beyond = {"scope": "generalisation"}
    rows = [{**row("whitening-helps", "org/a", "reproduced"), "scope": "reproduction"},
            {**row("flow-helps", "org/a", "not reproduced", -6.4, (-11.1, -1.67)), **beyond},
            {**row("flow-helps", "org/b", "not reproduced", -6.4, (-11.1, -1.67)), **beyond},
            {**row("whitening-helps", "org/b", "reproduced"), **beyond}]
    text = glance.grid_html(rows, [SLUG])
    first, second = cell(text, 0, SLUG), cell(text, 1, SLUG)
    assert "1&nbsp;✓ · ↗&nbsp;1&nbsp;✗" in first and "#cdeee3" in first  # green: its own
    assert "dashed" not in first and "dashed" in second
    assert second.count("↗") == 1 and "1&nbsp;✓" in second and "1&nbsp;✗" in second
    sentences = glance.claim_sentences(rows, SLUG)
    assert sentences.startswith("On the kinds of model the paper studied: held on every "
                                "model graded: Whitening improves STS (1 of 1 graded checks")
    assert "↗ Beyond them: 1 of 3 graded checks carry over; not, or undecided: Flow " \
           "improves STS on a: −6.40" in sentences
    only_beyond = glance.claim_sentences(rows[1:], SLUG)
    assert only_beyond.startswith("No model of the kinds the paper studied was graded here.")
