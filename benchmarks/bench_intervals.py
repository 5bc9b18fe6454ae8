"""What the checks' 95% intervals cost, at the full profile's sizes (printed, not asserted).

Every interval is a bootstrap on cached vectors or per-unit values (no forward pass); this
prints the seconds of each kind for B = 1,000 resamples on synthetic data of the book's
sizes: claim 1 (1,000 pairs and 2,000 words x 13 layers), claim 2 (S_inter over 8,000 types
in 768 dimensions, per layer; the decoder's driver share over 20,000 tokens), claim 3
(Spearman over 8,000 types), claims 3-4 (a paired STS bootstrap over 4,000 pairs).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from anisotropy.claims import sts
from anisotropy.claims.clusters import measure as clusters
from anisotropy.claims.clusters import similarities as cluster_similarities
from anisotropy.claims.frequency import measure as frequency
from anisotropy.claims.layerwise import measure as layerwise
from anisotropy.claims.layerwise.sentence_units import SentenceUnits
from anisotropy.geometry.intervals import dirichlet_weights

B = 1000
RNG = np.random.default_rng(0)


def timed(label: str, function) -> None:
    start = time.perf_counter()
    function()
    print(f"{label:<60s} {time.perf_counter() - start:7.2f} s")


def claim1() -> None:
    layers = np.arange(13)
    per_layer = pd.DataFrame({"layer": layers, "mev_baseline": 0.02,
                              "mev_uncentred_baseline": 0.03,
                              "intra_similarity_adj": RNG.random(13)})
    words = np.repeat([f"w{i}" for i in range(2000)], 13)
    per_word = pd.DataFrame({"type": words, "layer": np.tile(layers, 2000),
                             "self_similarity": RNG.random(26000), "mev": RNG.random(26000),
                             "n": RNG.integers(5, 50, 26000)})
    units = SentenceUnits(RNG.integers(0, 4000, size=(2, 1000)),
                          {f"w{i}": RNG.integers(0, 4000, size=20) for i in range(2000)}, 4000)
    layerwise.check_values(per_layer, per_word, RNG.random((13, 1000)), units, n_boot=B)


def claim2_inter() -> None:
    unit = RNG.normal(size=(8000, 768))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    windows = RNG.integers(0, 200, 8000)
    cluster_similarities.pair_cosine_draws(unit, windows, dirichlet_weights(200, B, 0),
                                           cluster_similarities.window_sums(unit, windows, 200))


def claim2_drivers() -> None:
    X = RNG.normal(size=(20000, 576)).astype(np.float32)
    clusters.driver_share_draws(X, RNG.integers(0, 3, 20000), n_boot=B)


def claim3_rho() -> None:
    frequency.rho_interval(RNG.random(8000), RNG.random(8000), n_boot=B)


def sts_paired() -> None:
    gold = RNG.random(4000)
    sts.spearman_change_draws(gold + RNG.random(4000), gold + 2 * RNG.random(4000), gold,
                              n_boot=B)


if __name__ == "__main__":
    print(f"B = {B} resamples each")
    timed("claim 1: all checks of one model (13 layers)", claim1)
    timed("claim 2: raw S_inter draws, one layer (8,000 types x 768)", claim2_inter)
    timed("claim 2: driver share draws (20,000 tokens x 576)", claim2_drivers)
    timed("claim 3: Spearman rho interval (8,000 types)", claim3_rho)
    timed("claims 3-4: paired STS change, one task (4,000 pairs)", sts_paired)
