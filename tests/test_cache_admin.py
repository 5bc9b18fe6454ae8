"""`anisotropy cache info | clean`: what is cached, per kind and model, and its removal."""

from __future__ import annotations

import pytest

from anisotropy.__main__ import main
from anisotropy.inputs import cache


@pytest.fixture
def filled(tmp_path, monkeypatch):
    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path))
    for kind, model, size in [("tokens", "minilm", 100), ("tokens", "smollm2", 300),
                              ("models", "smollm2", 50)]:
        cache.get_or_create(kind, {"model": model, "n": size},
                            lambda path, size=size: (path / "x.bin").write_bytes(b"0" * size))
    (tmp_path / "data" / "rte").mkdir(parents=True)
    (tmp_path / "data" / "rte" / "dev.tsv").write_bytes(b"1" * 10)
    return tmp_path


def test_info_sums_each_kind_and_model(filled, capsys):
    rows = {(r["kind"], r["model"]): (r["entries"], r["bytes"]) for r in cache.inventory()}
    assert rows[("data", "")] == (1, 10)
    assert rows[("tokens", "minilm")][0] == 1 and rows[("tokens", "minilm")][1] >= 100
    assert set(rows) == {("data", ""), ("models", "smollm2"), ("tokens", "minilm"),
                         ("tokens", "smollm2")}
    assert main(["cache", "info"]) == 0
    assert "tokens" in capsys.readouterr().out


def test_clean_by_model_kind_and_data(filled):
    assert cache.clean(["tokens"], "smollm2")[0] == 1
    kinds = {(r["kind"], r["model"]) for r in cache.inventory()}
    assert ("tokens", "smollm2") not in kinds and ("models", "smollm2") in kinds
    assert cache.clean(["data"]) == (1, 10)  # only the fetched data
    assert {r["kind"] for r in cache.inventory()} == {"tokens", "models"}
    assert cache.clean()[0] == 2  # every kind but data
    assert cache.inventory() == []


def test_clean_refuses_an_unknown_kind_before_removing_anything(filled, capsys):
    before = cache.inventory()
    assert main(["cache", "clean", "tokens", "attentions"]) == 2
    assert "attentions" in capsys.readouterr().err and cache.inventory() == before



def test_the_declared_kinds_are_the_kinds_the_library_caches():
    import re
    from pathlib import Path

    library = Path(cache.__file__).parents[1]
    written = {kind for path in library.rglob("*.py")
               for kind in re.findall(r'get_or_create\(\s*"(\w+)"', path.read_text())}
    assert written and set(cache.KINDS) == written | {"data"}
