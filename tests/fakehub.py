"""A fake Hugging Face hub: a real hub cache holding the datasets' parquet exports.

:func:`write_fake_hub` lays out, under ``HF_HOME/hub``, what ``huggingface_hub.
snapshot_download`` leaves after downloading each dataset's ``refs/convert/parquet``
revision (``datasets--OWNER--NAME/refs/<revision>`` naming a commit, and
``snapshots/<commit>/<config>/<split>/0000.parquet``). With ``HF_HUB_OFFLINE=1`` the
project's hub loader then takes the same call as a user's download and finds the files.

:func:`hub_frames_from_local` builds the hub copies' rows from the local files (the
inverse of :data:`anisotropy.inputs.hub_data.HUB_ADAPTERS`), so a notebook run against the
fake hub reads the book's data in the hub's schema.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from anisotropy.inputs import data
from anisotropy.inputs.hub_data import HUB_ADAPTERS, SNLI_LABELS, hub_source


def write_fake_hub(hf_home: Path, frames: dict[tuple[str, str], pd.DataFrame]) -> Path:
    """Write ``{(dataset, hub split): rows in the hub's schema}`` as a hub cache under
    ``hf_home/hub``; returns that cache folder. One commit per dataset repository."""
    cache = Path(hf_home) / "hub"
    by_repo: dict[str, list[tuple[str, str, pd.DataFrame]]] = {}
    for (name, hub_split), frame in frames.items():
        hub = hub_source(name)
        by_repo.setdefault(hub["id"], []).append((name, hub_split, frame))
    for repo, items in by_repo.items():
        revision = str(hub_source(items[0][0])["revision"])
        commit = hashlib.sha1(repr(sorted((n, s) for n, s, _ in items)).encode()).hexdigest()
        storage = cache / ("datasets--" + repo.replace("/", "--"))
        ref = storage / "refs" / revision
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(commit)
        for name, hub_split, frame in items:
            target = (storage / "snapshots" / commit / hub_source(name)["config"] / hub_split
                      / "0000.parquet")
            target.parent.mkdir(parents=True, exist_ok=True)
            frame.to_parquet(target, index=False)
    return cache


def _sts(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame[["sentence1", "sentence2", "score"]].copy()
    if frame["subset"].str.contains("/").all():  # STS-B: genre/dataset
        out["genre"] = frame["subset"].str.split("/").str[0]
        out["dataset"] = frame["subset"].str.split("/").str[1]
    return out


def _wic(frame: pd.DataFrame) -> pd.DataFrame:
    def start(sentence: str, index: int) -> int:
        words = sentence.split(" ")
        return len(" ".join(words[:index])) + (1 if index else 0)

    first = frame["indices"].str.split("-").str[0].astype(int)
    second = frame["indices"].str.split("-").str[1].astype(int)
    return pd.DataFrame({
        "word": frame["word"], "sentence1": frame["sentence1"], "sentence2": frame["sentence2"],
        "start1": [start(s, i) for s, i in zip(frame["sentence1"], first, strict=True)],
        "start2": [start(s, i) for s, i in zip(frame["sentence2"], second, strict=True)],
        "label": frame["label"].astype(np.int64)})


INVERSE = {
    **{name: _sts for name in ["stsbenchmark", *(f"sts{y}" for y in range(12, 17)), "sick"]},
    "rt-polarity": lambda f: pd.DataFrame({"text": f["sentence"], "label": f["label"]}),
    "snli": lambda f: pd.DataFrame({
        "premise": f["sentence1"], "hypothesis": f["sentence2"],
        "label": f["label"].map({label: i for i, label in enumerate(SNLI_LABELS)})}),
    "wikitext-2": lambda f: pd.DataFrame({"text": " " + f["text"] + " \n"}),
    "ptb": lambda f: pd.DataFrame({"sentence": f["text"]}),
    "sst2": lambda f: pd.DataFrame({"sentence": f["sentence"], "label": f["label"],
                                    "idx": np.arange(len(f), dtype=np.int32)}),
    "cola": lambda f: pd.DataFrame({"sentence": f["sentence"], "label": f["label"],
                                    "idx": np.arange(len(f), dtype=np.int32)}),
    "rte": lambda f: pd.DataFrame({
        "sentence1": f["sentence1"], "sentence2": f["sentence2"],
        "label": (f["label"] != "entailment").astype(np.int64),
        "idx": np.arange(len(f), dtype=np.int32)}),
    "wic": _wic,
}


def hub_frames_from_local(names: list[str] | None = None) -> dict[tuple[str, str], pd.DataFrame]:
    """The hub copies' rows, in the hub's schema, rebuilt from the local files of ``names``
    (default: every dataset with a hub copy): each local split the hub offers goes to its
    hub split; a local split made of several hub splits is cut into equal parts."""
    frames = {}
    for name in names or list(HUB_ADAPTERS):
        for split, hub_splits in HUB_ADAPTERS[name].splits.items():
            rows = INVERSE[name](data.load(name, split)).reset_index(drop=True)
            parts = np.array_split(np.arange(len(rows)), len(hub_splits))
            for hub_split, part in zip(hub_splits, parts, strict=True):
                frames[(name, hub_split)] = rows.iloc[part].reset_index(drop=True)
    return frames
