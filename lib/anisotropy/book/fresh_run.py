"""Run a claim notebook as an outside user would: nbclient (not papermill), a fresh kernel,
the notebook's own parameters cell, and only the environment given.

:func:`run_fresh` starts ``python -m anisotropy.book.fresh_run`` in a subprocess whose only
child is the notebook's kernel, so the kernel's peak resident memory is that subprocess's
``RUSAGE_CHILDREN`` maximum once the kernel has exited. Used by the outside-user test
(``tests/test_outside_user.py``) and the binder benchmark (``benchmarks/bench_binder.py``).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FreshRun", "outside_environment", "run_fresh"]

#: Variables of this project's machines that an outside user does not have.
_PROJECT_VARIABLES = ("ANISOTROPY_DATA", "ANISOTROPY_PROFILE", "ANISOTROPY_RESULTS_DIR",
                      "ANISOTROPY_DATA_MIRROR", "PYTHONPATH")


@dataclass(frozen=True)
class FreshRun:
    """One notebook's run: wall seconds, the kernel's peak RSS (MB), and its error, if any.

    Attributes
    ----------
    notebook : str
        The notebook's file name.
    seconds : float
        Wall seconds of the whole subprocess (kernel start included).
    peak_rss_mb : float
        The kernel's peak resident memory in MB; NaN when the subprocess reported none.
    error : str or None
        The failing cell's error, else the end of the subprocess's stderr when it failed,
        else None.
    """

    notebook: str
    seconds: float
    peak_rss_mb: float
    error: str | None


def outside_environment(hf_home: Path, cache: Path, build: Path,
                        base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a user with no data root and no ``../shared``: the hub is offline
    and its cache is ``hf_home`` (a real Hugging Face cache layout), the project's cache and
    build folders are fresh.

    Parameters
    ----------
    hf_home : Path
        The Hugging Face home (``HF_HOME``); the hub and datasets caches are its ``hub`` and
        ``datasets`` folders.
    cache : Path
        The project's cache (``ANISOTROPY_CACHE``).
    build : Path
        The project's build folder (``ANISOTROPY_BUILD``).
    base : dict of str to str or None, optional
        The environment to start from; default ``None``: this process's. The project's own
        variables (data roots, profile, results folder, data mirror, ``PYTHONPATH``) are
        removed from it.

    Returns
    -------
    dict of str to str
        The environment, with ``ANISOTROPY_NO_SHARED=1`` and ``HF_HUB_OFFLINE=1`` set.
    """
    env = {k: v for k, v in (base or os.environ).items() if k not in _PROJECT_VARIABLES}
    env.update({"ANISOTROPY_NO_SHARED": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(hf_home),
                "HF_HUB_CACHE": str(Path(hf_home) / "hub"),
                "HF_DATASETS_CACHE": str(Path(hf_home) / "datasets"),
                "ANISOTROPY_CACHE": str(cache), "ANISOTROPY_BUILD": str(build)})
    return env


def run_fresh(notebook: Path, out: Path, env: dict[str, str], timeout: int = 900) -> FreshRun:
    """Execute ``notebook`` in a fresh kernel started with ``env`` (working directory: the
    notebook's folder), write the executed copy to ``out``, and measure it.

    Parameters
    ----------
    notebook : Path
        The notebook to run.
    out : Path
        Where the executed copy is written (also when a cell fails).
    env : dict of str to str
        The subprocess's whole environment, which the kernel inherits
        (:func:`outside_environment`).
    timeout : int, optional
        Seconds nbclient allows each cell; the subprocess is given 120 s more in all.
        Default 900.

    Returns
    -------
    FreshRun
        The notebook's file name, the wall seconds, the kernel's peak RSS in MB (NaN when
        the subprocess reported none) and the error: the failing cell's, else the end of the
        subprocess's stderr when it failed, else None.

    Raises
    ------
    subprocess.TimeoutExpired
        When the subprocess runs longer than ``timeout`` + 120 seconds.
    """
    began = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "anisotropy.book.fresh_run", str(notebook), str(out),
         str(timeout)], env=env, capture_output=True, text=True, timeout=timeout + 120)
    seconds = time.perf_counter() - began
    report = {}
    for line in completed.stdout.splitlines()[::-1]:
        if line.startswith("{"):
            report = json.loads(line)
            break
    error = report.get("error") or (None if completed.returncode == 0 else
                                    completed.stderr[-3000:] or f"exit {completed.returncode}")
    return FreshRun(Path(notebook).name, seconds, report.get("peak_rss_mb", float("nan")),
                    error)


def _main(notebook: str, out: str, timeout: str) -> int:
    import nbclient
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=int(timeout), kernel_name="python3",
                                     resources={"metadata": {"path": str(Path(notebook).parent)}})
    error = None
    try:
        client.execute()
    except Exception as caught:  # a failing cell: report it, keep the partial notebook
        error = f"{type(caught).__name__}: {str(caught)[-3000:]}"
    nbformat.write(nb, out)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"peak_rss_mb": peak_kb / 1024, "error": error}))
    return 0 if error is None else 1


if __name__ == "__main__":
    sys.exit(_main(*sys.argv[1:4]))
