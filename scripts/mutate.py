"""Mutation test of the library: would the tests notice a plausible regression?

Each entry of :data:`MUTATIONS` is a bug a developer could plausibly introduce into
``lib/anisotropy`` (a sign error, a dropped centring, a layer off by one, special tokens
kept, another pooling, a flow left untrained, IsoScore centred on the wrong axis, a wrong
interval percentile, a cache key without the model, Pearson for Spearman, ...): one exact
piece of source (``old``, found exactly once in its file) and its replacement (``new``),
with the claims whose smoke results it can change (``claims``) and why it is wrong
(``why``). The script applies them one at a time to a scratch copy of the project and
asks what catches each:

1. the fast tests, run in the copy with the mutated library first on the path
   (:data:`FAST_TESTS`: every test outside the markers ``notebooks``, ``slow``,
   ``workflow`` and ``book``; ``-x``, so a mutation stops at its first failing test);
2. if they all pass, each of the mutation's claims in the smoke profile (``anisotropy run
   SLUG --profile smoke`` in the copy, with a fresh empty cache, as ``make test`` has); a
   run that fails kills the mutation ("the notebook failed");
3. then the comparison CI makes, run in the real project on the unmutated code: the
   tests ``test_smoke_run_verdicts_and_bands`` and ``test_smoke_run_values`` of
   ``tests/test_notebooks.py`` for those claims, reading the mutated runs' results files
   (``ANISOTROPY_SMOKE_RESULTS``, the ``smoke_runs`` fixture's hook in
   ``tests/conftest.py``): verdicts, bands of ``tests/expected/smoke.yaml`` and values of
   ``tests/expected/smoke-values.json``.

A mutation is *killed* when any step fails, and *survives* otherwise. It never runs in CI:
it takes an hour or more on 2 cores, several when many mutations pass the fast tests (a
few minutes of fast tests per mutation, then one to six smoke runs of a few minutes each,
each with a cold cache, for every mutation that passes them). Run it in the background;
it resumes where it stopped.

Work folder (``--work``, default ``_build/mutate``):

- ``tree/``: the scratch copy of the project's working tree (everything but ``.git``,
  ``.venv``, ``_build``, ``__pycache__``, ``.pytest_cache``, ``.hypothesis``,
  ``.ruff_cache`` and ``*.egg-info``), copied afresh at every start so that it matches the
  project. A mutation is written into it and the original restored afterwards, also on an
  error or Ctrl-C. Its processes import the copy's library (``PYTHONPATH=tree/lib``, checked
  at the start), read the data from ``../shared/data`` beside the project when it exists
  (``ANISOTROPY_DATA``), run on one thread (``OMP/MKL/OPENBLAS_NUM_THREADS=1``) and see no
  git repository (``GIT_CEILING_DIRECTORIES``: the copy sits inside the project's
  checkout, whose commit is not the copy's);
- ``baseline.json``: the fast tests of the unmutated copy, run first (again when the
  project changed): a test that fails there would "kill" every mutation, so the script
  stops and names it instead;
- ``NAME/``: one mutation: ``outcome.json`` (its result; a mutation that has one is
  skipped unless ``--again``), ``fast-tests.log``, ``run-SLUG.log``, ``comparison.log``
  and ``build/smoke/results/SLUG.json`` (the mutated smoke runs; the cache is deleted
  after the runs);
- ``report.md``: the table below.

The fast tests need nothing the copy lacks: tests that ask git for the tracked files
(``tests/test_launch.py``) fall back to the notebooks they need, the full-build comparison
(``tests/test_full_verdicts.py``) skips without ``_build/full``, and no fast test uses the
browser (those are marked ``book``). Tests that fail in the copy are listed in
:data:`EXCLUDED_TESTS` and deselected: ``tests/test_mutate.py``, which checks that every
mutation's source is in the library and so fails on any mutated copy.

Reading the report: one row per mutation, its claims (chapter numbers), what failed (the
first failing fast test, the notebook that failed, or the comparison tests that failed,
with the first lines of their messages in ``outcome.json``) and the outcome, then ``killed
K of N (P%)`` over the mutations with a result. A mutation whose only effect is a number
CI does not compare (a value declared unbanded, a figure, a cache statistic) counts as
survived: nothing would have turned CI red. The report's closing note lists each survivor
with why it is a bug; a survivor is either a gap in the tests (add a fast test, or a band)
or a mutation the smoke profile cannot see (say so beside it in :data:`MUTATIONS`).

Usage::

    .venv/bin/python scripts/mutate.py --list              # the mutations
    .venv/bin/python scripts/mutate.py --check             # each applies and compiles
    nohup .venv/bin/python scripts/mutate.py > _build/mutate.log 2>&1 &   # every mutation
    .venv/bin/python scripts/mutate.py --only flow-never-steps --again
    .venv/bin/python scripts/mutate.py --jobs 2            # two smoke runs at a time
    .venv/bin/python scripts/mutate.py --warm-cache _build/perturb/baseline/cache
        # the smoke runs share a cache the unmutated code filled (not for the files that
        # make what it holds: CACHED_BY), about half the time of a cold one
    .venv/bin/python scripts/mutate.py --compare-only      # after re-recording the bands
"""

# no ``from __future__ import annotations``: the tests load this file as a module that is
# not in sys.modules, where dataclasses cannot resolve string annotations
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from anisotropy.book import catalog

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "_build" / "mutate"

