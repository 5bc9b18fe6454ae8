"""`anisotropy data fetch`, the data roots' search order, and the fake hub's fidelity."""

from __future__ import annotations

import shutil

import huggingface_hub.constants
import pandas as pd
import pytest
from fakehub import hub_frames_from_local, write_fake_hub
from project_scripts import load_script

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
    monkeypatch.setattr(datafiles, "_HUB_FILES", {})
    data.rte("dev")
    datafiles.record_hub_read("snli", "dev", "stanfordnlp/snli", "abc123")
    assert datafiles.data_sources() == {"rte": "local: 1 file, sha256 verified",
                                        "snli/dev": "hub:stanfordnlp/snli@abc123"}
    assert datafiles.verified_files()["hub:snli/dev"] == "stanfordnlp/snli@abc123"


def test_pinning_replaces_branch_revisions_with_commits():
    """scripts/pin_hub_revisions.py: every hub block's branch revision becomes the commit
    the hub names (one lookup per repository), and the file still loads."""
    import hashlib

    import yaml

    pin = load_script("pin_hub_revisions")
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


# ------------------------------------------------------------------- archives and urls


def _archives(tmp_path):
    """A tarball and a wheel (zip) holding small members, declared as sources.yaml would."""
    import hashlib
    import io
    import tarfile
    import zipfile

    served = tmp_path / "served"
    served.mkdir()
    members = {"docs/README.txt": b"read me\r\n", "pkg/data/a.txt": b"a 1\n",
               "pkg/data/b.tsv": b"b\t2\n"}
    with tarfile.open(served / "set.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo("docs/README.txt")
        info.size = len(members["docs/README.txt"])
        tar.addfile(info, io.BytesIO(members["docs/README.txt"]))
    with zipfile.ZipFile(served / "pkg-1.0-py3-none-any.whl", "w") as wheel:
        for name in ("pkg/data/a.txt", "pkg/data/b.tsv"):
            wheel.writestr(name, members[name])

    def sha(blob):
        return hashlib.sha256(blob).hexdigest()

    def declared(archive_name, member, relpath):
        blob = (served / archive_name).read_bytes()
        return relpath, {"sha256": sha(members[member]), "size_bytes": len(members[member]),
                         "source": "test", "archive": {
                             "url": (served / archive_name).as_uri(), "sha256": sha(blob),
                             "size_bytes": len(blob), "member": member}}

    files = dict([declared("set.tar.gz", "docs/README.txt", "set/README.txt"),
                  declared("pkg-1.0-py3-none-any.whl", "pkg/data/a.txt", "set/a.txt"),
                  declared("pkg-1.0-py3-none-any.whl", "pkg/data/b.tsv", "set/b.tsv")])
    return served, members, {"set": {"files": files}}


def test_fetch_takes_members_out_of_verified_archives(tmp_path, monkeypatch):
    from anisotropy.inputs import fetch as fetching

    served, members, declared = _archives(tmp_path)
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    monkeypatch.setattr(fetching, "sources", lambda: declared)
    downloads = []
    real = fetching._download
    monkeypatch.setattr(fetching, "_download",
                        lambda url, target: (downloads.append(url), real(url, target)))
    said = []
    outcomes = fetch(["set"], root=tmp_path / "out", progress=said.append)
    assert [o.status for o in outcomes] == ["downloaded"] * 3
    assert (tmp_path / "out/set/README.txt").read_bytes() == members["docs/README.txt"]
    assert (tmp_path / "out/set/b.tsv").read_bytes() == members["pkg/data/b.tsv"]
    assert len(downloads) == 2, "each archive is downloaded once per call"
    assert not list((tmp_path / "out/set").glob(".fetch-*")), "no archive is kept"
    assert "3 of 3 files to fetch" in said[0] and "MB to download" in said[0]


def test_fetch_refuses_an_archive_or_member_that_differs(tmp_path, monkeypatch):
    from anisotropy.inputs import fetch as fetching

    served, members, declared = _archives(tmp_path)
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    monkeypatch.setattr(fetching, "sources", lambda: declared)
    declared["set"]["files"]["set/a.txt"]["sha256"] = "0" * 64
    with pytest.raises(data.DataError, match=r"Refused set/a.txt \(member pkg/data/a.txt of "):
        fetch(["set"], root=tmp_path / "out", progress=lambda _: None)
    assert not (tmp_path / "out/set/a.txt").exists()
    with (served / "set.tar.gz").open("ab") as tarball:
        tarball.write(b"\0")  # another archive at the same url
    with pytest.raises(data.DataError, match=r"Refused set/README.txt from .*set.tar.gz: its "
                                             r"sha256 is [0-9a-f]{64}, expected"):
        fetch(["set"], root=tmp_path / "again", progress=lambda _: None)
    assert not list((tmp_path / "again/set").glob(".fetch-*"))


def test_every_declared_file_has_a_source_that_names_it():
    """The url of every file of data/sources.yaml is the file its source names, and no
    archive unless the file is one; or the file is a declared member of an archive (with
    the archive's sha256 and size) whose url is an archive: a README declared with a
    tarball's url made `data fetch` stop partway."""
    import posixpath
    from urllib.parse import urlparse

    suffixes = (".tar.gz", ".tgz", ".tar", ".zip", ".whl")
    for block in datafiles.sources().values():
        for relpath, entry in block["files"].items():
            archive = entry.get("archive")
            if archive is None:
                url = entry.get("url")
                assert url, f"{relpath}: no url and no archive, so `data fetch` cannot get it"
                path = urlparse(url).path
                assert path.endswith("/" + entry["source"].rsplit(":", 1)[-1]), (
                    f"{relpath}: its url {url} is not the file its source names")
                assert not path.endswith(suffixes) or relpath.endswith(suffixes), (
                    f"{relpath}: its url {url} is an archive; declare the file as its member")
                continue
            assert set(archive) == {"url", "sha256", "size_bytes", "member"}, relpath
            assert len(archive["sha256"]) == 64 and archive["size_bytes"] > entry["size_bytes"]
            path = urlparse(archive["url"]).path
            assert path.endswith(suffixes), archive["url"]
            assert posixpath.basename(archive["member"]) == posixpath.basename(relpath), (
                f"{relpath}: the member {archive['member']} is another file")


def test_read_member_names_a_missing_member(tmp_path):
    from anisotropy.inputs.fetch import read_member

    served, _, _ = _archives(tmp_path)
    assert read_member(served / "set.tar.gz", "docs/README.txt") == b"read me\r\n"
    with pytest.raises(data.DataError, match=r"set.tar.gz has no member 'docs/other.txt'"):
        read_member(served / "set.tar.gz", "docs/other.txt")
    with pytest.raises(data.DataError, match=r"has no member 'pkg/x'"):
        read_member(served / "pkg-1.0-py3-none-any.whl", "pkg/x")


def test_fetch_missing_gets_only_what_no_data_root_holds(mirror, tmp_path, monkeypatch, capsys):
    """What `make test` and `make book` run first: the datasets no data root holds, fetched;
    nothing when every one is somewhere."""
    from anisotropy.inputs import fetch as fetching

    two = {name: datafiles.sources()[name] for name in ("rte", "sts13")}
    monkeypatch.setattr(fetching, "sources", lambda: two)
    assert fetching.missing_datasets() == ["rte", "sts13"]  # ANISOTROPY_DATA not made yet
    shutil.copytree(mirror / "rte", tmp_path / "fetched" / "rte")
    assert fetching.missing_datasets() == ["sts13"]
    assert main(["data", "fetch", "--missing"]) == 0
    out = capsys.readouterr().out
    assert "in no data root: sts13\n" in out and "rte/" not in out
    assert fetching.missing_datasets() == []
    assert main(["data", "fetch", "--missing"]) == 0
    assert "nothing to fetch" in capsys.readouterr().out
    assert main(["data", "fetch", "--missing", "rte"]) == 2


def test_the_readme_says_which_hub_copies_are_pinned():
    """The README's list of hub copies pinned to a commit is data/sources.yaml's."""
    import re

    from anisotropy.inputs.data import PROJECT_ROOT

    pinned = sorted(name for name, block in datafiles.sources().items()
                    if re.fullmatch(r"[0-9a-f]{40}", str((block.get("hub") or {}).get(
                        "revision", ""))))
    readme = " ".join((PROJECT_ROOT / "README.md").read_text(encoding="utf-8").split())
    said = re.search(r"Hub copies pinned to a commit: ([^.]+)\.", readme).group(1)
    assert said == (", ".join(pinned) if pinned else "none yet"), (
        "the README's list of pinned hub copies differs from data/sources.yaml")
