"""Post-processing transforms with scikit-learn style ``fit`` / ``transform``.

A transform is fitted on one set of vectors and applied to another, so the book can report
both the *transductive* setting (fit on the evaluation data, as several original codes do)
and the *inductive* one (fit elsewhere).

=====================  ========================================================================
:class:`Center`        subtract the mean
:class:`AllButTheTop`  centre, then remove the top principal directions (Mu & Viswanath 2018)
:class:`ClusterIsotropy`  per-cluster centring and dominant-direction removal (Rajaee & Pilehvar
                       2021)
:class:`Whitening`     :math:`(x-\\mu)\\,U\\,\\mathrm{diag}(1/\\sqrt{s})` (Su et al. 2021)
=====================  ========================================================================
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.linalg import eigh

from anisotropy.geometry.metrics import check_embeddings

__all__ = ["Center", "AllButTheTop", "ClusterIsotropy", "Whitening"]


class _Transform:
    """Shared fit/transform plumbing: input checks and the fitted flag."""

    dim_: int

    def _check_fit_input(self, X, min_points: int = 2) -> np.ndarray:
        X = check_embeddings(X, min_points=min_points)
        self.dim_ = X.shape[1]
        return np.asarray(X, dtype=np.float64)

    def _check_transform_input(self, X) -> np.ndarray:
        if not hasattr(self, "dim_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit(X) first.")
        X = check_embeddings(X, min_points=1)
        if X.shape[1] != self.dim_:
            raise ValueError(
                f"{type(self).__name__} was fitted on {self.dim_} dimensions; got {X.shape[1]}."
            )
        return np.asarray(X, dtype=np.float64)

    def fit_transform(self, X) -> np.ndarray:
        """Fit on ``X`` and return its transform.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors to fit on and transform, one per row.

        Returns
        -------
        numpy.ndarray, float64
            ``self.fit(X).transform(X)``.
        """
        return self.fit(X).transform(X)

    def fit(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def transform(self, X) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


def _top_directions(centred: np.ndarray, n_components: int) -> np.ndarray:
    """The top ``n_components`` principal directions (rows) of already-centred data ``X``
    (``n x d``), at most ``min(n, d)`` of them: the leading right singular vectors of X.

    They are computed from the smaller of the two Gram matrices, only the ``k`` leading
    eigenpairs (``scipy.linalg.eigh`` with ``subset_by_index``): for ``n < d`` the
    eigenvectors ``u`` of ``X X^T`` give ``v = X^T u / ||X^T u||``, otherwise the
    eigenvectors of ``X^T X`` are the directions. The SVD of X gives the same directions
    (up to sign, which the projections do not see) at several times the cost; it is used
    when a wanted direction has no variance (rank-deficient data), where the directions are
    not determined by the data and the Gram route cannot normalise them.
    """
    if n_components == 0:
        return np.zeros((0, centred.shape[1]))
    n, d = centred.shape
    k = min(n_components, n, d)
    small = min(n, d)
    gram = centred @ centred.T if n < d else centred.T @ centred
    values, vectors = eigh(gram, subset_by_index=[small - k, small - 1])
    if values[0] <= 1e-10 * max(values[-1], np.finfo(float).tiny):
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        return vt[:n_components]
    vectors = vectors[:, ::-1]
    if n >= d:
        return vectors.T
    directions = centred.T @ vectors
    return (directions / np.linalg.norm(directions, axis=0)).T


def _remove(centred: np.ndarray, directions: np.ndarray) -> np.ndarray:
    return centred - (centred @ directions.T) @ directions


class Center(_Transform):
    """Subtract the mean of the fitted data: :math:`x \\mapsto x - \\mu`."""

    def fit(self, X) -> Center:
        """Store the mean of ``X`` as ``mean_``.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors to fit on, one per row; finite, at least one.

        Returns
        -------
        Center
            ``self``, fitted.
        """
        self.mean_ = self._check_fit_input(X, min_points=1).mean(axis=0)
        return self

    def transform(self, X) -> np.ndarray:
        """Subtract the fitted mean.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors, one per row, in the fitted dimension.

        Returns
        -------
        numpy.ndarray of shape (n_points, dim), float64
            :math:`x - \\mu` for each row.

        Raises
        ------
        RuntimeError
            If the transform is not fitted.
        ValueError
            For an ``X`` that is not 2-D, is empty or not finite, or whose dimension is not
            the fitted one.
        """
        return self._check_transform_input(X) - self.mean_


class AllButTheTop(_Transform):
    """All-but-the-top (Mu & Viswanath 2018): centre, then remove the top D directions.

    .. math:: \\tilde x = x - \\mu, \\qquad
              x' = \\tilde x - \\sum_{i=1}^{D} (u_i^\\top \\tilde x)\\,u_i

    where :math:`u_i` are the top principal directions of the *centred* fitted data. (The
    popular gist projects the uncentred vectors, which leaves the mean direction in.)

    Parameters
    ----------
    n_components : int
        D, the number of dominant directions removed (Mu & Viswanath: about dim/100).

    References
    ----------
    Mu, J., Viswanath, P. (2018). All-but-the-top. ICLR.
    """

    def __init__(self, n_components: int):
        if n_components < 0:
            raise ValueError(f"n_components must be >= 0, got {n_components}.")
        self.n_components = n_components

    def fit(self, X) -> AllButTheTop:
        """Fit the mean ``mean_`` and the top ``n_components`` principal directions
        ``components_`` (rows, ``(n_components, dim)``) of the centred ``X``.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors to fit on, one per row; finite, at least 2, with
            ``n_components <= min(n_points, dim)``.

        Returns
        -------
        AllButTheTop
            ``self``, fitted.

        Raises
        ------
        ValueError
            For an ``X`` that is not 2-D, not finite or of fewer than 2 rows, or
            ``n_components`` above ``min(n_points, dim)``.
        """
        X = self._check_fit_input(X)
        if self.n_components > min(X.shape):
            raise ValueError(
                f"n_components={self.n_components} exceeds min(n_points, dim)={min(X.shape)}."
            )
        self.mean_ = X.mean(axis=0)
        self.components_ = _top_directions(X - self.mean_, self.n_components)
        return self

    def transform(self, X) -> np.ndarray:
        """Centre with the fitted mean and remove the fitted directions.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors, one per row, in the fitted dimension.

        Returns
        -------
        numpy.ndarray of shape (n_points, dim), float64
            :math:`x'` for each row.

        Raises
        ------
        RuntimeError
            If the transform is not fitted.
        ValueError
            For an ``X`` that is not 2-D, is empty or not finite, or whose dimension is not
            the fitted one.
        """
        return _remove(self._check_transform_input(X) - self.mean_, self.components_)


class ClusterIsotropy(_Transform):
    """Cluster-based isotropy enhancement (Rajaee & Pilehvar 2021).

    1. Cluster the fitted vectors (K-means, or a Gaussian mixture with ``method="gmm"``).
    2. In each cluster :math:`c`, subtract its mean :math:`\\mu_c`.
    3. Remove the top ``n_components`` principal directions of the centred cluster.

    ``transform`` assigns new vectors to the nearest fitted cluster and applies that
    cluster's mean and directions. Clusters with fewer points than ``n_components + 1``
    remove only as many directions as their rank allows.

    Parameters
    ----------
    n_clusters : int
        K (the authors' code: 27).
    n_components : int
        D, dominant directions removed per cluster (the authors' code: 12). 0 gives the
        "K-means + Mean" row.
    method : {"kmeans", "gmm"}
    seed : int
    n_init : int
        K-means restarts (the best inertia is kept).

    References
    ----------
    Rajaee, S., Pilehvar, M. T. (2021). A cluster-based approach for improving isotropy in
    contextual embedding space. ACL.
    """

    #: The Gaussian mixture of ``method="gmm"`` (the paper does not give its settings).
    GMM_SETTINGS = {"covariance_type": "diag", "reg_covar": 1e-4, "max_iter": 100}

    def __init__(self, n_clusters: int, n_components: int, method: str = "kmeans",
                 seed: int = 0, n_init: int = 3):
        if n_clusters < 1:
            raise ValueError(f"n_clusters must be >= 1, got {n_clusters}.")
        if n_components < 0:
            raise ValueError(f"n_components must be >= 0, got {n_components}.")
        if method not in ("kmeans", "gmm"):
            raise ValueError(f"method must be 'kmeans' or 'gmm', got {method!r}.")
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.method = method
        self.seed = seed
        self.n_init = n_init

    def fit(self, X) -> ClusterIsotropy:
        """Cluster ``X`` and fit each cluster's mean and top directions.

        Sets ``labels_`` (the cluster of each row), ``means_`` (``(n_clusters, dim)``; zero
        for an empty cluster) and ``components_`` (one ``(r, dim)`` array of directions per
        cluster, ``r = min(n_components, cluster size - 1, dim)``).

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors to fit on, one per row; finite, at least 2 and at least
            ``n_clusters``.

        Returns
        -------
        ClusterIsotropy
            ``self``, fitted.

        Raises
        ------
        ValueError
            For an ``X`` that is not 2-D, not finite or of fewer than 2 rows, or fewer rows
            than ``n_clusters``.
        """
        X = self._check_fit_input(X)
        if self.n_clusters > X.shape[0]:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds n_points={X.shape[0]}.")
        labels = self._cluster(X)
        self.labels_ = labels
        self.means_ = np.zeros((self.n_clusters, X.shape[1]))
        self.components_ = []
        for cluster in range(self.n_clusters):
            members = X[labels == cluster]
            if members.shape[0] == 0:
                self.components_.append(np.zeros((0, X.shape[1])))
                continue
            self.means_[cluster] = members.mean(axis=0)
            centred = members - self.means_[cluster]
            rank = min(self.n_components, max(members.shape[0] - 1, 0), X.shape[1])
            self.components_.append(_top_directions(centred, rank))
        return self

    def with_components(self, n_components: int) -> ClusterIsotropy:
        """A copy that removes only the top ``n_components`` directions per cluster.

        The clustering and per-cluster SVD are reused: the directions are the leading right
        singular vectors, so truncating them is exactly what fitting with fewer would give.

        Parameters
        ----------
        n_components : int
            Directions removed per cluster, at most the fitted ``n_components``.

        Returns
        -------
        ClusterIsotropy
            A shallow copy of ``self`` (it shares the clustering and means) whose
            ``components_`` keep each cluster's first ``n_components`` directions.

        Raises
        ------
        RuntimeError
            If ``self`` is not fitted.
        ValueError
            For ``n_components`` above the fitted one.
        """

        if not hasattr(self, "components_"):
            raise RuntimeError("ClusterIsotropy is not fitted; call fit(X) first.")
        if n_components > self.n_components:
            raise ValueError(f"Can only reduce components: fitted with {self.n_components}, "
                             f"asked for {n_components}.")
        other = copy.copy(self)
        other.n_components = n_components
        other.components_ = [c[:n_components] for c in self.components_]
        return other

    def _cluster(self, X: np.ndarray) -> np.ndarray:
        if self.n_clusters == 1:
            self._assigner = None
            return np.zeros(X.shape[0], dtype=int)
        if self.method == "kmeans":
            from sklearn.cluster import KMeans

            model = KMeans(n_clusters=self.n_clusters, n_init=self.n_init,
                           random_state=self.seed)
        else:
            from sklearn.mixture import GaussianMixture

            model = GaussianMixture(n_components=self.n_clusters, random_state=self.seed,
                                    **self.GMM_SETTINGS)
        labels = model.fit_predict(X)
        self._assigner = model
        return np.asarray(labels)

    def predict(self, X) -> np.ndarray:
        """Cluster of each row of ``X`` under the fitted clustering.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors, one per row, in the fitted dimension.

        Returns
        -------
        numpy.ndarray of int, shape (n_points,)
            The fitted cluster (K-means or mixture) of each row; all 0 with one cluster.

        Raises
        ------
        RuntimeError
            If the transform is not fitted.
        ValueError
            For an ``X`` that is not 2-D, is empty or not finite, or whose dimension is not
            the fitted one.
        """
        X = self._check_transform_input(X)
        if self._assigner is None:
            return np.zeros(X.shape[0], dtype=int)
        return np.asarray(self._assigner.predict(X))

    def transform(self, X) -> np.ndarray:
        """Assign each row to its fitted cluster (:meth:`predict`), subtract that cluster's
        mean and remove its directions.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors, one per row, in the fitted dimension.

        Returns
        -------
        numpy.ndarray of shape (n_points, dim), float64
            The transformed rows, in the order of ``X``.

        Raises
        ------
        RuntimeError
            If the transform is not fitted.
        ValueError
            For an ``X`` that is not 2-D, is empty or not finite, or whose dimension is not
            the fitted one.
        """
        X = self._check_transform_input(X)
        labels = self.predict(X)
        out = np.empty_like(X)
        for cluster in np.unique(labels):
            rows = labels == cluster
            out[rows] = _remove(X[rows] - self.means_[cluster], self.components_[cluster])
        return out


class Whitening(_Transform):
    """BERT-whitening (Su et al. 2021): map to zero mean and identity covariance.

    With :math:`\\mu` the mean and :math:`\\Sigma = U\\,\\mathrm{diag}(s)\\,U^\\top` the SVD of
    the covariance of the fitted vectors,

    .. math:: W = U\\,\\mathrm{diag}(1/\\sqrt{s}), \\qquad x' = (x - \\mu)\\,W_{[:, :k]}

    keeping the first ``n_components`` columns (k) for the reduced variant.

    Parameters
    ----------
    n_components : int, optional
        Output dimension k (None keeps all). Su et al. report k = 256 for BERT-base.
    eps : float
        Added to the eigenvalues to keep rank-deficient data finite.

    References
    ----------
    Su, J., Cao, J., Liu, W., Ou, Y. (2021). Whitening sentence representations for better
    semantics and faster retrieval. arXiv:2103.15316.
    """

    def __init__(self, n_components: int | None = None, eps: float = 1e-8):
        if n_components is not None and n_components < 1:
            raise ValueError(f"n_components must be >= 1 or None, got {n_components}.")
        self.n_components = n_components
        self.eps = eps

    def fit(self, X) -> Whitening:
        """Fit the mean (``bias_ = -mean_``) and the kernel ``kernel_`` (``(dim, k)``, the
        first k columns of :math:`W`) from the covariance of ``X`` (``np.cov``, ``ddof=1``).

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors to fit on, one per row; finite, at least 2.

        Returns
        -------
        Whitening
            ``self``, fitted.

        Raises
        ------
        ValueError
            For an ``X`` that is not 2-D, not finite or of fewer than 2 rows, or
            ``n_components`` above ``dim``.
        """
        X = self._check_fit_input(X)
        k = self.n_components or X.shape[1]
        if k > X.shape[1]:
            raise ValueError(f"n_components={k} exceeds dim={X.shape[1]}.")
        self.mean_ = X.mean(axis=0)
        covariance = np.cov(X - self.mean_, rowvar=False)
        # the covariance is symmetric: its eigendecomposition is its SVD (Su et al. take the
        # SVD), at about half the cost; largest eigenvalues first, rounding below 0 clipped
        s, u = np.linalg.eigh(covariance)
        s, u = np.clip(s[::-1], 0.0, None), u[:, ::-1]
        self.kernel_ = (u / np.sqrt(s + self.eps))[:, :k]
        self.bias_ = -self.mean_
        return self

    def transform(self, X) -> np.ndarray:
        """Whiten: :math:`(x - \\mu)\\,W_{[:, :k]}`.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors, one per row, in the fitted dimension.

        Returns
        -------
        numpy.ndarray of shape (n_points, k), float64
            The whitened rows (``k = n_components``, or ``dim`` when None).

        Raises
        ------
        RuntimeError
            If the transform is not fitted.
        ValueError
            For an ``X`` that is not 2-D, is empty or not finite, or whose dimension is not
            the fitted one.
        """
        return (self._check_transform_input(X) + self.bias_) @ self.kernel_