C1, C2, C3 = "01-layerwise-anisotropy", "02-clusters-manifolds", "03-frequency-bias"
C4, C5, C6 = "04-cluster-isotropy", "05-isotropy-vs-clusters", "06-later-work"
#: Every claim, in book order, as the catalog finds them (a new claim joins the mutations
#: of shared code without an edit here); C1-C6 name the claims a mutation is known to move.
ALL_CLAIMS = tuple(catalog.claims())

#: The fast tests' marker expression: what ``make test`` runs besides the notebooks, the
#: second smoke runs, the workflow and the book.
FAST_MARKERS = "not notebooks and not slow and not workflow and not book"
#: Fast tests that cannot work in the scratch copy (deselected there); none so far.
EXCLUDED_TESTS: tuple[str, ...] = ("tests/test_mutate.py",)
#: The fast tests, run in the scratch copy.
FAST_TESTS = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
              "-rfE", "-m", FAST_MARKERS, "tests",
              *(f"--deselect={test}" for test in EXCLUDED_TESTS)]
#: The CI comparison of smoke runs with the expected files (tests/test_notebooks.py).
COMPARISON_TESTS = ("test_smoke_run_verdicts_and_bands", "test_smoke_run_values")
#: The ``smoke_runs`` fixture reads the results files of this folder instead of running.
RESULTS_ENV = "ANISOTROPY_SMOKE_RESULTS"
#: Left out of the scratch copy, by name at any depth (and ``*.egg-info``).
NOT_COPIED = frozenset({".git", ".venv", "_build", "__pycache__", ".pytest_cache",
                        ".hypothesis", ".ruff_cache"})
#: pytest's return codes of failing tests (1) and of an interrupted session, which a
#: collection error gives (2); the others (3 to 5) mean the harness broke.
KILLED_BY_TESTS = (1, 2)
#: Characters of a failed run's stderr kept in its outcome.
STDERR_TAIL = 1500


@dataclass(frozen=True)
class Mutation:
    """One plausible regression of the library.

    Parameters
    ----------
    name : str
        Unique, short, in kebab case; the folder of its outcome.
    path : str
        The mutated file, relative to the project root (under ``lib/anisotropy``).
    old : str
        Source text that occurs exactly once in the file.
    new : str
        What replaces it.
    claims : tuple of str
        Every claim (slug) whose smoke results the mutation can change.
    why : str
        What the bug is and what it changes.
    """

    name: str
    path: str
    old: str
    new: str
    claims: tuple[str, ...]
    why: str

    def original(self, root: Path = ROOT) -> str:
        """The unmutated file's text."""
        return (root / self.path).read_text(encoding="utf-8")

    def apply(self, text: str) -> str:
        """``text`` with ``old`` replaced by ``new``; raises when ``old`` does not occur
        exactly once."""
        count = text.count(self.old)
        if count != 1:
            raise ValueError(f"{self.name}: the text to replace occurs {count} times in "
                             f"{self.path} (must be once)")
        return text.replace(self.old, self.new, 1)


