"""The machine's float32 GEMM rate, which every benchmark reports its figures against."""

from __future__ import annotations

import time

import numpy as np


def gemm_rates(size: int = 4096, repeat: int = 3) -> dict[str, float]:
    """float32 GEMM GFLOP/s of torch and numpy (``size`` x ``size``, best of ``repeat``).

    Counts ``2 * size**3`` flops per product; the output is preallocated, so the figure is
    the arithmetic rate, not the cost of allocating a fresh result.
    """
    import torch

    rates = {}
    a, b = torch.randn(size, size), torch.randn(size, size)
    out = torch.empty(size, size)
    an, bn = a.numpy().copy(), b.numpy().copy()
    outn = np.empty((size, size), dtype=np.float32)
    for name, product in (("torch", lambda: torch.matmul(a, b, out=out)),
                          ("numpy", lambda: np.matmul(an, bn, out=outn))):
        product()
        best = min(_timed(product) for _ in range(repeat))
        rates[name] = 2 * size**3 / best / 1e9
    return rates


def _timed(function) -> float:
    began = time.perf_counter()
    function()
    return time.perf_counter() - began


def describe(rates: dict[str, float]) -> str:
    import os

    import torch

    return (f"float32 GEMM (4096 x 4096, {torch.get_num_threads()} threads, "
            f"{os.cpu_count()} cores): torch {rates['torch']:.0f} GFLOP/s, numpy "
            f"{rates['numpy']:.0f} GFLOP/s")
