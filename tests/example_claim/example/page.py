"""The example claim's page: its one table."""

from __future__ import annotations

import pandas as pd

from anisotropy.claims.example.ids import CLOSEST_PAIR, SENTENCE_BASELINE_POSITIVE
from anisotropy.inputs.resolved import short_name


def values_table(measured: dict) -> pd.DataFrame:
    """One row per model: the mean cosine of pairs of sentences and the closest pair.

    Parameters
    ----------
    measured : dict of str to Measured
        The claim's measurements (:func:`anisotropy.claims.example.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        Indexed by the model's short name.
    """
    return pd.DataFrame({
        "Model": [short_name(name) for name in measured],
        "Mean cosine of sentence pairs": [m.checks[SENTENCE_BASELINE_POSITIVE].value
                                          for m in measured.values()],
        "Closest pair's cosine": [m.checks[CLOSEST_PAIR].value for m in measured.values()],
    }).set_index("Model")
