"""Manifold shape and intrinsic dimension for claim 2 (Cai et al. 2021).

Cai et al. see Swiss-roll manifolds in 3-D projections of GPT-2's clusters and a low local
intrinsic dimension (LID) in the contextual spaces. This module holds the numbers behind
both, apart from the clustering itself (:mod:`anisotropy.claims.clusters.measure`):

- :func:`pca_project`: the projection the paper's figures use;
- :func:`manifold_indicators`: is a 3-D projection a thin rolled sheet? (local dimension
  and geodesic-to-Euclidean distance ratio), with :func:`is_swiss_roll` the book's
  criterion and :func:`reference_shapes` the synthetic shapes that calibrate it;
- :func:`static_space_lid`: LID of a static embedding matrix (the input layer, GloVe),
  with :func:`lid_mean_draws` its bootstrap over points;
- :func:`lid_of_samples`: the cosine LID of several samples of points, their draws mixed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import shortest_path
from sklearn.neighbors import kneighbors_graph

from anisotropy.claims.clusters.similarities import mix_restarts
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import bootstrap_means
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import repeat_name, stream, stream_seed

__all__ = ["SWISS_ROLL_MAX_LID", "SWISS_ROLL_MIN_RATIO", "pca_project",
           "manifold_indicators", "reference_shapes", "is_swiss_roll", "lid_mean_draws",
           "lid_of_samples", "static_space_lid"]

#: The Swiss-roll criterion of :func:`is_swiss_roll`.
SWISS_ROLL_MAX_LID = 2.5
SWISS_ROLL_MIN_RATIO = 2.0


def pca_project(X: np.ndarray, n_components: int) -> np.ndarray:
    """Project centred rows on their top principal directions (float64).

    Parameters
    ----------
    X : numpy.ndarray of shape (n_points, dim)
        The rows to project.
    n_components : int
        The principal directions kept.

    Returns
    -------
    numpy.ndarray of shape (n_points, n_components), float64
        The centred rows' coordinates on the top ``n_components`` right singular vectors
        (fewer columns when ``n_components`` exceeds ``min(n_points, dim)``).
    """
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:n_components].T


def manifold_indicators(P: np.ndarray, n_neighbors: int = 10, sample: int = 1500,
                        seed: int = 0) -> dict:
    """Two numbers that tell a rolled sheet from a blob in a low-dimensional projection.

    - ``lid``: the MLE local dimension of the projected points (k = ``n_neighbors``); about 2
      for a sheet, about 3 for a solid 3-D cloud;
    - ``geodesic_ratio``: the 90th percentile over point pairs of the shortest-path
      distance in the kNN graph divided by the straight-line distance. It stays near 1 for a
      flat, convex or gently bent cloud (about 1.1-1.3) and is far above 1 when the sheet is
      rolled up, because points on neighbouring turns are close in space but far along the
      sheet (about 5 for the textbook Swiss roll).

    Parameters
    ----------
    P : numpy.ndarray of shape (n_points, dim)
        The projected points (e.g. a 3-D :func:`pca_project`); at least ``n_neighbors + 2``,
        finite.
    n_neighbors : int, optional
        Neighbours of the LID estimate and of the kNN graph (default 10).
    sample : int, optional
        The points both numbers are computed on, a seeded sample of ``P`` (default 1500; every
        point when ``P`` has fewer).
    seed : int, optional
        Seed of that sample (default 0).

    Returns
    -------
    dict
        ``lid`` and ``geodesic_ratio`` (floats, above), and ``connected_share``: the share of
        the sample's point pairs the ratio is read on (joined in the kNN graph, at a non-zero
        distance).

    Raises
    ------
    ValueError
        For a ``P`` that :func:`~anisotropy.geometry.validation.check_embeddings` refuses (not
        2-D, fewer than ``n_neighbors + 2`` rows, NaN or infinite values).
    """
    P = metrics.check_embeddings(P, min_points=n_neighbors + 2)
    rows = sample_indices(P.shape[0], sample, seed)
    Q = np.asarray(P[rows], dtype=np.float64)
    lid = metrics.lid_mle(Q, k=n_neighbors)
    graph = kneighbors_graph(Q, n_neighbors=n_neighbors, mode="distance")
    geodesic = shortest_path(graph, directed=False)
    euclidean = np.linalg.norm(Q[:, None, :] - Q[None, :, :], axis=-1)
    upper = np.triu_indices(Q.shape[0], k=1)
    finite = np.isfinite(geodesic[upper]) & (euclidean[upper] > 0)
    ratio = geodesic[upper][finite] / euclidean[upper][finite]
    return {"lid": float(lid), "geodesic_ratio": float(np.percentile(ratio, 90)),
            "connected_share": float(finite.mean())}


def reference_shapes(n_points: int = 1500, sample: int = 1000, seed: int = 0) -> pd.DataFrame:
    """:func:`manifold_indicators` of three synthetic 3-D shapes that calibrate the
    Swiss-roll criterion: the textbook Swiss roll (a sheet rolled one and a half turns), a
    gently bent sheet, and a solid Gaussian cloud. One row per shape.

    Parameters
    ----------
    n_points : int, optional
        Points drawn of each shape (default 1500).
    sample : int, optional
        Points the indicators are computed on (:func:`manifold_indicators`; default 1000).
    seed : int, optional
        Seed of the shapes (stream ``reference-shapes``) and of each shape's sample (stream
        ``reference-shapes/NAME``, spaces in the name as dashes); default 0.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``shape`` (``"Swiss roll"``, ``"bent sheet"``, ``"solid cloud"``), with the
        columns ``lid``, ``geodesic_ratio`` and ``connected_share``.
    """
    rng = stream(seed, "reference-shapes")
    t = 1.5 * np.pi * (1 + 2 * rng.uniform(size=n_points))
    u = rng.uniform(-1, 1, size=n_points)
    shapes = {
        "Swiss roll": np.c_[t * np.cos(t), 20 * rng.uniform(size=n_points), t * np.sin(t)],
        "bent sheet": np.c_[10 * u, 20 * rng.uniform(size=n_points), 5 * u**2],
        "solid cloud": rng.normal(size=(n_points, 3)),
    }
    rows = [{"shape": name, **manifold_indicators(P, sample=sample, seed=stream_seed(
                seed, f"reference-shapes/{name.replace(' ', '-')}"))}
            for name, P in shapes.items()]
    return pd.DataFrame(rows).set_index("shape")


def is_swiss_roll(indicators: dict, max_lid: float = SWISS_ROLL_MAX_LID,
                  min_ratio: float = SWISS_ROLL_MIN_RATIO) -> bool:
    """The book's Swiss-roll criterion on :func:`manifold_indicators`: a sheet (local
    dimension below ``max_lid``; about 2 for a sheet, 3 for a solid cloud) that is rolled up
    (90th-percentile geodesic ratio above ``min_ratio``; 1.1 to 1.3 for flat or gently bent
    clouds, about 5 for the textbook roll).

    Parameters
    ----------
    indicators : dict
        :func:`manifold_indicators`' result; its ``lid`` and ``geodesic_ratio`` are read.
    max_lid : float, optional
        The local dimension a sheet stays below (default :data:`SWISS_ROLL_MAX_LID`, 2.5).
    min_ratio : float, optional
        The geodesic ratio a rolled sheet exceeds (default :data:`SWISS_ROLL_MIN_RATIO`, 2.0).

    Returns
    -------
    bool
        ``lid < max_lid and geodesic_ratio > min_ratio``.
    """
    return bool(indicators["lid"] < max_lid and indicators["geodesic_ratio"] > min_ratio)


def lid_mean_draws(pointwise: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap draws over points of the mean of finite pointwise LID estimates, as
    :func:`anisotropy.geometry.metrics.lid_mle` averages them.

    Parameters
    ----------
    pointwise : numpy.ndarray of shape (n_points,)
        Pointwise LID estimates (``lid_mle(..., return_pointwise=True)``); the ones that are
        not finite are left out.
    n_boot : int
        Bootstrap draws, at least 20.
    seed : int
        Seed of the resampling (:func:`~anisotropy.geometry.intervals.bootstrap_means`).

    Returns
    -------
    numpy.ndarray of shape (n_boot,)
        The mean of the finite estimates in each resample.
    """
    finite = pointwise[np.isfinite(pointwise)]
    return bootstrap_means(finite, n_boot, seed)[:, 0]


