"""Device and precision selection, with stand-ins for torch's CUDA and MPS queries (this
machine has neither; what has not run on a GPU is listed in the README)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from anisotropy.inputs import devices


def fake_torch(cuda: int = 0, mps: bool = False):
    return SimpleNamespace(
        cuda=SimpleNamespace(is_available=lambda: cuda > 0, device_count=lambda: cuda),
        backends=SimpleNamespace(mps=SimpleNamespace(is_available=lambda: mps)))


@pytest.mark.parametrize(("cuda", "mps", "expected"), [
    (0, False, "cpu"), (1, False, "cuda"), (0, True, "mps"), (2, True, "cuda")])
def test_auto_prefers_cuda_then_mps_then_cpu(cuda, mps, expected):
    assert devices.select_device("auto", torch=fake_torch(cuda, mps)) == expected


def test_named_devices_are_checked_against_what_is_present():
    torch = fake_torch(cuda=2)
    assert devices.select_device("cpu", torch=torch) == "cpu"
    assert devices.select_device("cuda", torch=torch) == "cuda"
    assert devices.select_device("cuda:1", torch=torch) == "cuda:1"
    with pytest.raises(ValueError, match=r"'cuda:2' is not available here; available: "
                                         r"\['cpu', 'cuda:0', 'cuda:1'\]"):
        devices.select_device("cuda:2", torch=torch)
    with pytest.raises(ValueError, match="'mps' is not available"):
        devices.select_device("mps", torch=torch)
    with pytest.raises(ValueError, match="'cuda' is not available"):
        devices.select_device("cuda", torch=fake_torch())


@pytest.mark.parametrize("bad", ["gpu", "CUDA", "cuda:x", "", None, 3])
def test_malformed_device_names_are_refused(bad):
    with pytest.raises(ValueError, match="device must be one of"):
        devices.select_device(bad, torch=fake_torch())


def test_dtype_half_precision_only_on_accelerators():
    assert devices.select_dtype("float32", "cpu") == "float32"
    assert devices.select_dtype("bfloat16", "cuda") == "bfloat16"
    assert devices.select_dtype("float16", "mps") == "float16"
    with pytest.raises(ValueError, match="meant for accelerators"):
        devices.select_dtype("float16", "cpu")
    with pytest.raises(ValueError, match="dtype must be one of"):
        devices.select_dtype("float64", "cuda")


def test_this_machine_resolves_auto_with_real_torch():
    assert devices.select_device("auto") in devices.available_devices()


def test_runner_refuses_a_malformed_device_before_a_kernel_starts():
    from anisotropy.book.runner import RunError, resolve_settings

    with pytest.raises(RunError, match="device must be one of"):
        resolve_settings("01-layerwise-anisotropy", "smoke", {"device": "gpu"})
    with pytest.raises(RunError, match="dtype"):
        resolve_settings("01-layerwise-anisotropy", "smoke", {"dtype": "float64"})
    settings = resolve_settings("01-layerwise-anisotropy", "smoke", {"device": "cuda:0"})
    assert settings.device == "cuda:0"


def test_cli_device_options_become_parameters():
    import argparse

    from anisotropy.__main__ import _device_overrides

    args = argparse.Namespace(device="cpu", dtype=None)
    assert _device_overrides(args) == {"device": "cpu"}


@pytest.mark.models
def test_encoder_records_device_and_dtype_and_keeps_float32_keys():
    from anisotropy.inputs import models
    from anisotropy.inputs.extraction import _description

    encoder = models.load("minilm", device="auto")
    record = encoder.describe()
    assert record["device"] == "cpu" and record["dtype"] == "float32"
    assert "dtype" not in _description(encoder, ["a b"], "tokens")  # float32 keys unchanged
    with pytest.raises(ValueError, match="meant for accelerators"):
        models.load("minilm", dtype="bfloat16")
