"""Write ``data/sources.yaml`` from the data manifest (``../shared/data/MANIFEST.json``).

Run once when the manifest changes: ``python scripts/sources_from_manifest.py [MANIFEST]``.
The file it writes is committed; the project reads only it, never the manifest. Hub ids,
configs and revisions are this project's (``HUB`` below): the manifest's free-text hub
notes are not machine-readable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

#: The parquet export of every hub copy: the dataset viewer's ``refs/convert/parquet``
#: branch, laid out ``<config>/<split>/<shard>.parquet`` for every dataset, whether its
#: main branch holds parquet files or a loading script (PTB and WiC do; ``datasets`` >= 4
#: refuses scripts). A commit of that branch could not be looked up from the build
#: machine (no hub access), so ``revision`` names the branch and every results file
#: records the commit actually read; ``scripts/pin_hub_revisions.py`` pins them.
PARQUET = "refs/convert/parquet"
HUB = {
    "stsbenchmark": ("mteb/stsbenchmark-sts", "default"),
    **{f"sts{y}": (f"mteb/sts{y}-sts", "default") for y in range(12, 17)},
    "sick": ("mteb/sickr-sts", "default"),
    "rt-polarity": ("cornell-movie-review-data/rotten_tomatoes", "default"),
    "snli": ("stanfordnlp/snli", "plain_text"),
    "wikitext-2": ("Salesforce/wikitext", "wikitext-2-v1"),
    "ptb": ("ptb-text-only/ptb_text_only", "penn_treebank"),
    "sst2": ("nyu-mll/glue", "sst2"),
    "cola": ("nyu-mll/glue", "cola"),
    "rte": ("nyu-mll/glue", "rte"),
    "wic": ("aps/super_glue", "wic"),
}


def url(entry: dict) -> str | None:
    """The file's address at its source commit, or None when it is not a GitHub file."""
    repo, commit = entry.get("source_repo", ""), entry.get("source_commit")
    if not commit or " " in repo or "/" not in repo:
        return None
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{entry['source_path']}"


def main(manifest_path: Path) -> None:
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    datasets = {}
    for name, meta in sorted(manifest["datasets"].items()):
        block = {"description": meta["description"], "license": meta["license"],
                 "citation": meta["citation"]}
        if name in HUB:
            hub_id, config = HUB[name]
            block["hub"] = {"id": hub_id, "config": config, "revision": PARQUET}
        block["files"] = {}
        datasets[name] = block
    for entry in manifest["files"]:
        source = (f"{entry['source_repo']}@{entry['source_commit']}:{entry['source_path']}"
                  if entry.get("source_commit") else entry["source_repo"])
        datasets[entry["dataset"]]["files"][entry["path"]] = {
            "sha256": entry["sha256"], "size_bytes": entry["size_bytes"],
            "url": url(entry), "source": source}
    header = ("# Every dataset the book reads: where each file comes from (url, at a fixed\n"
              "# commit), its sha256 and size, its licence and citation, and its Hugging Face\n"
              "# hub copy.\n"
              "# Written by scripts/sources_from_manifest.py from the data manifest; read by\n"
              "# anisotropy.inputs.datafiles (verification), `anisotropy data fetch` (download)\n"
              "# and anisotropy.inputs.hub_data (the hub copy at `revision`, when a dataset is in\n"
              "# no data root).\n")
    text = yaml.safe_dump({"datasets": datasets}, sort_keys=False, allow_unicode=True, width=100)
    (ROOT / "data" / "sources.yaml").write_text(header + text, encoding="utf-8")


if __name__ == "__main__":
    default = ROOT.parent / "shared" / "data" / "MANIFEST.json"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
