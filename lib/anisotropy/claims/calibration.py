"""Sentence-embedding calibration: a normalizing flow (BERT-flow) and its evaluation.

The flow is ``zuko``'s RealNVP (affine coupling layers, the family of the Glow model that
BERT-flow used), fitted by maximum likelihood on unlabelled sentence vectors. Vectors are
first centred and divided by one global scale (their geometry is kept), then mapped to the
latent space; similarity is the cosine there, as in Li et al. (2020).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anisotropy.geometry.metrics import check_embeddings

__all__ = ["FlowCalibration"]


@dataclass
class FlowCalibration:
    """Fit/transform wrapper around a RealNVP flow.

    Parameters
    ----------
    n_steps : int
        Adam steps of maximum likelihood on mini-batches.
    batch_size, learning_rate : int, float
    transforms : int
        Coupling layers.
    hidden : int
        Width of the two hidden layers of each coupling network.
    seed : int

    References
    ----------
    Li, B., Zhou, H., He, J., Wang, M., Yang, Y., Li, L. (2020). On the sentence embeddings
    from pre-trained language models. EMNLP. Dinh, L., Sohl-Dickstein, J., Bengio, S. (2017).
    Density estimation using Real NVP. ICLR.
    """

    n_steps: int = 400
    batch_size: int = 256
    learning_rate: float = 1e-3
    transforms: int = 4
    hidden: int = 512
    seed: int = 0

    def fit(self, X) -> FlowCalibration:
        import torch
        import zuko

        X = np.asarray(check_embeddings(X, min_points=2), dtype=np.float32)
        self.mean_ = X.mean(axis=0)
        self.scale_ = float((X - self.mean_).std()) or 1.0
        data = torch.tensor((X - self.mean_) / self.scale_)
        torch.manual_seed(self.seed)
        self.flow_ = zuko.flows.RealNVP(features=X.shape[1], transforms=self.transforms,
                                        hidden_features=(self.hidden, self.hidden))
        optimizer = torch.optim.Adam(self.flow_.parameters(), lr=self.learning_rate)
        generator = torch.Generator().manual_seed(self.seed)
        self.losses_ = []
        for _ in range(self.n_steps):
            batch = data[torch.randint(0, data.shape[0], (min(self.batch_size, data.shape[0]),),
                                       generator=generator)]
            loss = -self.flow_().log_prob(batch).mean() / X.shape[1]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            self.losses_.append(float(loss.detach()))
        return self

    def transform(self, X) -> np.ndarray:
        """Latent vectors z = f((x - mean) / scale), float64."""
        import torch

        if not hasattr(self, "flow_"):
            raise RuntimeError("FlowCalibration is not fitted; call fit(X) first.")
        X = np.asarray(check_embeddings(X, min_points=1), dtype=np.float32)
        if X.shape[1] != self.mean_.shape[0]:
            raise ValueError(f"Fitted on {self.mean_.shape[0]} dimensions; got {X.shape[1]}.")
        with torch.no_grad():
            z = self.flow_().transform(torch.tensor((X - self.mean_) / self.scale_))
        return z.numpy().astype(np.float64)

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)
