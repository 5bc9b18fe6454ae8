"""Extraction speed per offline transformer, with all hidden states. Prints figures.

For each model: real (non-padding) tokens per second over 2,000 SNLI sentences, the padding
share, and the GFLOP/s this achieves (2 x parameters-in-blocks x tokens, plus attention) as a
fraction of the float32 GEMM GFLOP/s measured in the same run (goal >= 0.7 for MPNet and
both decoders, >= 0.6 for MiniLM). The forward time counts copying every layer into the
memory-mapped cache arrays, as the claims run it. The cache is bypassed by a private cache
directory.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

try:
    from peak import describe, gemm_rates
except ImportError:  # run as a module from the repository root
    from benchmarks.peak import describe, gemm_rates


def main() -> None:
    from anisotropy.inputs import models
    from anisotropy.inputs.tasks import corpus

    sentences = corpus("snli", 2000, seed=0)
    rates = gemm_rates()
    peak = rates["torch"]
    print(describe(rates) + "; shares below are of torch's rate")
    for name in ["sentence-transformers/all-MiniLM-L6-v2",
                 "sentence-transformers/all-mpnet-base-v2",
                 "HuggingFaceTB/SmolLM2-135M-Instruct", "google/gemma-3-270m"]:
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
