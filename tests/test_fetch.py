"""`anisotropy data fetch`, the data roots' search order, and the fake hub's fidelity."""

from __future__ import annotations

import shutil

import huggingface_hub.constants
import pandas as pd
import pytest
from fakehub import hub_frames_from_local, write_fake_hub

from anisotropy.__main__ import main
from anisotropy.inputs import data, datafiles
from anisotropy.inputs.fetch import MIRROR_ENV, fetch


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A mirror of two datasets' folders, and an empty fetch target as ANISOTROPY_DATA."""
    source = tmp_path / "mirror"
    for name in ("rte", "sts13"):
        shutil.copytree(data.dataset_root(name) / name, source / name)
    monkeypatch.setenv(MIRROR_ENV, str(source))
    monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path / "fetched"))
    monkeypatch.setattr(datafiles, "_VERIFIED", {})
    return source


def test_fetch_downloads_verifies_and_keeps(mirror, tmp_path, capsys):
    assert main(["data", "fetch", "rte"]) == 0
    out = capsys.readouterr().out
    assert "rte/dev.tsv" in out and "2 downloaded" in out
    for relpath, entry in datafiles.sources()["rte"]["files"].items():
        assert datafiles.sha256_of(tmp_path / "fetched" / relpath) == entry["sha256"]
    assert len(data.rte("dev")) == 277  # read from the fetched copy
    again = fetch(["rte"])
    assert {item.status for item in again} == {"present"}


def test_fetch_refuses_a_file_whose_hash_differs(mirror, tmp_path):
    corrupt = mirror / "sts13" / "STS.gs.FNWN.txt"
    corrupt.write_bytes(corrupt.read_bytes() + b"\n")
    with pytest.raises(data.DataError, match=r"Refused sts13/STS.gs.FNWN.txt from .*: its sha256 "
                                             r"is [0-9a-f]{64}, expected [0-9a-f]{64}"):
        fetch(["sts13"])
    assert not (tmp_path / "fetched" / "sts13" / "STS.gs.FNWN.txt").exists()
    assert not list((tmp_path / "fetched" / "sts13").glob(".fetch-*"))


def test_fetch_names_an_unknown_dataset_before_downloading(mirror, tmp_path):
    with pytest.raises(data.DataError, match=r"Unknown dataset\(s\) \['imdb'\]; choose from"):
        fetch(["rte", "imdb"])
    assert not (tmp_path / "fetched").exists()


def test_fetch_names_an_unreachable_source(mirror, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, "http://127.0.0.1:9/none")
    with pytest.raises(data.DataError, match=r"Could not download rte/.* from http://127"):
        fetch(["rte"])


def test_search_order_and_the_shared_switch(tmp_path, monkeypatch):
    """Without ANISOTROPY_DATA: data/raw, the fetch folder, then ../shared/data unless
    ANISOTROPY_NO_SHARED=1 turns that fallback off."""
    monkeypatch.delenv("ANISOTROPY_DATA", raising=False)
    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache" / "data" / "rte").mkdir(parents=True)
    roots = datafiles.data_roots()
    assert tmp_path / "cache" / "data" in roots
    assert datafiles.dataset_root("rte") == tmp_path / "cache" / "data"
    monkeypatch.setenv(datafiles.NO_SHARED_ENV, "1")
    assert all("shared" not in str(root) for root in datafiles.data_roots())
    assert datafiles.dataset_root("snli") is None


# the local reader's columns that a hub copy cannot give (HUB_ADAPTERS documents each)
NOT_IN_HUB = {"sick": ["label", "subset"], "cola": ["source"], "wic": ["pos"],
              **{f"sts{y}": ["subset"] for y in range(12, 17)}}


@pytest.mark.parametrize("name", sorted(data.HUB_ADAPTERS))
def test_fake_hub_rows_read_back_as_the_local_rows(name, tmp_path, monkeypatch):
    """The fake hub's rows (built from the local files) read back, through the hub loader,
    as the local rows: the fixture stands for the data the book reads."""
    cache = write_fake_hub(tmp_path / "hf", hub_frames_from_local([name]))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    for split in data.HUB_ADAPTERS[name].splits:
        local = data.load(name, split)
        monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path))
        hub = data.load(name, split)
        monkeypatch.delenv("ANISOTROPY_DATA")
        keep = [c for c in local.columns if c not in NOT_IN_HUB.get(name, [])]
        if name == "rt-polarity":  # the hub loader orders positives first, as the file does
            local, hub = (f.sort_values(["label", "sentence"], ignore_index=True)
                          for f in (local, hub))
        pd.testing.assert_frame_equal(hub[keep], local[keep])


def test_data_sources_names_local_files_and_hub_commits(monkeypatch):
    monkeypatch.setattr(datafiles, "_VERIFIED", {})
    monkeypatch.setattr(datafiles, "_HUB_READS", {})
    data.rte("dev")
    datafiles.record_hub_read("snli", "dev", "stanfordnlp/snli", "abc123")
    assert datafiles.data_sources() == {"rte": "local: 1 file, sha256 verified",
                                        "snli/dev": "hub:stanfordnlp/snli@abc123"}
    assert datafiles.verified_files()["hub:snli/dev"] == "stanfordnlp/snli@abc123"


def test_pinning_replaces_branch_revisions_with_commits():
    """scripts/pin_hub_revisions.py: every hub block's branch revision becomes the commit
    the hub names (one lookup per repository), and the file still loads."""
    import hashlib
    import importlib.util

    import yaml

    spec = importlib.util.spec_from_file_location(
        "pin", datafiles.PROJECT_ROOT / "scripts" / "pin_hub_revisions.py")
    pin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pin)
    asked = []

    def resolve(repo, revision):
        asked.append(repo)
        # digits only for one repository: a commit YAML would read as an integer unquoted
        return "1" * 40 if repo == "nyu-mll/glue" else hashlib.sha1(repo.encode()).hexdigest()

    text, pinned = pin.pin(datafiles.SOURCES_FILE.read_text(), resolve)
    loaded = yaml.safe_load(text)["datasets"]
    hubs = [block["hub"] for block in loaded.values() if "hub" in block]
    assert hubs and all(isinstance(hub["revision"], str) and pin.COMMIT.fullmatch(
        hub["revision"]) for hub in hubs)
    assert sorted(asked) == sorted(set(asked)) == sorted(pinned)  # glue's configs: one lookup
    assert pin.pin(text, resolve)[1] == {}  # pinned revisions are left alone