def lid_of_samples(samples: list[np.ndarray], k: int, draws_of=None
                   ) -> tuple[float, float, np.ndarray | None]:
    """The cosine LID (:func:`~anisotropy.geometry.metrics.lid_mle`) of several samples of
    points: their mean, the range of their values, and with ``draws_of`` one set of draws
    mixing the samples' (:func:`~anisotropy.claims.clusters.similarities.mix_restarts`).

    ``draws_of(r, pointwise)`` gives sample ``r``'s bootstrap draws from its pointwise
    estimates. The mixture carries what reweighting one sample cannot: a point's
    neighbours move with the sample.

    Parameters
    ----------
    samples : list of numpy.ndarray
        The samples, each ``(n_points, dim)`` with more than ``k`` points.
    k : int
        Neighbours of the LID estimate (at least 2).
    draws_of : callable, optional
        ``draws_of(r, pointwise)``, above, each sample's draws of one length; None (default):
        no draws.

    Returns
    -------
    mean : float
        The mean of the samples' cosine LIDs.
    spread : float
        Their range, largest minus smallest (0 for one sample).
    draws : numpy.ndarray or None
        The mixed draws (draw ``b`` from sample ``b mod R`` of the ``R`` samples); None
        without ``draws_of``.

    Raises
    ------
    ValueError
        For an empty ``samples``.
    """
    if not samples:
        raise ValueError("lid_of_samples needs at least one sample of points.")
    lids, draws = [], []
    for r, X in enumerate(samples):
        lid, pointwise = metrics.lid_mle(X, k=k, metric="cosine", return_pointwise=True)
        lids.append(lid)
        if draws_of is not None:
            draws.append(draws_of(r, pointwise))
    return (float(np.mean(lids)), float(np.ptp(lids)),
            mix_restarts(draws) if draws_of is not None else None)