MUTATIONS: list[Mutation] = [
    # ------------------------------------------------------------------ geometry
    Mutation(
        "offdiagonal-cosine-keeps-self-pairs", "lib/anisotropy/geometry/similarity.py",
        "    return float((total @ total - (unit * unit).sum()) / (n * n - n))",
        "    return float((total @ total) / (n * n))",
        (C1, C2),
        "the mean cosine over pairs of distinct occurrences also counts each vector with "
        "itself (cosine 1): self-similarity without context ids (claim 1's all-pairs "
        "variant) and claim 2's S_intra rise, most for words with few occurrences"),
    Mutation(
        "s-inter-diagonal-sign", "lib/anisotropy/geometry/similarity.py",
        '    return float((total @ total - np.einsum("ij,ij->", means, means)) / (n * n - n))',
        '    return float((total @ total + np.einsum("ij,ij->", means, means)) / (n * n - n))',
        (C2,),
        "a sign error in S_inter: the types' own terms are added to the sum over pairs "
        "instead of taken out, so the mean cosine between different types is too high "
        "(claim 2's global anisotropy and its per-cluster comparison)"),
    Mutation(
        "mev-uncentred", "lib/anisotropy/geometry/similarity.py",
        "    centred = M - M.mean(axis=0)\n    total = float((centred**2).sum())",
        "    centred = M\n    total = float((centred**2).sum())",
        (C1,),
        "the centring of MEV is dropped: the first component's share is that of the raw "
        "occurrence matrix, which the mean direction dominates (claim 1's mev-low and every "
        "MEV column)"),
    Mutation(
        "random-pairs-within-a-sentence", "lib/anisotropy/geometry/similarity.py",
        "        g2 = rng.integers(0, starts.size - 1, size=n_pairs)\n"
        "        g2 += g2 >= g1  # a different group, uniform over the others\n",
        "        g2 = rng.integers(0, starts.size, size=n_pairs)\n",
        (C1, C6),
        "the anisotropy baseline's random pairs may take both words from one sentence "
        "(Ethayarajh's protocol draws two different sentences): claim 1's baseline and "
        "chapter 6's rogue-dimension pairs move"),
    Mutation(
        "isoscore-centred-per-point", "lib/anisotropy/geometry/isotropy.py",
        "    centred = X - X.mean(axis=0)\n    if n_points > dim:",
        "    centred = X - X.mean(axis=1, keepdims=True)\n    if n_points > dim:",
        (C1, C2, C4, C5, C6),
        "IsoScore centres on the wrong axis: each point loses its own mean over dimensions "
        "instead of each dimension its mean over points, so the common mean direction stays "
        "in the covariance (every IsoScore of claims 1, 2, 4, 5 and 6)"),
    Mutation(
        "iw-one-sign-only", "lib/anisotropy/geometry/isotropy.py",
        "    log_z = np.concatenate([top + np.log(sums[0]), np.log(sums[1]) - bottom])",
        "    log_z = top + np.log(sums[0])",
        (C4, C6),
        "I(W) takes each eigenvector with one sign only (as Rajaee & Pilehvar's notebook): "
        "the minimum over directions misses the opposite side, so log10 I(W) is too high "
        "(claim 4's isotropy checks and fine-tuning, chapter 6's measures)"),
    Mutation(
        "percentile-upper-end-at-level", "lib/anisotropy/geometry/intervals.py",
        "    low, high = np.quantile(draws, [alpha, 1 - alpha])",
        "    low, high = np.quantile(draws, [alpha, level])",
        (C1, C2, C3, C4, C6),
        "the percentile interval's upper end is taken at ``level`` (the 95th percentile) "
        "where ``1 - alpha`` (97.5th) was meant: alpha and level swapped at one end, every "
        "bootstrap interval too short above"),
    Mutation(
        "spearman-draws-unranked", "lib/anisotropy/geometry/intervals.py",
        "    return rowwise_pearson(stats.rankdata(x, axis=1), stats.rankdata(y, axis=1))",
        "    return rowwise_pearson(x, y)",
        (C3, C4, C6),
        "Pearson for Spearman in the bootstrap: the resampled correlations are not ranked, "
        "so the draws of every Spearman change (claims 3, 4 and 6) and of claim 3's "
        "frequency correlations measure another quantity than their point estimates"),
    Mutation(
        "abtt-projects-uncentred", "lib/anisotropy/geometry/transforms.py",
        "        return _remove(self._check_transform_input(X) - self.mean_, self.components_)",
        "        return _remove(self._check_transform_input(X), self.components_)",
        (C4, C6),
        "all-but-the-top removes its directions from the uncentred vectors (the popular "
        "gist's bug its docstring warns of): the mean direction stays in (claim 4's "
        "Mean+PCA and ABTT, chapter 6's all-but-the-top scores)"),
    Mutation(
        "whitening-without-square-root", "lib/anisotropy/geometry/transforms.py",
        "        self.kernel_ = (u / np.sqrt(s + self.eps))[:, :k]",
        "        self.kernel_ = (u / (s + self.eps))[:, :k]",
        (C3,),
        "whitening divides by the eigenvalues instead of their square roots: the output's "
        "covariance is diag(1/s), not the identity (claim 3's whitening-helps)"),
    Mutation(
        "lid-normalised-by-k", "lib/anisotropy/geometry/dimension.py",
        "        pointwise = (k - 1) / logs.sum(axis=1)",
        "        pointwise = k / logs.sum(axis=1)",
        (C2,),
        "the Levina-Bickel estimate divides k instead of k - 1 by its k - 1 log ratios: "
        "every LID is k/(k-1) too high (1% at k = 100, 11% for the manifold indicators' "
        "k = 10); claim 2's LID ratio to the static space cancels it"),
    Mutation(
        "twonn-ratio-inverted", "lib/anisotropy/geometry/dimension.py",
        "        logs = np.log(distances[:, 1] / distances[:, 0])",
        "        logs = np.log(distances[:, 0] / distances[:, 1])",
        (C6,),
        "TwoNN's ratio mu = r2 / r1 is inverted: the log ratios are negative and so is "
        "every intrinsic dimension (chapter 6's id-peak-interior and id-shuffled-flatter)"),
    Mutation(
        "knn-self-mask-ignores-chunk", "lib/anisotropy/geometry/dimension.py",
        "        block[rows, rows + i0] = np.inf",
        "        block[rows, rows] = np.inf",
        (C2, C6),
        "the exact neighbour search masks each point's distance to itself only in the "
        "first chunk of 2,048 rows; later rows find themselves at distance 0. The smoke "
        "profile searches at most 1,500 points at once, so only a fast test can see it"),
    Mutation(
        "massive-ratio-over-mean", "lib/anisotropy/geometry/outliers.py",
        "        median = float(np.median(magnitude[a:b]))",
        "        median = float(np.mean(magnitude[a:b]))",
        (C6,),
        "the massive-activation ratio divides by the mean |activation| instead of Sun et "
        "al.'s median: the outliers themselves inflate the denominator (chapter 6's "
        "massive-activations and its onset)"),
    # ------------------------------------------------------------------ inputs
    Mutation(
        "mean-pooling-takes-first-token", "lib/anisotropy/inputs/extraction.py",
        '    if pooling in ("mean", "last-avg"):\n'
        "        vectors = np.asarray(means[last_layer], dtype=np.float64)",
        '    if pooling in ("mean", "last-avg"):\n'
        '        vectors = np.asarray(pooled["first"][last_layer], dtype=np.float64)',
        (C5,),
        "mean pooling returns the first token's vector ([CLS]): claim 5's sentence "
        "embeddings, the classifier's starting point, are not SBERT's"),
    Mutation(
        "cache-key-without-model", "lib/anisotropy/inputs/extraction.py",
        '    return {"kind": kind, "model": encoder.name, '
        '"fingerprint": encoder.resolved.fingerprint,\n',
        '    return {"kind": kind,\n',
        (C6,),
        "extraction cache keys leave out the model (name and weight hashes): two models "
        "that encode the same sentences share an entry where the rest of the key agrees. "
        "Token entries also hold the layer list, which differs between the smoke models "
        "(7 and 31 layers), so in the smoke profile only the attention entry collides: "
        "SmolLM2 reads MiniLM's attention to the first token (chapter 6's sink-heads)"),
    Mutation(
        "sentence-rows-keep-special-tokens", "lib/anisotropy/inputs/token_embeddings.py",
        "    def sentence_rows(self, sentence_ids, exclude_positions: Sequence[int] = (),\n"
        "                      drop_special: bool = True) -> np.ndarray:",
        "    def sentence_rows(self, sentence_ids, exclude_positions: Sequence[int] = (),\n"
        "                      drop_special: bool = False) -> np.ndarray:",
        (C4,),
        "the token rows claim 4 transforms and pools keep the special tokens ([CLS], "
        "[SEP]) by default: the methods are fitted on them and the sentence means include "
        "them (every STS, isotropy and SST-2 number of claim 4)"),
    # ------------------------------------------------------------------ claims
    Mutation(
        "silhouette-threshold-raised", "lib/anisotropy/claims/clusters/measure.py",
        "SILHOUETTE_THRESHOLD = 0.1\n",
        "SILHOUETTE_THRESHOLD = 0.2\n",
        (C2,),
        "K-means keeps one cluster below a best silhouette of 0.2 instead of the authors' "
        "0.1: layers with weak clusters get K = 1 (claim 2's K per layer, local isotropy, "
        "the decoders' cluster drivers)"),
    Mutation(
        "cai-layer-counted-from-embeddings", "lib/anisotropy/claims/clusters/claim.py",
        "CAI_LAYER_2 = 3\n",
        "CAI_LAYER_2 = 2\n",
        (C2,),
        "an off-by-one layer: Cai et al.'s 'layer 2' counts from the first transformer "
        "block, so it is the book's layer 3; taking layer 2 drops that layer from the "
        "manifold indicators (claim 2's swiss-roll finding)"),
    Mutation(
        "first-last-avg-uses-embeddings", "lib/anisotropy/claims/frequency/calibration.py",
        '"first-last-avg": (means[1] + means[n_layers]) / 2',
        '"first-last-avg": (means[0] + means[n_layers]) / 2',
        (C3,),
        "an off-by-one layer: first-last-avg averages the embedding output (layer 0) with "
        "the last layer instead of the first block's output (layer 1), the confusion "
        "BERT-flow's 'last2avg' invites (claim 3's calibrated pooling and every score)"),
    Mutation(
        "flow-never-steps", "lib/anisotropy/claims/frequency/calibration.py",
        "                    adam_weight_decay_step(param, param.grad, m, v, self.learning_rate,\n"
        "                                           self.weight_decay if decay else 0.0)\n",
        "                    pass\n",
        (C3,),
        "the flow's optimiser never steps: gradients are computed and discarded, so the "
        "'calibrated' vectors are a randomly initialised RealNVP's (claim 3's flow-helps)"),
    Mutation(
        "inductive-fit-sees-its-task", "lib/anisotropy/claims/cluster_isotropy/methods.py",
        "    fit_ids = np.setdiff1d(pooled, ids_of[task])",
        "    fit_ids = pooled",
        (C4,),
        "the inductive fit no longer leaves out the sentences the scored task shares with "
        "the others, so it is fitted on the evaluation sentences (claim 4's inductive rows "
        "and its fit overlap)"),
    Mutation(
        "classifier-not-optimised", "lib/anisotropy/claims/classifier_geometry/classifier.py",
        "        self.optimizer = torch.optim.Adam([self.E, *self.classifier.parameters()],",
        "        self.optimizer = torch.optim.Adam([self.E],",
        (C5,),
        "claim 5's linear classifier is not given to the optimiser: only the embeddings "
        "move, towards a random fixed classifier (every trajectory of claim 5)"),
    Mutation(
        "massive-peak-layer-off-by-one", "lib/anisotropy/claims/later_work/claim.py",
        '    peak = int(np.lexsort((massive["massive_ratio"].to_numpy()[1:], shares[1:]))[-1]) + 1',
        '    peak = int(np.lexsort((massive["massive_ratio"].to_numpy()[1:], shares[1:]))[-1])',
        (C6,),
        "an off-by-one layer: the peak is searched over layers 1..L but its index is read "
        "as a layer without adding the 1 back, so the layer before the peak is reported "
        "(chapter 6's massive-at-sink and massive-dims)"),
    # ------------------------------------------------------------------ book
    Mutation(
        "grade-above-reads-the-upper-end", "lib/anisotropy/report/checks.py",
        "        on, off = low > threshold, high <= threshold",
        "        on, off = high > threshold, low <= threshold",
        ALL_CLAIMS,
        "a flipped grading comparator: '>' checks are reproduced when the interval's upper "
        "end is above the threshold, not its lower end (every '>' verdict of the book)"),
]


