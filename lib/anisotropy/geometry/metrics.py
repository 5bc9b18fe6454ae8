"""Isotropy and similarity measures, in one namespace: pure functions, numpy in, a float or
a small frame out. They live in :mod:`~anisotropy.geometry.similarity`,
:mod:`~anisotropy.geometry.isotropy`, :mod:`~anisotropy.geometry.silhouette` and
:mod:`~anisotropy.geometry.dimension` (input checks: :mod:`~anisotropy.geometry.validation`);
this module gathers them, so ``metrics.isoscore`` and its neighbours read as one toolbox.

Every public function validates its input at the top (2-D, finite, enough points, enough
groups) and raises :class:`ValueError` naming the problem. Embeddings may be float32; sums
run in float64.

The functions, in the order the book uses them:

=================================  ======================================================
:func:`cosine_baseline`            mean cosine of random pairs (Ethayarajh 2019)
:func:`self_similarity`            per-word mean cosine across contexts (Ethayarajh 2019)
:func:`intra_sentence_similarity`  per-sentence cosine to the sentence mean (Ethayarajh)
:func:`max_explainable_variance`   per-word share of variance on the first PC (Ethayarajh)
:func:`inter_type_similarity`      S_inter (Cai et al. 2021)
:func:`intra_type_similarity`      S_intra (Cai et al. 2021)
:func:`isoscore`                   IsoScore (Rudman et al. 2022)
:func:`partition_isotropy`         I(W) (Mu & Viswanath 2018), in log space
:func:`silhouette`                 exact Euclidean silhouette (Rousseeuw 1987)
:func:`lid_mle`                    Levina-Bickel local intrinsic dimension
=================================  ======================================================
"""

from __future__ import annotations

from anisotropy.geometry.dimension import knn_distances, lid_mle
from anisotropy.geometry.isotropy import (
    PartitionIsotropy,
    centroid_norm_ratio,
    isoscore,
    isotropy_defect,
    partition_isotropy,
)
from anisotropy.geometry.silhouette import silhouette
from anisotropy.geometry.similarity import (
    cosine_baseline,
    inter_type_rows,
    inter_type_similarity,
    inter_type_units,
    intra_sentence_similarity,
    intra_type_similarity,
    max_explainable_variance,
    mean_offdiagonal_cosine,
    mev_baseline,
    mev_baseline_rows,
    pair_cosines,
    random_pairs,
    self_similarity,
    type_pair_mean_cosine,
    uncentred_share_draws,
)
from anisotropy.geometry.validation import check_embeddings

__all__ = [
    "cosine_baseline",
    "random_pairs",
    "pair_cosines",
    "self_similarity",
    "intra_sentence_similarity",
    "max_explainable_variance",
    "mev_baseline",
    "mev_baseline_rows",
    "uncentred_share_draws",
    "inter_type_similarity",
    "inter_type_units",
    "inter_type_rows",
    "mean_offdiagonal_cosine",
    "type_pair_mean_cosine",
    "intra_type_similarity",
    "isoscore",
    "isotropy_defect",
    "knn_distances",
    "partition_isotropy",
    "centroid_norm_ratio",
    "PartitionIsotropy",
    "silhouette",
    "lid_mle",
    "check_embeddings",
]

