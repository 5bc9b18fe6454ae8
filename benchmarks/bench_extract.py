"""Extraction speed per offline transformer, with all hidden states. Prints figures.

For each model: real (non-padding) tokens per second over 2,000 SNLI sentences, the padding
share, and the GFLOP/s this achieves (2 x parameters-in-blocks x tokens, plus attention) as a
fraction of the float32 GEMM GFLOP/s measured in the same run (goal >= 0.5 for MiniLM and
MPNet). The cache is bypassed by a private cache directory.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np


def gemm_gflops(size: int = 2048) -> float:
    import torch

    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    began = time.perf_counter()
    for _ in range(5):
        a @ b
    return 5 * 2 * size**3 / (time.perf_counter() - began) / 1e9


def main() -> None:
    from anisotropy.inputs import models
    from anisotropy.inputs.tasks import corpus

    sentences = corpus("snli", 2000, seed=0)
    peak = gemm_gflops()
    print(f"float32 GEMM: {peak:.1f} GFLOP/s (2048 x 2048, torch, {os.cpu_count()} cores)")
    for name in ["sentence-transformers/all-MiniLM-L6-v2",
                 "sentence-transformers/all-mpnet-base-v2",
                 "HuggingFaceTB/SmolLM2-135M-Instruct"]:
        encoder = models.load(name)
        with tempfile.TemporaryDirectory() as private:
            previous = os.environ.get("ANISOTROPY_CACHE")
            os.environ["ANISOTROPY_CACHE"] = private
            try:
                began = time.perf_counter()
                tokens = encoder.encode_tokens(sentences, progress=False)
                wall = time.perf_counter() - began
            finally:
                if previous is None:
                    os.environ.pop("ANISOTROPY_CACHE")
                else:
                    os.environ["ANISOTROPY_CACHE"] = previous
        meta = tokens.meta
        block_params = sum(p.numel() for n, p in encoder.model.named_parameters()
                           if "embed" not in n)
        mean_length = meta["n_tokens"] / len(sentences)
        attention = 4 * encoder.n_layers * encoder.dim * mean_length  # QK^T and AV per token
        flops = (2 * block_params + attention) * meta["n_tokens"]
        achieved = flops / meta["forward_seconds"] / 1e9
        print(f"{name}: {meta['tokens_per_second']:.0f} real tokens/s, padding "
              f"{meta['padding_share']:.1%}, {achieved:.1f} GFLOP/s = {achieved / peak:.2f} of "
              f"GEMM (forward {meta['forward_seconds']:.1f} s, wall {wall:.1f} s, "
              f"{meta['n_tokens']} tokens)")
        del encoder, tokens
        np.zeros(1)


if __name__ == "__main__":
    main()
