"""Claim 1's page: its tables, glued sentences and figures, from the measurements of
:mod:`anisotropy.claims.layerwise.claim` (``{model: ModelMeasurement}``) and the
paper's values (``data/references.yaml``, claim1)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from anisotropy.claims.layerwise.measure import SUMMARY_LABELS, sink_halves, stable_word
from anisotropy.report import plotting
from anisotropy.report.results import ranges_text, reference

__all__ = ["decoder_texts", "facts_table", "left_out_table", "summary_frame", "baseline_texts",
           "layer_panels", "sink_tables", "word_mev_figure", "frequency_figure", "mev_texts",
           "layers_table", "summary_columns", "MEV_COLUMNS"]

#: The MEV variants' columns of the per-layer table, each beside its random-word baseline.
MEV_COLUMNS = ["mev", "mev_uncentred_baseline", "mev_adj", "mev_baseline",
               "mev_adj_centred_baseline", "mev_baseline_size_matched", "mev_adj_size_matched",
               "mev_uncentred", "mev_uncentred_adj"]


def _short(measured: dict) -> dict[str, str]:
    return {name: plotting.short_name(name) for name in measured}


def _range(values) -> str:
    """``"low–high"`` to 2 decimals; one number when both ends read the same, or to 3
    significant figures when only more digits tell them apart."""
    values = list(values)
    if not values:
        return "n/a"
    low, high = min(values), max(values)
    if f"{low:.2f}" != f"{high:.2f}":
        return f"{low:.2f}–{high:.2f}"
    if f"{low:.3g}" != f"{high:.3g}":
        return f"{low:.3g}–{high:.3g}"
    return f"{low:.3g}"


def decoder_texts(measured: dict) -> dict[str, str]:
    """The sentences on the decoders: what each is, and what its position 0 holds.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    dict of str to str
        ``decoder_description``: each decoder's short name and notes (``"No decoder in this
        run."`` without one); ``decoder_bos_text``: for each decoder, whether position 0 holds
        each sentence's first word or, in some share of the sentences, a special token (the
        facts' ``position0_special_share``), ``""`` without a decoder.
    """
    short = _short(measured)
    decoders = [n for n, m in measured.items() if m.decoder]
    bos = []
    for n in decoders:
        share = measured[n].facts["position0_special_share"]
        bos.append(f"{short[n]}'s tokenizer adds no beginning-of-sentence token, so position 0 "
                   "holds each sentence's first word, and dropping position 0 drops every "
                   "sentence's first word." if share == 0 else
                   f"{short[n]}'s tokenizer puts a special token at position 0 in {share:.0%} "
                   "of the sentences; dropping position 0 drops that token, and a word only "
                   "where there is none.")
    return {"decoder_description": " ".join(f"{short[n]}: {measured[n].facts['notes']}"
                                            for n in decoders) or "No decoder in this run.",
            "decoder_bos_text": " ".join(bos)}


def facts_table(measured: dict) -> pd.DataFrame:
    """How many tokens, words and occurrences each model's analysis saw.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        One row per model (its short name): sentences, tokens, words analysed, occurrences
        analysed, the fewest contexts of a word and the positions dropped (``"none"`` when
        none).
    """
    columns = {"n_sentences": "sentences", "n_tokens": "tokens",
               "n_words_analysed": "words analysed",
               "n_occurrences_analysed": "occurrences analysed",
               "min_contexts_of_analysed_words": "fewest contexts of a word",
               "excluded_positions": "positions dropped"}
    frame = pd.DataFrame({m: measured[n].facts for n, m in _short(measured).items()}).T
    frame = frame[list(columns)].rename(columns=columns)
    frame["positions dropped"] = frame["positions dropped"].map(
        lambda p: ", ".join(map(str, p)) or "none")
    return frame


def left_out_table(results, check: str) -> pd.DataFrame:
    """Per model, a half-layer check's value beside the largest it takes with one layer
    left out, and that layer (its details, :func:`~anisotropy.claims.layerwise.measure.
    leave_one_layer_out`): whether the verdict rests on one layer.

    Parameters
    ----------
    results : Results
        The claim's results, holding ``check``.
    check : str
        The check's id (``selfsim-falls``).

    Returns
    -------
    pandas.DataFrame
        Indexed by model (short name): ``all layers``, ``largest, one layer left out`` and
        ``layer left out for it``.
    """
    rows = {}
    for c in results.checks:
        if c.check == check and isinstance(c.details, dict) and c.measured is not None:
            rows[plotting.short_name(c.model)] = {
                "all layers": c.measured,
                "largest, one layer left out": c.details.get("largest, one layer left out"),
                "layer left out for it": c.details.get("layer left out for it")}
    frame = pd.DataFrame(rows).T
    frame.index.name = "model"
    return frame


def summary_frame(measured: dict) -> pd.DataFrame:
    """Each model's summary numbers
    (:func:`~anisotropy.claims.layerwise.measure.summarize_layers`).

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        One row per model (its short name), one column per key of its summary.
    """
    return pd.DataFrame({m: measured[n].summary for n, m in _short(measured).items()}).T


def summary_columns(measured: dict, columns: list[str]) -> pd.DataFrame:
    """Some of the summary numbers, with readable headers, to 3 decimals.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).
    columns : list of str
        Keys of the summary, in the order shown; their headers are
        :data:`~anisotropy.claims.layerwise.measure.SUMMARY_LABELS`'.

    Returns
    -------
    pandas.DataFrame
        One row per model (its short name), one float column per key of ``columns``.
    """
    return (summary_frame(measured)[columns].rename(columns=SUMMARY_LABELS).astype(float)
            .round(3))


def layers_table(measured: dict) -> pd.DataFrame:
    """Every model's per-layer table, indexed by (model, layer).

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        The rows of every model's ``per_layer`` table, indexed by the model's short name and
        the layer.
    """
    return pd.concat([m.per_layer.assign(model=plotting.short_name(n))
                      for n, m in measured.items()]).set_index(["model", "layer"])


def baseline_texts(measured: dict) -> dict:
    """The numbers the baseline section's prose reads: each decoder's upper half, the
    encoders' peak and last layer, against pre-trained BERT's upper half (the paper).

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    dict
        ``decoder_upper_text``: a sentence giving each decoder's upper-half mean baseline;
        ``encoder_peak_range``, ``encoder_last_range``: the range over the encoders of the
        peak and last-layer baselines (``"n/a"`` without an encoder); ``bert_upper_range``: the
        range of the paper's BERT-base-cased baselines at relative depth above 0.5;
        ``encoders_vs_bert``: ``"below"`` when every encoder's peak is below the lowest of
        those, else ``"not below"``. The ranges read ``"low–high"``, to 2 decimals.
    """
    summary = summary_frame(measured)
    short = _short(measured)
    decoders = [short[n] for n, m in measured.items() if m.decoder]
    encoders = [short[n] for n, m in measured.items() if not m.decoder]
    bert = np.array(reference("claim1", "baseline", "BERT-base-cased"))
    bert_upper = bert[np.arange(bert.size) / (bert.size - 1) > 0.5]  # our halves
    below = bool(encoders) and summary.loc[encoders, "peak"].max() < bert_upper.min()
    upper = [f"{summary.loc[name, 'upper_half_mean']:.2f} ({name})" for name in decoders]
    listed = ", ".join(upper[:-1]) + f" and {upper[-1]}" if len(upper) > 1 else ""
    return {"decoder_upper_text": (f"The decoders' upper-half baselines are {listed}."
                                   if len(upper) > 1 else
                                   f"The decoder's upper-half baseline is {upper[0]}."
                                   if upper else "This run has no decoder."),
            "encoder_peak_range": _range(summary.loc[encoders, "peak"]),
            "encoder_last_range": _range(summary.loc[encoders, "last_layer"]),
            "bert_upper_range": _range(bert_upper),
            "encoders_vs_bert": "below" if below else "not below"}


def layer_panels(measured: dict, mev_threshold: float, n_rise: int):
    """Baseline, adjusted self- and intra-sentence similarity and adjusted MEV per relative
    depth, one line per model (the baseline with its 95% band), the paper's BERT and GPT-2
    baselines dashed.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).
        Each per-layer table holds its band (``baseline_low``, ``baseline_high``).
    mev_threshold : float
        The ``mev-low`` check's threshold, a dotted line on the adjusted-MEV panel.
    n_rise : int
        How many models' upper layers are more anisotropic than their lower layers (their
        ``baseline-rises`` check reproduced), for the title.

    Returns
    -------
    matplotlib.figure.Figure
        The four panels, 2 x 2; the adjusted MEV is the uncentred one
        (``mev_uncentred_adj``).
    """
    panels = [("baseline", "Anisotropy baseline", "mean cosine, random words"),
              ("self_similarity_adj", "Self-similarity (adjusted)", "self-sim − baseline"),
              ("intra_similarity_adj", "Intra-sentence similarity (adjusted)",
               "intra-sim − baseline"),
              ("mev_uncentred_adj", "Maximum explainable variance (adjusted)",
               "MEV − random-word MEV (uncentred)")]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharex=True)
    for ax, (column, title, ylabel) in zip(axes.flat, panels, strict=True):
        for name, m in measured.items():
            table = m.per_layer
            ax.plot(table["relative_depth"], table[column], marker="o", ms=3,
                    color=plotting.color(name), label=plotting.short_name(name))
            if column == "baseline":
                ax.fill_between(table["relative_depth"], table["baseline_low"],
                                table["baseline_high"], color=plotting.color(name), alpha=0.2)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
    for paper_model, values in reference("claim1", "baseline").items():
        if paper_model == "ELMo":
            continue
        depth = np.arange(len(values)) / (len(values) - 1)
        axes[0, 0].plot(depth, values, ls="--", color=plotting.color(f"{paper_model} (paper)"),
                        label=f"{paper_model} (paper)")
    axes[0, 1].axhline(0, color="black", lw=0.6)
    axes[1, 1].axhline(mev_threshold, color="black", lw=0.6, ls=":")
    for ax in axes[1]:
        ax.set_xlabel("relative depth (layer / L)")
    axes[0, 0].legend(loc="upper left")
    fig.suptitle(f"Upper layers are more anisotropic than lower layers in {n_rise} of "
                 f"{len(measured)} models (95% intervals); dashed: the paper's BERT and GPT-2 "
                 "baselines")
    fig.tight_layout()
    return fig


def sink_tables(measured: dict) -> tuple[pd.DataFrame | None, dict[str, pd.DataFrame]]:
    """The decoders' half-layer baselines with position 0 dropped and kept, beside GPT-2's
    (the paper's code keeps it), and each decoder's per-layer position-0 table
    (:func:`anisotropy.claims.layerwise.measure.sink_effect`); ``(None, {})`` without a decoder.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    halves : pandas.DataFrame or None
        One row per decoder (its short name) and one for ``"GPT-2 small (paper)"``, the
        columns :func:`~anisotropy.claims.layerwise.measure.sink_halves`' upper- and
        lower-half mean baselines with position 0 dropped and kept (NaN where dropped for the
        paper's GPT-2); None without a decoder.
    sinks : dict of str to pandas.DataFrame
        Each decoder's per-layer position-0 table, keyed by its short name; empty without a
        decoder.
    """
    sinks = {plotting.short_name(n): m.sinks for n, m in measured.items() if m.sinks is not None}
    if not sinks:
        return None, {}
    gpt2 = np.array(reference("claim1", "baseline", "GPT-2 small"))
    gpt2_halves = sink_halves(pd.DataFrame({
        "layer": np.arange(gpt2.size), "baseline_with_position0": gpt2,
        "baseline_without_position0": np.nan}))
    halves = pd.DataFrame({name: sink_halves(t) for name, t in sinks.items()}
                          | {"GPT-2 small (paper)": gpt2_halves}).T
    return halves, sinks


def word_mev_figure(measured: dict, words_of_interest: list[str], min_contexts: int):
    """Per-word MEV across depth: the data's most stable frequent word beside the seed's
    polysemous examples, where they occur often enough.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).
    words_of_interest : list of str
        The seed's examples, each drawn in the panel of every model that analysed it.
    min_contexts : int
        The fewest distinct sentences of a word the stable word is chosen among
        (:func:`~anisotropy.claims.layerwise.measure.stable_word`).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per model: each chosen word's centred MEV against relative depth, labelled
        with its analysed occurrences ``n``.
    """
    names = list(measured)
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        words = measured[name].per_word
        stable = stable_word(words, min_contexts)
        chosen = ([stable] if stable else []) + [w for w in words_of_interest
                                                if w in set(words["type"])]
        for word in chosen:
            series = words[words["type"] == word].sort_values("layer")
            depth = series["layer"] / measured[name].per_layer["layer"].max()
            ax.plot(depth, series["mev"], marker="o", ms=3,
                    label=f"{word} (n={int(series['n'].iloc[0])})")
        ax.set_title(f"{plotting.short_name(name)}: MEV of single words")
        ax.set_xlabel("relative depth")
        ax.set_ylabel("MEV (centred)")
        ax.legend()
    shown = [w for w in words_of_interest
             if any(w in set(m.per_word["type"]) for m in measured.values())]
    fig.suptitle("A stable word (MEV furthest above its 1/(n-1) floor among frequent words)"
                 + (f" against {' and '.join(repr(w) for w in shown)}" if shown else ""))
    fig.tight_layout()
    return fig


def frequency_figure(measured: dict):
    """Last-layer adjusted self-similarity against word frequency, with Spearman's rho per
    model. Returns the figure and ``{model: rho}``.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).

    Returns
    -------
    figure : matplotlib.figure.Figure
        One panel per model: each word's adjusted self-similarity in the last layer against
        its occurrences in the sample (log scale).
    rhos : dict of str to float
        Spearman's rho of the log occurrences and that self-similarity, keyed by the model's
        short name.
    """
    names = list(measured)
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    rhos = {}
    for ax, name in zip(axes[0], names, strict=True):
        words = measured[name].per_word
        last = words[words["layer"] == words["layer"].max()]
        rho = spearmanr(np.log(last["n"]), last["self_similarity_adj"])[0]
        rhos[plotting.short_name(name)] = rho
        ax.scatter(last["n"], last["self_similarity_adj"], s=6, alpha=0.5,
                   color=plotting.color(name))
        ax.set_xscale("log")
        ax.set_xlabel("occurrences in the sample (log)")
        ax.set_ylabel("adjusted self-similarity, last layer")
        ax.set_title(f"{plotting.short_name(name)}: Spearman ρ = {rho:.2f}")
    fig.suptitle("Self-similarity against word frequency (last layer)")
    fig.tight_layout()
    return fig, rhos


def mev_texts(measured: dict, min_contexts: int) -> dict:
    """The numbers the MEV section's prose reads: the floor 1/(n-1), the share of words
    under the threshold, negative adjusted MEVs, and the authors' published statistics.

    Parameters
    ----------
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name
        (:func:`anisotropy.claims.layerwise.claim.measure`).
    min_contexts : int
        The claim's ``min_contexts`` setting; the floor is that of a word with this many
        occurrences.

    Returns
    -------
    dict
        ``min_contexts`` and ``mev_floor`` (``1/(min_contexts - 1)``); ``n_random_words`` (the
        fewest over models); ``mev_share_min`` and ``mev_share_max`` (the lowest and highest
        over models of the summary's ``mev_share_below_threshold``); ``decoder_negative_mev``
        (a clause naming each decoder's layers >= 1 whose uncentred adjusted MEV is negative);
        ``centred_random_mev_range`` (the centred random-word MEV over every model's layers
        >= 1); ``published_mev_bert``, ``published_mev_gpt2`` and ``bert_random_mev_range``
        (the authors' published MEV and random-word MEV); ``gpt2_random_mev_range`` and
        ``gpt2_saturated_layers``: GPT-2's layers whose published random-word MEV exceeds 0.9,
        with ``gpt2_norm_std_max`` and ``gpt2_norm_mean_max``, the largest word-norm standard
        deviation and mean in those layers.
    """
    summary = summary_frame(measured)
    negative = {name: [int(layer) for layer in m.per_layer.query(
        "layer >= 1 and mev_uncentred_adj < 0")["layer"]]
        for name, m in measured.items() if m.decoder}
    negative = {name: layers for name, layers in negative.items() if layers}
    contextual = pd.concat([m.per_layer for m in measured.values()]).query("layer >= 1")
    published = reference("claim1", "published_mev")
    random_mev = reference("claim1", "random_word_mev")  # kawine/contextual's statistics
    bert_mev, gpt2_mev = (np.array(random_mev[m]) for m in ("BERT-base-cased", "GPT-2 small"))
    saturated = np.flatnonzero(gpt2_mev > 0.9)  # one direction carries nearly everything
    return {
        "min_contexts": min_contexts, "mev_floor": 1 / (min_contexts - 1),
        "n_random_words": min(m.facts["n_random_words"] for m in measured.values()),
        "mev_share_min": summary["mev_share_below_threshold"].min(),
        "mev_share_max": summary["mev_share_below_threshold"].max(),
        "decoder_negative_mev": "that happens in " + "; ".join(
            f"layers {ranges_text(layers)} of {plotting.short_name(name)}"
            for name, layers in negative.items())
        if negative else "no decoder layer here has a negative adjusted MEV",
        "centred_random_mev_range": _range(contextual["mev_baseline"]),
        "published_mev_bert": f"{min(published['BERT-base-cased']):.3f}–"
                              f"{max(published['BERT-base-cased']):.3f}",
        "published_mev_gpt2": _range(published["GPT-2 small"]),
        "bert_random_mev_range": _range(bert_mev),
        "gpt2_random_mev_range": f"{gpt2_mev[saturated].min():.2f}–"
                                 f"{gpt2_mev[saturated].max():.3f}",
        "gpt2_saturated_layers": ranges_text(saturated.tolist()),
        "gpt2_norm_std_max": np.max(np.array(random_mev["gpt2_word_norm_std"])[saturated]),
        "gpt2_norm_mean_max": np.max(np.array(random_mev["gpt2_word_norm_mean"])[saturated]),
    }
