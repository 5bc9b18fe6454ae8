"""Make a release: ``make release VERSION=0.2.0`` (or ``python scripts/release.py 0.2.0``).

One step writes everything a release changes, commits it and tags it ``vVERSION``:

- ``CHANGELOG.md``: a new entry with the full book's verdicts that changed since the last
  release tag (``tests/expected/full.yaml`` now against the one at that tag: check, was,
  now), or the count of verdicts recorded for a first release;
- ``CITATION.cff``: ``version`` and ``date-released``;
- ``README.md``: the Binder and Colab badges open the notebook at the tag instead of
  ``main``, so that Binder builds the image once per release rather than on every push.

Then push the commit and the tag (printed). ``--dry-run`` prints the entry and changes no
file. Refuses a version that is not ``X.Y.Z``, a tag that exists, or uncommitted changes.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FULL = "tests/expected/full.yaml"


def _git(*args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    if check and done.returncode:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip() if done.returncode == 0 else ""


def _verdicts(text: str | None) -> dict[str, str]:
    """``{"slug: check id": verdict}`` of a full.yaml text (a list of allowed verdicts is
    written joined by " or ")."""
    if not text:
        return {}
    out = {}
    for slug, entry in (yaml.safe_load(text) or {}).items():
        for check_id, verdict in (entry.get("verdicts") or {}).items():
            out[f"{slug}: {check_id}"] = (" or ".join(verdict) if isinstance(verdict, list)
                                          else verdict)
    return out


def changelog_entry(version: str, day: str, previous_tag: str | None,
                    before: str | None, now: str) -> str:
    """The CHANGELOG entry of ``version``: the verdicts of ``now`` (a full.yaml text) that
    differ from ``before`` (the one at ``previous_tag``)."""
    new = _verdicts(now)
    lines = [f"## v{version} ({day})", ""]
    if previous_tag is None:
        lines.append(f"First release: {len(new)} verdicts of the full book recorded in "
                     f"`{FULL}`.")
        return "\n".join(lines) + "\n"
    old = _verdicts(before)
    changed = sorted(key for key in new.keys() | old.keys() if new.get(key) != old.get(key))
    lines.append(f"Verdicts of the full book (`{FULL}`) against {previous_tag}: "
                 f"{len(changed)} of {len(new)} changed.")
    if changed:
        lines += ["", "| check | was | now |", "|---|---|---|"]
        lines += [f"| {key} | {old.get(key, '(new)')} | {new.get(key, '(removed)')} |"
                  for key in changed]
    return "\n".join(lines) + "\n"


def bump_citation(text: str, version: str, day: str) -> str:
    text = re.sub(r"(?m)^version: .*$", f"version: {version}", text)
    return re.sub(r'(?m)^date-released: .*$', f'date-released: "{day}"', text)


def pin_badges(readme: str, ref: str) -> str:
    """The README's Binder and Colab links opened at ``ref`` (a tag) instead of a branch."""
    readme = re.sub(r"(https://mybinder\.org/v2/gh/[\w.-]+/[\w.-]+/)[\w.-]+(\?urlpath=)",
                    rf"\g<1>{ref}\g<2>", readme)
    return re.sub(r"(https://colab\.research\.google\.com/github/[\w.-]+/[\w.-]+/blob/)"
                  r"[\w.-]+(/notebooks/)", rf"\g<1>{ref}\g<2>", readme)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="X.Y.Z")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d+\.\d+\.\d+", args.version):
        raise SystemExit(f"version {args.version!r} is not X.Y.Z (e.g. make release "
                         "VERSION=0.2.0)")
    tag = f"v{args.version}"
    if _git("tag", "--list", tag):
        raise SystemExit(f"the tag {tag} exists already; choose the next version")
    if not args.dry_run and _git("status", "--porcelain"):
        raise SystemExit("uncommitted changes: commit or stash them before a release")
    previous = _git("describe", "--tags", "--abbrev=0", "--match", "v*", check=False) or None
    before = _git("show", f"{previous}:{FULL}", check=False) if previous else None
    day = datetime.date.today().isoformat()
    entry = changelog_entry(args.version, day, previous,
                            before, (ROOT / FULL).read_text(encoding="utf-8"))
    if args.dry_run:
        print(entry)
        return 0
    changelog = ROOT / "CHANGELOG.md"
    old = changelog.read_text(encoding="utf-8") if changelog.is_file() else "# Changelog\n"
    head, _, rest = old.partition("\n")
    changelog.write_text(f"{head}\n\n{entry}{rest}", encoding="utf-8")
    citation = ROOT / "CITATION.cff"
    citation.write_text(bump_citation(citation.read_text(encoding="utf-8"), args.version, day),
                        encoding="utf-8")
    readme = ROOT / "README.md"
    readme.write_text(pin_badges(readme.read_text(encoding="utf-8"), tag), encoding="utf-8")
    _git("add", "CHANGELOG.md", "CITATION.cff", "README.md")
    _git("commit", "-m", f"Release {tag}")
    _git("tag", "-a", tag, "-m", f"Release {tag}")
    print(f"release {tag} committed and tagged; publish it: git push origin HEAD {tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
