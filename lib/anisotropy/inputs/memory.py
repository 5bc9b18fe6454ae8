"""Handing freed memory back to the system between a run's heavy phases.

glibc keeps memory a process has freed (heap fragments, its arenas) for reuse, so after a
model's forward passes or a fine-tuning run the resident size stays near the phase's peak
and the next phase's peak adds to it. :func:`free_memory` collects garbage and calls
glibc's ``malloc_trim(0)``, which returns free pages to the system; elsewhere (macOS,
musl) it only collects garbage. The values computed are unchanged.

A process started with ``MALLOC_TRIM_THRESHOLD_`` set asked glibc to keep what it frees:
the book's runner does so for its kernels, because on virtual machines where touching fresh
memory is slow, reusing freed memory roughly halves claim 1's analysis time. There,
:func:`free_memory` leaves the memory where it is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os

__all__ = ["free_memory"]


@functools.cache
def _malloc_trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def free_memory() -> bool:
    """Collect garbage and return freed heap memory to the system; True when glibc's
    ``malloc_trim`` ran (not where glibc is absent or ``MALLOC_TRIM_THRESHOLD_`` is set).

    Returns
    -------
    bool
        Whether ``malloc_trim(0)`` was called; garbage is collected either way.
    """
    gc.collect()
    trim = _malloc_trim()
    if trim is None or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False
    trim(0)
    return True