# --------------------------------------------------------------------------- checks


def check_mutations(mutations: Sequence[Mutation], root: Path = ROOT) -> list[str]:
    """Problems of ``mutations`` without running anything: a file missing, ``old`` not
    occurring exactly once, ``new`` equal to ``old``, a mutated file that does not compile,
    a name used twice. An empty list means every mutation applies."""
    problems, seen = [], set()
    for m in mutations:
        if m.name in seen:
            problems.append(f"{m.name}: the name is used twice")
        seen.add(m.name)
        if m.old == m.new:
            problems.append(f"{m.name}: new equals old")
        if not (root / m.path).is_file():
            problems.append(f"{m.name}: {m.path} does not exist")
            continue
        try:
            mutated = m.apply(m.original(root))
        except ValueError as error:
            problems.append(str(error))
            continue
        try:
            compile(mutated, m.path, "exec")
        except SyntaxError as error:
            problems.append(f"{m.name}: the mutated {m.path} does not compile: {error}")
    return problems


def select(mutations: Sequence[Mutation], names: Iterable[str] | None) -> list[Mutation]:
    """The mutations named (all when ``names`` is None), in :data:`MUTATIONS` order; an
    unknown name raises, listing the known ones."""
    if not names:
        return list(mutations)
    names = list(names)
    known = {m.name for m in mutations}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown mutation(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(sorted(known))}")
    return [m for m in mutations if m.name in names]


