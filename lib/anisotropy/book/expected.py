"""A build's verdicts against the recorded ones (``tests/expected/PROFILE.yaml``).

``make book`` ends by printing this comparison, so a rebuild on another machine says which
verdicts moved; ``make check-full`` (and the Pages workflow after its build) fails on any
difference (``tests/test_full_verdicts.py``). A recorded verdict is one verdict, or the list
of every verdict the recording allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from anisotropy.inputs.data import PROJECT_ROOT

__all__ = ["Difference", "expected_file", "load_expected", "compare_verdicts",
           "estimates_outside_intervals", "report"]


@dataclass(frozen=True)
class Difference:
    """One check whose verdict is not among the recorded ones (``allowed`` empty: a check
    the recording does not have; ``verdict`` None: a recorded check the build lacks).

    Attributes
    ----------
    slug : str
        The claim's slug.
    check_id : str
        The check's id.
    verdict : str or None
        The build's verdict; None when the build has no such check.
    allowed : tuple of str
        The verdicts the recording allows (:func:`load_expected`); empty when it does not
        have the check.
    """

    slug: str
    check_id: str
    verdict: str | None
    allowed: tuple[str, ...]

    def line(self) -> str:
        """The difference as one line of the comparison's text.

        Returns
        -------
        str
            ``"SLUG: CHECK ID is 'VERDICT', recorded 'A' or 'B'"``, or a line saying that the
            recording does not have the check, or that the build lacks it.
        """
        if self.verdict is None:
            return f"{self.slug}: {self.check_id} is recorded ({', '.join(self.allowed)}) " \
                   "but the build has no such check"
        if not self.allowed:
            return f"{self.slug}: {self.check_id} is {self.verdict!r}, a check the recording " \
                   "does not have"
        return f"{self.slug}: {self.check_id} is {self.verdict!r}, recorded " + \
            " or ".join(repr(a) for a in self.allowed)


def expected_file(profile: str) -> Path:
    """``tests/expected/PROFILE.yaml``.

    Parameters
    ----------
    profile : str
        A profile of ``notebooks/profiles.yaml`` (``smoke``, ``full``, ``paper``, ``binder``).

    Returns
    -------
    Path
        The path of the profile's recorded verdicts (whether or not the file exists).
    """
    return PROJECT_ROOT / "tests" / "expected" / f"{profile}.yaml"


def load_expected(path: str | Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{slug: {check id: allowed verdicts}}`` of a recorded file.

    Parameters
    ----------
    path : str or Path
        A recorded file (:func:`expected_file`): ``{slug: {verdicts: {check id: verdict or
        [verdicts]}}}``.

    Returns
    -------
    dict of str to dict of str to tuple of str
        Each check's allowed verdicts as a tuple (one verdict as a tuple of one); a claim
        without ``verdicts`` has none.
    """
    document = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    return {slug: {check_id: tuple(v if isinstance(v, list) else [v])
                   for check_id, v in (entry.get("verdicts") or {}).items()}
            for slug, entry in document.items()}


def compare_verdicts(results: dict[str, dict], expected: dict[str, dict[str, tuple]]
                     ) -> tuple[int, list[Difference]]:
    """``(checks compared, differences)`` of the claims in both ``results`` (records by
    slug, as :func:`anisotropy.report.results.load_results` reads them) and ``expected``.

    Parameters
    ----------
    results : dict of str to dict
        ``{slug: results record}``.
    expected : dict of str to dict of str to tuple
        ``{slug: {check id: allowed verdicts}}`` (:func:`load_expected`).

    Returns
    -------
    tuple of (int, list of Difference)
        How many check ids were compared (those of the build and of the recording, per
        claim in both), and one :class:`Difference` per check whose verdict is not among the
        allowed ones, in slug and check-id order.
    """
    compared, differences = 0, []
    for slug in sorted(set(results) & set(expected)):
        verdicts = {c["id"]: c["verdict"] for c in results[slug]["checks"]}
        recorded = expected[slug]
        for check_id in sorted(set(verdicts) | set(recorded)):
            compared += 1
            verdict, allowed = verdicts.get(check_id), recorded.get(check_id, ())
            if verdict not in allowed:
                differences.append(Difference(slug, check_id, verdict, allowed))
    return compared, differences


def estimates_outside_intervals(results: dict[str, dict]) -> list[str]:
    """Every record of ``results`` whose measured number lies outside its own 95% interval
    (``"SLUG: CHECK ID: measured M outside [LOW, HIGH] (method)"``). An interval that does
    not hold its estimate describes another quantity than the one graded (a resample that
    biases the statistic, say), and its verdict cannot be trusted.

    Parameters
    ----------
    results : dict of str to dict
        ``{slug: results record}`` (:func:`anisotropy.report.results.load_results`).

    Returns
    -------
    list of str
        One line per such record, in slug order; records without a numeric measured value or
        without an interval are not checked.
    """
    out = []
    for slug in sorted(results):
        for check in results[slug]["checks"]:
            measured, interval = check.get("measured"), check.get("interval")
            if (isinstance(measured, (int, float)) and not isinstance(measured, bool)
                    and interval and not interval[0] <= measured <= interval[1]):
                out.append(f"{slug}: {check['id']}: measured {measured:.6g} outside "
                           f"[{interval[0]:.6g}, {interval[1]:.6g}] "
                           f"({check.get('interval_method', '')})")
    return out


def report(results: dict[str, dict], path: str | Path) -> tuple[str, int]:
    """The comparison as text for the terminal, and the number of differences; the claims
    the recording has and the build lacks, or the reverse, are named too.

    Parameters
    ----------
    results : dict of str to dict
        ``{slug: results record}`` (:func:`anisotropy.report.results.load_results`), each
        with its ``stale`` flag.
    path : str or Path
        The recorded verdicts (:func:`expected_file`).

    Returns
    -------
    tuple of (str, int)
        The text (also naming stale results and every estimate outside its own interval,
        :func:`estimates_outside_intervals`), and the count of differences plus the count
        of those estimates; ``0`` with a one-line text when ``path`` does not exist.
    """
    path = Path(path)
    if not path.is_file():
        return f"No recorded verdicts at {path}: nothing to compare with.", 0
    expected = load_expected(path)
    compared, differences = compare_verdicts(results, expected)
    shown = path.relative_to(PROJECT_ROOT) if path.is_relative_to(PROJECT_ROOT) else path
    lines = [f"Verdicts against {shown}: {compared - len(differences)} of {compared} as "
             "recorded."]
    for slug in sorted(set(expected) - set(results)):
        lines.append(f"  {slug}: recorded, not in this build")
    for slug in sorted(set(results) - set(expected)):
        lines.append(f"  {slug}: in this build, not recorded")
    stale = sorted(slug for slug, record in results.items() if record.get("stale"))
    if stale:
        lines.append(f"  stale results (inputs changed since they ran): {', '.join(stale)}")
    lines += [f"  {d.line()}" for d in differences]
    outside = estimates_outside_intervals(results)
    lines += [f"  an interval that does not hold its estimate: {line}" for line in outside]
    if differences:
        lines.append("  A verdict that moved on another machine is a finding of its own: "
                     "see CONTRIBUTING.md before re-recording (scripts/record_full_verdicts.py).")
    return "\n".join(lines), len(differences) + len(outside)
