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

__all__ = ["decoder_texts", "facts_table", "summary_frame", "baseline_texts", "layer_panels",
           "sink_tables", "word_mev_figure", "frequency_figure", "mev_texts", "layers_table",
           "summary_columns", "MEV_COLUMNS"]

#: The MEV variants' columns of the per-layer table, each beside its random-word baseline.
MEV_COLUMNS = ["mev", "mev_uncentred_baseline", "mev_adj", "mev_baseline",
               "mev_adj_centred_baseline", "mev_baseline_size_matched", "mev_adj_size_matched",
               "mev_uncentred", "mev_uncentred_adj"]


def _short(measured: dict) -> dict[str, str]:
    return {name: plotting.short_name(name) for name in measured}


def _range(values) -> str:
    values = list(values)
    return f"{min(values):.2f}–{max(values):.2f}" if values else "n/a"


def decoder_texts(measured: dict) -> dict[str, str]:
    """The sentences on the decoders: what each is, and what its position 0 holds."""
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
    """How many tokens, words and occurrences each model's analysis saw."""
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


def summary_frame(measured: dict) -> pd.DataFrame:
    """Each model's summary numbers
    (:func:`~anisotropy.claims.layerwise.measure.summarize_layers`)."""
    return pd.DataFrame({m: measured[n].summary for n, m in _short(measured).items()}).T


def summary_columns(measured: dict, columns: list[str]) -> pd.DataFrame:
    """Some of the summary numbers, with readable headers, to 3 decimals."""
    return (summary_frame(measured)[columns].rename(columns=SUMMARY_LABELS).astype(float)
            .round(3))


def layers_table(measured: dict) -> pd.DataFrame:
    """Every model's per-layer table, indexed by (model, layer)."""
    return pd.concat([m.per_layer.assign(model=plotting.short_name(n))
                      for n, m in measured.items()]).set_index(["model", "layer"])


def baseline_texts(measured: dict) -> dict:
    """The numbers the baseline section's prose reads: each decoder's upper half, the
    encoders' peak and last layer, against pre-trained BERT's upper half (the paper)."""
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
    baselines dashed."""
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
    (:func:`anisotropy.claims.layerwise.measure.sink_effect`); ``(None, {})`` without a decoder."""
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
    polysemous examples, where they occur often enough."""
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
    model. Returns the figure and ``{model: rho}``."""
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
    under the threshold, negative adjusted MEVs, and the authors' published statistics."""
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