# --------------------------------------------------------------------------- output parsing

_FAILURE = re.compile(r"^(FAILED|ERROR) (\S+)(?: - (.*))?$")
_SECTION = re.compile(r"^_{3,} (?:ERROR (?:at setup of |collecting ))?(.+?) _{3,}$")
#: Lines of a failure's error message kept, and characters of each.
MESSAGE_LINES, LINE_CHARS = 6, 400


def parse_failures(output: str) -> list[dict[str, str]]:
    """The failing tests of a pytest run's output: ``[{"id", "message"}, ...]``, each id
    once, from the short summary's lines that start with ``FAILED `` or ``ERROR ``.

    ``message`` holds the first lines of the error: those of the test's section in the
    failures report (its ``E`` lines, at most :data:`MESSAGE_LINES`), else the summary
    line's message (its first line only), else nothing.
    """
    sections: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        header = _SECTION.match(line.rstrip())
        if header:
            current = sections.setdefault(header.group(1), [])
        elif current is not None and line.startswith("E ") and len(current) < MESSAGE_LINES:
            current.append(line[1:].strip()[:LINE_CHARS])
    out, seen = [], set()
    for line in output.splitlines():
        match = _FAILURE.match(line.rstrip())
        if not match or match.group(2) in seen:
            continue
        test = match.group(2)
        seen.add(test)
        lines = sections.get(test.split("::", 1)[-1].replace("::", ".")) or sections.get(test)
        message = "\n".join(lines) if lines else (match.group(3) or "").strip()[:LINE_CHARS]
        out.append({"id": test, "message": message})
    return out


# --------------------------------------------------------------------------- the scratch copy


def copy_tree(source: Path, tree: Path, work: Path) -> None:
    """A fresh copy of ``source``'s working tree at ``tree`` (the previous one removed),
    leaving out :data:`NOT_COPIED`, ``*.egg-info`` and the work folder itself."""
    work_resolved = work.resolve()

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {name for name in names
                if name in NOT_COPIED or name.endswith(".egg-info")
                or (Path(directory) / name).resolve() == work_resolved}

    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(source, tree, symlinks=True, ignore=ignore)


def tree_digest(tree: Path) -> str:
    """sha256 over the copy's files (paths and contents), bytecode left out: whether the
    baseline run of the fast tests is still current."""
    digest = hashlib.sha256()
    for path in sorted(tree.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(tree)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def tree_env(tree: Path) -> dict[str, str]:
    """The environment of every process run in the copy (see the module docstring)."""
    env = {**os.environ, "PYTHONPATH": str(tree / "lib"),
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "GIT_CEILING_DIRECTORIES": str(tree.parent.resolve()), "COLUMNS": "1000"}
    for candidate in (ROOT.parent / "shared" / "data",):
        if candidate.is_dir():
            env["ANISOTROPY_DATA"] = str(candidate)
            break
    return env


def check_import(tree: Path, env: dict[str, str]) -> None:
    """Stop unless a process run in the copy imports the copy's library."""
    done = subprocess.run([sys.executable, "-c", "import anisotropy; print(anisotropy."
                           "__file__)"], cwd=tree, env=env, capture_output=True, text=True)
    where = done.stdout.strip()
    if done.returncode or not Path(where).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"the scratch copy imports {where or done.stderr[-500:]}, not its own "
                         f"library under {tree / 'lib'}")


def _drop_bytecode(path: Path) -> None:
    """Remove ``path``'s compiled bytecode: a mutation of the same size written in the same
    second as the original would otherwise pass the bytecode's timestamp check."""
    for compiled in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        compiled.unlink(missing_ok=True)


@contextmanager
def applied(mutation: Mutation, tree: Path) -> Iterator[None]:
    """``mutation`` written into the copy for the duration of the block; the original
    bytes are restored afterwards, whatever happens (an error, Ctrl-C)."""
    target = tree / mutation.path
    original = target.read_bytes()
    mutated = mutation.apply(original.decode("utf-8"))
    try:
        _drop_bytecode(target)
        target.write_text(mutated, encoding="utf-8")
        yield
    finally:
        target.write_bytes(original)
        _drop_bytecode(target)


# --------------------------------------------------------------------------- the steps


