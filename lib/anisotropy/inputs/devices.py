"""Where forward passes run and in which precision: ``device="auto"`` and ``dtype``.

:func:`select_device` turns a request into a torch device string: ``"auto"`` picks CUDA when
available, else Apple's MPS, else the CPU; ``"cpu"``, ``"cuda"``, ``"cuda:N"`` and ``"mps"``
name one, and a named accelerator that is not available is refused. :func:`select_dtype`
checks a precision: ``float32`` everywhere (the default, and what every number of the book
is computed in), ``float16`` and ``bfloat16`` on accelerators only.

Only extraction (the models' forward passes) moves to an accelerator. Hidden states come
back to the CPU as float32, and every analysis, and claim 5's classifier, runs on the CPU,
so cached vectors made on a GPU serve CPU jobs unchanged (the cache key holds the dtype,
not the device, and each entry records the device that made it).
"""

from __future__ import annotations

import re

__all__ = ["DEVICE_CHOICES", "DTYPE_CHOICES", "check_device_name", "select_device",
           "select_dtype", "available_devices"]

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
DTYPE_CHOICES = ("float32", "float16", "bfloat16")
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")


def _torch():
    import torch

    return torch


def check_device_name(requested) -> str:
    """Check that ``requested`` is a device name this module knows (without asking torch
    what is present; :func:`select_device` does that). Raises ValueError otherwise.

    Parameters
    ----------
    requested : str
        ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"mps"``.

    Returns
    -------
    str
        ``requested``, unchanged.

    Raises
    ------
    ValueError
        When ``requested`` is not a string or not one of those names.
    """
    if not isinstance(requested, str) or not _DEVICE.match(requested):
        raise ValueError(f"device must be one of {list(DEVICE_CHOICES)} or 'cuda:N'; got "
                         f"{requested!r}.")
    return requested


def available_devices(torch=None) -> list[str]:
    """Devices this process can use: ``cpu``, ``cuda:0``.. and ``mps`` where present.

    Parameters
    ----------
    torch : module, optional
        The torch module to ask (tests pass a stand-in); default the installed torch.

    Returns
    -------
    list of str
        ``"cpu"``, then ``"cuda:N"`` for each CUDA device, then ``"mps"`` when available.
    """
    torch = torch or _torch()
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        found.append("mps")
    return found


def select_device(requested: str = "auto", torch=None) -> str:
    """The torch device to run forward passes on.

    Parameters
    ----------
    requested : str, optional
        ``"auto"`` (CUDA, else MPS, else CPU; the default), ``"cpu"``, ``"cuda"``,
        ``"cuda:N"`` or ``"mps"``.
    torch : module, optional
        The torch module to ask (tests pass a stand-in); default the installed torch.

    Returns
    -------
    str
        The device: ``"auto"`` gives ``"cuda"``, ``"mps"`` or ``"cpu"``; a named device is
        returned as given.

    Raises
    ------
    ValueError
        For a malformed name, or an accelerator this machine does not have; the message
        names the value and the devices available.
    """
    check_device_name(requested)
    torch = torch or _torch()
    available = available_devices(torch)
    if requested == "auto":
        if torch.cuda.is_available():
            return "cuda"
        return "mps" if "mps" in available else "cpu"
    if requested == "cpu":
        return "cpu"
    if requested == "mps":
        if "mps" not in available:
            raise ValueError(f"device 'mps' is not available here; available: {available}. "
                             "Use device='auto' or 'cpu'.")
        return "mps"
    index = int(requested.split(":")[1]) if ":" in requested else 0
    if f"cuda:{index}" not in available:
        raise ValueError(f"device {requested!r} is not available here; available: "
                         f"{available}. Use device='auto' or 'cpu'.")
    return requested


def select_dtype(dtype: str = "float32", device: str = "cpu") -> str:
    """Check a forward-pass precision for a device and return its name.

    ``float32`` is allowed everywhere; ``float16`` and ``bfloat16`` only on an accelerator
    (``cuda``/``mps``), where they are what makes large models fast. Hidden states are
    returned as float32 whatever the precision.

    Parameters
    ----------
    dtype : str, optional
        ``"float32"`` (default), ``"float16"`` or ``"bfloat16"``.
    device : str, optional
        The device type the forward passes run on (:class:`~anisotropy.inputs.encoders.Encoder`
        passes its device without an index); default ``"cpu"``. Only ``"cpu"`` refuses
        a half precision.

    Returns
    -------
    str
        ``dtype``, unchanged.

    Raises
    ------
    ValueError
        For an unknown precision, or a half precision on the CPU.
    """
    if dtype not in DTYPE_CHOICES:
        raise ValueError(f"dtype must be one of {list(DTYPE_CHOICES)}; got {dtype!r}.")
    if dtype != "float32" and device == "cpu":
        raise ValueError(f"dtype {dtype!r} is meant for accelerators; on the CPU use "
                         "'float32' (the book's numbers are all float32).")
    return dtype
