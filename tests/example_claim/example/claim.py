"""The example claim: sentence vectors share a direction (the anisotropy baseline of
Ethayarajh 2019, read on mean-pooled sentence vectors).

A claim supplies what is its own: its settings, its forward passes (:func:`inputs`), the
measurement of one model (:func:`measure_model`), and its checks (``data/checks.yaml``).
The model loop and the grading loop are :mod:`anisotropy.claims.base`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anisotropy.claims.base import CheckValue, grade_each, measure_each
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.claims.example.ids import CLOSEST_PAIR, SENTENCE_BASELINE_POSITIVE
from anisotropy.claims.example.measure import sentence_baseline
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import corpora
from anisotropy.inputs.jobs import LAST, Extraction, jobs
from anisotropy.inputs.settings import ClaimSettings, param

SLUG = "99-example-claim"


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """The example claim's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(("sentence-transformers/all-MiniLM-L6-v2",),
                                    "models to measure (`anisotropy models`)")
    n_sentences: int = param(200, "SNLI sentences sampled", min=2)
    n_boot: int = param(1000, "bootstrap resamples behind the 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of str
        ``settings.models``, in their order.
    """
    return list(settings.models)


def sentences(settings: Settings) -> list[str]:
    """The sampled SNLI sentences.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``n_sentences`` and ``seed``.

    Returns
    -------
    list of str
        :func:`anisotropy.inputs.corpora.sentences` of SNLI.
    """
    return corpora.sentences("snli", settings.n_sentences, settings.seed)


def inputs(settings: Settings) -> list[Extraction]:
    """The forward passes the claim needs, planned before anything is measured.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of Extraction
        One pooled-vector job of the last layer per model over :func:`sentences`.
    """
    return jobs(settings.models, f"snli-{settings.n_sentences}", "pooled", LAST,
                lambda: sentences(settings))


GRADED = (SENTENCE_BASELINE_POSITIVE,)
FINDINGS = (CLOSEST_PAIR,)
DECLARATION = ClaimDeclaration(
    slug=SLUG, title="99. An example claim", short="99. example", references="example",
    sources=("Ethayarajh 2019",), model_list="models", checks=GRADED + FINDINGS, cost=10)


@dataclass
class Measured:
    """One model's measurement: its kind and each check's :class:`CheckValue`.

    Attributes
    ----------
    kind : str
        The model's kind (``"encoder"``, ``"decoder"``).
    checks : dict of str to CheckValue
        ``{check id: CheckValue}`` of the sentence baseline (graded) and the closest pair
        (a finding).
    """

    kind: str
    checks: dict[str, CheckValue]


def measure_model(settings: Settings, encoder, texts: list[str]) -> Measured:
    """The checks of one model: the mean cosine of pairs of sentence vectors (graded) and the
    largest cosine of two different sentences (a finding).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``n_boot`` and ``seed``.
    encoder : Encoder
        The loaded model.
    texts : list of str
        The sentences (:func:`sentences`).

    Returns
    -------
    Measured
        The model's kind and its two checks.
    """
    unit = encoder.encode_sentences(texts, pooling="mean", normalize=True)
    baseline = sentence_baseline(unit, settings.n_boot,
                                 stream_seed(settings.seed, "example/bootstrap"))
    cosines = unit @ unit.T
    cosines[range(len(texts)), range(len(texts))] = -1.0
    return Measured(encoder.resolved.kind, {SENTENCE_BASELINE_POSITIVE: baseline,
                                            CLOSEST_PAIR: CheckValue(float(cosines.max()))})


def measure(settings: Settings, texts: list[str], *, on_model=None, load=None
            ) -> dict[str, Measured]:
    """:func:`measure_model` of every model, by the shared model loop.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.
    texts : list of str
        The sentences (:func:`sentences`).
    on_model, load : callable or None, optional
        As :func:`anisotropy.claims.base.each_model`.

    Returns
    -------
    dict of str to Measured
        ``{model name: its measurement}``.
    """
    return measure_each(settings, lambda encoder: measure_model(settings, encoder, texts),
                        on_model=on_model, load=load)


def grade(results, measured: dict[str, Measured]) -> None:
    """Record the checks of every model, by the shared grading loop.

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    measured : dict of str to Measured
        :func:`measure`'s measurements.
    """
    grade_each(results, measured, GRADED, FINDINGS)