def run_fast_tests(tree: Path, env: dict[str, str], log: Path) -> dict:
    """The fast tests in the copy: return code, seconds and failing tests (the whole
    output in ``log``)."""
    began = time.perf_counter()
    done = subprocess.run(FAST_TESTS, cwd=tree, env=env, capture_output=True, text=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(done.stdout + "\n--- stderr\n" + done.stderr, encoding="utf-8")
    failures = parse_failures(done.stdout)
    return {"returncode": done.returncode, "seconds": round(time.perf_counter() - began, 1),
            "failed": [f["id"] for f in failures], "messages": failures,
            "tail": done.stdout[-STDERR_TAIL:] if done.returncode and not failures else ""}


def run_claim(slug: str, tree: Path, env: dict[str, str], folder: Path,
              cache: Path | None = None) -> dict:
    """One claim in the smoke profile, in the copy, building into ``folder/build`` with
    the cache ``cache`` (default ``folder/cache``, fresh): return code, seconds and, when it
    failed, the end of its stderr (the whole output in ``folder/run-SLUG.log``)."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "anisotropy", "run", slug, "--profile",
                           "smoke"], cwd=tree, capture_output=True, text=True,
                          env={**env, "ANISOTROPY_BUILD": str(folder / "build"),
                               "ANISOTROPY_CACHE": str(cache or folder / "cache")})
    (folder / f"run-{slug}.log").write_text(done.stdout + "\n--- stderr\n" + done.stderr,
                                            encoding="utf-8")
    results = results_dir(folder) / f"{slug}.json"
    stderr = done.stderr[-STDERR_TAIL:] if done.returncode else ""
    returncode = done.returncode
    if not returncode and not results.is_file():
        returncode, stderr = -1, f"the run wrote no results file {results}"
    return {"slug": slug, "returncode": returncode,
            "seconds": round(time.perf_counter() - began, 1), "stderr": stderr}


def results_dir(folder: Path) -> Path:
    """Where a mutation's smoke runs write their results files."""
    return folder / "build" / "smoke" / "results"


def comparison_expression(claims: Sequence[str]) -> str:
    """The ``-k`` expression selecting the CI comparison tests of ``claims``."""
    return f"({' or '.join(COMPARISON_TESTS)}) and ({' or '.join(claims)})"


def compare(claims: Sequence[str], folder: Path) -> dict:
    """The CI comparison of the mutated smoke runs' results, in the real project on the
    unmutated code: return code, seconds, failing tests with the first lines of their
    messages (:func:`parse_failures`; the whole output in ``folder/comparison.log``)."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rfE", "tests/test_notebooks.py", "-k",
                           comparison_expression(claims)],
                          cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, RESULTS_ENV: str(results_dir(folder)),
                               "COLUMNS": "1000"})
    (folder / "comparison.log").write_text(done.stdout + "\n--- stderr\n" + done.stderr,
                                           encoding="utf-8")
    return {"returncode": done.returncode, "seconds": round(time.perf_counter() - began, 1),
            "failed": parse_failures(done.stdout),
            "tail": done.stdout[-STDERR_TAIL:] if done.returncode not in (0, 1) else ""}


def verdict(outcome: dict) -> dict:
    """``outcome`` with ``killed`` and ``by`` set from its steps (and ``error`` when a step
    broke instead of failing: pytest's return codes 3 to 5, an internal or usage error or
    no test collected)."""
    outcome = dict(outcome, killed=False, by=None, error=None)
    fast = outcome.get("fast_tests") or {}
    runs = outcome.get("smoke_runs") or []
    comparison = outcome.get("comparison")
    if fast.get("returncode") in KILLED_BY_TESTS:
        first = fast["failed"][0] if fast.get("failed") else f"return code {fast['returncode']}"
        outcome.update(killed=True, by=f"fast tests: {first}")
    elif fast.get("returncode"):
        outcome["error"] = f"the fast tests returned {fast['returncode']}"
    elif failed := [r["slug"] for r in runs if r["returncode"]]:
        outcome.update(killed=True, by=f"the notebook failed: {', '.join(failed)}")
    elif comparison is not None:
        if comparison["returncode"] == 1:  # 2 and above: it could not run
            outcome.update(killed=True, by="smoke comparison: " + ", ".join(
                f["id"].split("::")[-1] for f in comparison["failed"]))
        elif comparison["returncode"] != 0:
            outcome["error"] = f"the comparison returned {comparison['returncode']}"
    return outcome


#: Files whose code makes what the cache holds (forward passes, attention, the keys):
#: their mutations always run with a cold cache, even under ``--warm-cache``.
CACHED_BY = frozenset({"lib/anisotropy/inputs/extraction.py", "lib/anisotropy/inputs/encoders.py",
                       "lib/anisotropy/inputs/cache.py", "lib/anisotropy/inputs/attention.py",
                       "lib/anisotropy/inputs/models.py",
                       "lib/anisotropy/claims/cluster_isotropy/finetuning.py"})


def cache_for(mutation: Mutation, warm: Path | None) -> Path | None:
    """The cache a mutation's smoke runs share: ``warm`` (a cache the unmutated code
    filled, never deleted) unless the mutation is in a file of :data:`CACHED_BY`, whose
    effect a filled cache would hide; None (a fresh one) otherwise."""
    return None if warm is None or mutation.path in CACHED_BY else warm


def run_mutation(mutation: Mutation, tree: Path, work: Path, env: dict[str, str],
                 jobs: int = 1, warm: Path | None = None) -> dict:
    """Every step for one mutation; writes and returns its outcome."""
    folder = work / mutation.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    began = time.perf_counter()
    outcome = {"name": mutation.name, "path": mutation.path, "old": mutation.old,
               "new": mutation.new, "claims": list(mutation.claims), "why": mutation.why,
               "fast_tests": None, "smoke_runs": None, "comparison": None,
               "cache": str(cache_for(mutation, warm) or "cold")}
    try:
        with applied(mutation, tree):
            say("  fast tests ...")
            outcome["fast_tests"] = fast = run_fast_tests(tree, env, folder / "fast-tests.log")
            say(f"  fast tests: return code {fast['returncode']} in {fast['seconds']:.0f} s"
                + (f", {fast['failed'][0]} failed" if fast["failed"] else ""))
            if fast["returncode"] == 0:
                outcome["smoke_runs"] = run_claims(mutation.claims, tree, env, folder, jobs,
                                                   cache_for(mutation, warm))
    finally:
        shutil.rmtree(folder / "cache", ignore_errors=True)
    if (outcome["fast_tests"]["returncode"] == 0
            and not any(r["returncode"] for r in outcome["smoke_runs"])):
        say("  comparison ...")
        outcome["comparison"] = compare(mutation.claims, folder)
    outcome["seconds"] = round(time.perf_counter() - began, 1)
    outcome = verdict(outcome)
    write_outcome(folder, outcome)
    return outcome


def run_claims(claims: Sequence[str], tree: Path, env: dict[str, str], folder: Path,
               jobs: int = 1, cache: Path | None = None) -> list[dict]:
    """The smoke runs of ``claims`` (``jobs`` at a time, sharing one cache); sequential
    runs stop at the first that fails, which already kills the mutation."""
    if jobs > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            runs = list(pool.map(lambda slug: run_claim(slug, tree, env, folder, cache),
                                 claims))
        for run in runs:
            say(f"  {run['slug']}: return code {run['returncode']} in {run['seconds']:.0f} s")
        return runs
    runs = []
    for slug in claims:
        say(f"  {slug} ...")
        runs.append(run := run_claim(slug, tree, env, folder, cache))
        say(f"  {slug}: return code {run['returncode']} in {run['seconds']:.0f} s")
        if run["returncode"]:
            break
    return runs


def write_outcome(folder: Path, outcome: dict) -> None:
    """``folder/outcome.json``, written whole or not at all."""
    tmp = folder / "outcome.json.tmp"
    tmp.write_text(json.dumps(outcome, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, folder / "outcome.json")


def read_outcome(work: Path, name: str) -> dict | None:
    """A mutation's recorded outcome, or None."""
    path = work / name / "outcome.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def compare_again(mutation: Mutation, work: Path) -> dict | None:
    """Step 3 again for a mutation whose smoke runs all finished (their results are kept),
    its outcome rewritten; None when it has none."""
    outcome = read_outcome(work, mutation.name)
    folder = work / mutation.name
    if (outcome is None or not outcome.get("smoke_runs")
            or any(r["returncode"] for r in outcome["smoke_runs"])
            or not all((results_dir(folder) / f"{slug}.json").is_file()
                       for slug in outcome["claims"])):
        return None
    outcome["comparison"] = compare(outcome["claims"], folder)
    outcome = verdict(outcome)
    write_outcome(folder, outcome)
    return outcome