def static_space_lid(vectors: np.ndarray, sample: int = 5000, k: int = 100,
                     seed: int = 0, n_boot: int | None = None, samples: int = 1) -> dict:
    """LID (Euclidean and cosine) of seeded samples of distinct static vectors.

    The cosine LID is the mean over ``samples`` samples of ``sample`` vectors (streams
    ``sample``, ``sample-R``; :func:`lid_of_samples`); the Euclidean LID (shown, not
    graded) is the first sample's. With ``n_boot``, ``"LID cosine draws"`` mixes each
    sample's bootstrap over its points (streams ``bootstrap/lid``, ``bootstrap/lid-R``).

    Parameters
    ----------
    vectors : numpy.ndarray of shape (n_vectors, dim)
        The static vectors (an embedding matrix); rows equal in float32 count once.
    sample : int, optional
        Vectors per sample (default 5000; every distinct vector when there are fewer).
    k : int, optional
        Neighbours of the LID estimates (default 100).
    seed : int, optional
        The root of the streams above (default 0).
    n_boot : int or None, optional
        Bootstrap draws of the cosine LID (at least 20); None (default) or 0 for none.
    samples : int, optional
        Samples the cosine LID averages, at least 1 (default 1).

    Returns
    -------
    dict
        ``n`` and ``dim`` (the first sample's vectors and dimension), ``LID euclidean`` and
        ``LID cosine`` (floats) and, with ``n_boot``, ``LID cosine draws`` (numpy.ndarray of
        shape (n_boot,)).

    Raises
    ------
    ValueError
        For ``samples`` below 1.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1; got {samples}.")
    vectors = np.unique(np.asarray(vectors, dtype=np.float32), axis=0)
    drawn = [vectors[sample_indices(vectors.shape[0], sample,
                                    stream_seed(seed, repeat_name("sample", r)))]
             for r in range(samples)]
    cosine, _, draws = lid_of_samples(drawn, k, None if not n_boot else (
        lambda r, pointwise: lid_mean_draws(pointwise, n_boot, stream_seed(
            seed, repeat_name("bootstrap/lid", r)))))
    out = {"n": int(drawn[0].shape[0]), "dim": int(drawn[0].shape[1]),
           "LID euclidean": metrics.lid_mle(drawn[0], k=k, metric="euclidean"),
           "LID cosine": cosine}
    if n_boot:
        out["LID cosine draws"] = draws
    return out
