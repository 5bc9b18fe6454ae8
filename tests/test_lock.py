"""The lock files: complete, hashed, and consistent with the human-readable requirements."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from anisotropy.inputs.data import PROJECT_ROOT


def _requirements(name: str) -> list[Requirement]:
    lines = (PROJECT_ROOT / name).read_text(encoding="utf-8").splitlines()
    return [Requirement(line.split("#")[0].strip()) for line in lines
            if line.split("#")[0].strip()]


def _locked(name: str) -> dict[str, tuple[str, list[str]]]:
    """``{canonical name: (version, [sha256, ...])}`` of a pip-compile style lock."""
    text = (PROJECT_ROOT / name).read_text(encoding="utf-8")
    out = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        pin = re.match(r"([A-Za-z0-9_.\-]+)==(\S+)", block)
        if pin:
            out[canonicalize_name(pin.group(1))] = (pin.group(2),
                                                    re.findall(r"sha256:([0-9a-f]{64})", block))
    return out


@pytest.mark.parametrize("source, lock", [("requirements.txt", "requirements.lock"),
                                          ("requirements-models.txt",
                                           "requirements-models.lock")])
def test_every_requirement_is_locked_with_hashes(source, lock):
    locked = _locked(lock)
    assert locked, f"{lock} pins nothing"
    for name, (version, hashes) in locked.items():
        assert hashes, f"{lock}: {name}=={version} has no sha256"
    for requirement in _requirements(source):
        name = canonicalize_name(requirement.name)
        if name == "torch":  # installed first, by version, as the CPU wheel (Makefile)
            assert str(requirement.specifier) == "==2.13.0"
            assert name not in locked
            continue
        assert name in locked, f"{source} asks for {requirement}; {lock} does not pin it " \
                               "(run scripts/lock.sh)"
        assert requirement.specifier.contains(locked[name][0], prereleases=True), (
            f"{lock} pins {name}=={locked[name][0]}, outside {source}'s {requirement}")


def test_lock_pulls_no_cuda_and_the_makefile_installs_torch_by_version():
    locked = _locked("requirements.lock")
    assert not [n for n in locked if n.startswith(("nvidia-", "cuda-")) or n == "triton"]
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "TORCH := torch==2.13.0" in makefile
    assert "--require-hashes --no-deps -r requirements.lock" in makefile


def test_the_installed_environment_is_consistent():
    """``pip check`` finds every dependency of the locked packages installed (the lock is
    complete); only the model packages' declared dependencies, installed on purpose without
    them, are missing."""
    models = set(_locked("requirements-models.lock"))
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True,
                          text=True)
    problems = [line for line in done.stdout.splitlines() if line.strip()
                and canonicalize_name(line.split()[0]) not in models
                and not line.startswith("No broken requirements")]
    assert not problems, "\n".join(problems)