def baseline(tree: Path, work: Path, env: dict[str, str], again: bool) -> None:
    """The fast tests of the unmutated copy, unless a passing run of the same copy is
    recorded in ``work/baseline.json``; stops the script when they fail there."""
    digest = tree_digest(tree)
    path = work / "baseline.json"
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    if (not again and recorded and recorded["digest"] == digest
            and not recorded["fast_tests"]["returncode"]):
        say(f"baseline: the fast tests passed on this copy "
            f"({recorded['fast_tests']['seconds']:.0f} s)")
        return
    say("baseline: the fast tests on the unmutated copy ...")
    fast = run_fast_tests(tree, env, work / "baseline-fast-tests.log")
    path.write_text(json.dumps({"digest": digest, "fast_tests": fast}, indent=1) + "\n",
                    encoding="utf-8")
    if fast["returncode"]:
        failed = ", ".join(fast["failed"]) or fast["tail"]
        raise SystemExit(f"the fast tests fail on the unmutated copy ({failed}; output in "
                         f"{work / 'baseline-fast-tests.log'}): fix them, or add a test that "
                         "cannot work in the copy to EXCLUDED_TESTS")
    say(f"baseline: passed in {fast['seconds']:.0f} s")


# --------------------------------------------------------------------------- the report


def outcome_label(outcome: dict | None) -> str:
    """``killed (fast tests)``, ``killed (notebook)``, ``killed (smoke comparison)``,
    ``survived``, ``error`` or ``not run``."""
    if outcome is None:
        return "not run"
    if outcome.get("error"):
        return "error"
    if not outcome.get("killed"):
        return "survived"
    by = outcome.get("by") or ""
    kind = ("fast tests" if by.startswith("fast tests") else
            "notebook" if by.startswith("the notebook") else "smoke comparison")
    return f"killed ({kind})"


def what_failed(outcome: dict | None, limit: int = 3) -> str:
    """The report's "failed" cell: the first failing fast test, the notebooks that
    failed, or the comparison tests that failed (at most ``limit``, then a count)."""
    if outcome is None:
        return ""
    if outcome.get("error"):
        return outcome["error"]
    fast = outcome.get("fast_tests") or {}
    if fast.get("returncode"):
        return (fast["failed"][0].removeprefix("tests/") if fast.get("failed")
                else f"fast tests returned {fast['returncode']}")
    failed = [r["slug"] for r in outcome.get("smoke_runs") or [] if r["returncode"]]
    if failed:
        return "notebook " + ", ".join(failed)
    comparison = outcome.get("comparison") or {}
    ids = [f["id"].split("::")[-1] for f in comparison.get("failed") or []]
    if not ids:
        return "nothing"
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def claims_cell(claims: Sequence[str]) -> str:
    """``"1, 3, 6"``: the chapters of ``claims``."""
    return ", ".join(str(int(slug[:2])) for slug in claims)


