"""Pin every hub copy in ``data/sources.yaml`` to the commit its revision names today.

Run where the Hugging Face hub is reachable (the build machines cannot reach it):
``python scripts/pin_hub_revisions.py``. Each dataset's ``hub.revision`` that is a branch
(``refs/convert/parquet``) becomes the 40-character commit that branch points to, so a
Binder run next year reads the same files; the file is rewritten in place, and its diff is
what to review and commit. A revision that is already a commit is left alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "data" / "sources.yaml"
COMMIT = re.compile(r"[0-9a-f]{40}")


def pin(text: str, resolve) -> tuple[str, dict[str, str]]:
    """Replace each ``revision:`` under a ``hub:`` block of ``text`` that is not a commit
    with ``resolve(hub id, revision)``; returns the new text and ``{hub id: commit}``."""
    pinned: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    hub_id = None
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("id: "):
            hub_id = stripped[4:].strip()
        elif stripped.startswith("revision: ") and hub_id:
            revision = stripped[len("revision: "):].split("#")[0].strip().strip('"')
            if not COMMIT.fullmatch(revision):
                commit = pinned.get(hub_id) or resolve(hub_id, revision)
                pinned[hub_id] = commit
                indent = line[: len(line) - len(line.lstrip())]
                # quoted: a commit of digits only would otherwise load as an integer
                lines[number] = f'{indent}revision: "{commit}"  # was {revision}\n'
            hub_id = None
    return "".join(lines), pinned


def main() -> int:
    from huggingface_hub import HfApi

    api = HfApi()
    text, pinned = pin(SOURCES.read_text(encoding="utf-8"),
                       lambda repo, revision: api.dataset_info(repo, revision=revision).sha)
    SOURCES.write_text(text, encoding="utf-8")
    for repo, commit in sorted(pinned.items()):
        print(f"{repo}: {commit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
