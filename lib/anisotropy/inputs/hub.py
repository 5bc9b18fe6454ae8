"""The Hugging Face hub: whether it answers, whether it has a model, and the weight formats
never fetched from it."""

from __future__ import annotations

import os
import re
import socket

__all__ = ["reachable", "has_model", "IGNORE"]


def reachable(timeout: float = 3.0) -> bool:
    """Whether the hub (``HF_ENDPOINT``) accepts a connection within ``timeout`` seconds;
    False at once under ``HF_HUB_OFFLINE=1`` or ``TRANSFORMERS_OFFLINE=1``.

    Parameters
    ----------
    timeout : float, optional
        Seconds to wait for the connection (default 3.0).

    Returns
    -------
    bool
        True when a TCP connection to port 443 of the endpoint's host (default
        ``huggingface.co``) opened.
    """
    if os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("TRANSFORMERS_OFFLINE") == "1":
        return False
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    host = re.sub(r"^https?://", "", endpoint).split("/")[0]
    try:
        with socket.create_connection((host.split(":")[0], 443), timeout=timeout):
            return True
    except OSError:
        return False


def has_model(repo_id: str, timeout: float = 10.0) -> bool | None:
    """Whether the reachable hub has ``repo_id``: True, False (no such repository, or not a
    valid id), or None when it gave no answer (the model is then tried at load time).

    Parameters
    ----------
    repo_id : str
        A model repository id, e.g. ``"sentence-transformers/all-MiniLM-L6-v2"``.
    timeout : float, optional
        Seconds to wait for the hub's answer (default 10.0).

    Returns
    -------
    bool or None
        True also for a gated repository (it exists); None as well when
        ``huggingface_hub`` is not installed.
    """
    try:
        from huggingface_hub import model_info
        from huggingface_hub.errors import (
            GatedRepoError,
            HFValidationError,
            RepositoryNotFoundError,
        )
    except ImportError:
        return None
    try:
        model_info(repo_id, timeout=timeout)
        return True
    except GatedRepoError:  # exists; access is decided when the files are fetched
        return True
    except (RepositoryNotFoundError, HFValidationError):
        return False
    except Exception:  # timeout, server error: no answer
        return None


# weight formats torch never reads: not fetched from the hub
IGNORE = ["*.h5", "*.msgpack", "*.onnx", "*.ot", "*.tflite", "onnx/*", "openvino/*",
               "coreml/*", "*.gguf"]