def format_report(mutations: Sequence[Mutation], outcomes: dict[str, dict | None]) -> str:
    """The Markdown report: one row per mutation (mutation | claims | failed | outcome),
    ``killed K of N (P%)`` over the mutations with a result, and the closing note on the
    survivors."""
    rows = ["| mutation | claims | failed | outcome |", "|---|---|---|---|"]
    for m in mutations:
        outcome = outcomes.get(m.name)
        cell = what_failed(outcome).replace("|", "\\|")
        rows.append(f"| {m.name} | {claims_cell(m.claims)} | {cell} | "
                    f"{outcome_label(outcome)} |")
    finished = [m for m in mutations if outcome_label(outcomes.get(m.name))
                not in ("not run", "error")]
    killed = [m for m in finished if outcomes[m.name].get("killed")]
    survivors = [m for m in finished if not outcomes[m.name].get("killed")]
    share = f"{100 * len(killed) / len(finished):.0f}%" if finished else "n/a"
    lines = [*rows, "", f"killed {len(killed)} of {len(finished)} ({share})"]
    pending = len(mutations) - len(finished)
    if pending:
        lines.append(f"({pending} not run or in error, left out of the count)")
    if survivors:
        lines += ["", "Survivors: nothing CI runs turned red (a number that changed outside "
                  "the bands CI compares counts as survived). Each is a gap in the tests or "
                  "a bug the smoke profile cannot see:", ""]
        lines += [f"- **{m.name}** ({m.path}; claims {claims_cell(m.claims)}): {m.why}."
                  for m in survivors]
    return "\n".join(lines) + "\n"


def report(mutations: Sequence[Mutation], work: Path) -> str:
    """Print the report of ``mutations`` from their recorded outcomes and write it to
    ``work/report.md``."""
    text = format_report(mutations, {m.name: read_outcome(work, m.name) for m in mutations})
    work.mkdir(parents=True, exist_ok=True)
    (work / "report.md").write_text(text, encoding="utf-8")
    print(text, flush=True)
    return text


def list_mutations(mutations: Sequence[Mutation]) -> str:
    """One paragraph per mutation: name, file, claims and why."""
    return "\n\n".join(f"{m.name}  [{m.path}; claims {claims_cell(m.claims)}]\n  {m.why}"
                       for m in mutations)


def say(text: str) -> None:
    """A progress line, flushed at once (the script runs in the background)."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring); returns the exit status: 1 when
    ``--check`` finds a mutation that does not apply, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print the mutations and stop")
    parser.add_argument("--check", action="store_true",
                        help="check that every mutation applies and compiles (no tests run)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutations only")
    parser.add_argument("--again", action="store_true",
                        help="rerun mutations that have an outcome (and the baseline)")
    parser.add_argument("--compare-only", action="store_true",
                        help="redo only the comparison, for mutations whose smoke results "
                             "exist (after re-recording tests/expected)")
    parser.add_argument("--work", type=Path, default=WORK,
                        help=f"work folder (default {WORK.relative_to(ROOT)})")
    parser.add_argument("--warm-cache", type=Path, default=None, metavar="DIR",
                        help="share this cache, filled by the unmutated code (e.g. "
                             "_build/perturb/baseline/cache), across the smoke runs instead of "
                             "a cold one each, except for mutations of the files that make "
                             "what it holds (CACHED_BY)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="smoke runs of one mutation at a time (one thread each)")
    args = parser.parse_args(argv)
    chosen = select(MUTATIONS, args.only)
    if args.list:
        print(list_mutations(chosen))
        return 0
    if args.check:
        problems = check_mutations(chosen)
        print("\n".join(problems) if problems else f"{len(chosen)} mutations apply and compile")
        return 1 if problems else 0
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.compare_only:
        for m in chosen:
            if compare_again(m, work) is not None:
                say(f"{m.name}: compared again")
        report(chosen, work)
        return 0
    problems = check_mutations(chosen)
    if problems:
        raise SystemExit("\n".join(problems))
    tree = work / "tree"
    say(f"copying the project to {tree}")
    copy_tree(ROOT, tree, work)
    env = tree_env(tree)
    check_import(tree, env)
    baseline(tree, work, env, args.again)
    for i, m in enumerate(chosen, 1):
        recorded = read_outcome(work, m.name)
        if not args.again and recorded is not None:
            changed = (recorded.get("old"), recorded.get("new")) != (m.old, m.new)
            say(f"[{i}/{len(chosen)}] {m.name}: done before ({outcome_label(recorded)})"
                + ("; its definition changed since (--again --only NAME reruns it)"
                   if changed else ""))
            continue
        say(f"[{i}/{len(chosen)}] {m.name} ({m.path}; claims {claims_cell(m.claims)})")
        outcome = run_mutation(m, tree, work, env, args.jobs, args.warm_cache)
        say(f"[{i}/{len(chosen)}] {m.name}: {outcome_label(outcome)}"
            + (f" by {outcome['by']}" if outcome.get("by") else ""))
    report(chosen, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
