"""Claim settings: one declaration per parameter (type, range, default, meaning), checked in
one place for the CLI, the workflow and a notebook's parameters cell."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

from anisotropy.book import catalog, runner
from anisotropy.inputs.settings import ClaimSettings, SettingsError, check_value, param

SLUGS = list(catalog.claims())


@pytest.mark.parametrize("slug", SLUGS)
def test_every_claim_module_declares_the_interface(slug):
    module = catalog.claim_module(slug)
    declaration = module.DECLARATION
    assert module.SLUG == declaration.slug == slug and module.Settings.slug == slug
    assert declaration.model_list in module.Settings.names()
    assert isinstance(declaration.cost, int) and declaration.cost > 0


@pytest.mark.parametrize("slug", SLUGS)
def test_defaults_and_every_profile_are_valid_settings(slug):
    module = catalog.claim_module(slug)
    default = module.Settings()
    assert default.profile == "custom" and default.overrides == ()
    for profile in runner.profiles():
        settings = catalog.settings(slug, profile)
        assert settings.profile == profile
        assert module.models(settings), (slug, profile)
        assert module.inputs(settings), (slug, profile)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_parameter_has_a_meaning_and_a_known_type(slug):
    for row in catalog.claim_module(slug).Settings.describe():
        assert row["meaning"].strip(), row
        assert row["allowed"], row


def test_profile_values_then_overrides():
    smoke = catalog.settings("01-layerwise-anisotropy", "smoke")
    assert smoke.n_sentences == runner.profiles()["smoke"]["01-layerwise-anisotropy"][
        "n_sentences"]
    changed = catalog.settings("01-layerwise-anisotropy", "smoke", {"n_sentences": 50,
                                                                     "models": ["minilm"]})
    assert changed.n_sentences == 50 and changed.models == ("minilm",)
    assert changed.override_dict() == {"models": ["minilm"], "n_sentences": 50}
    assert changed.parameters()["models"] == ["minilm"]
    assert changed != smoke and dataclasses.replace(changed, n_sentences=smoke.n_sentences,
                                                    models=smoke.models) == smoke


def test_unknown_profile_and_parameter_are_named():
    with pytest.raises(SettingsError, match=r"Unknown profile 'fast'; choose one of"):
        catalog.settings("02-clusters-manifolds", "fast")
    with pytest.raises(SettingsError, match=r"'lid' \(did you mean 'lid_k'\?\) is not a "
                                            r"parameter of this claim; its "
                                            r"parameters: \[.*'lid_k'"):
        catalog.settings("02-clusters-manifolds", "smoke", {"lid": 5})


def test_settings_are_immutable():
    settings = catalog.settings("05-isotropy-vs-clusters", "smoke")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.n_seeds = 3
    assert isinstance(settings.glue_tasks, tuple)


def test_a_new_claim_declares_its_parameters_in_one_class():
    @dataclass(frozen=True)
    class Tiny(ClaimSettings):
        slug: ClassVar[str] = "99-tiny"
        n: int = param(3, "how many", min=1, max=5)
        names: tuple[str, ...] = param(["a"], "names", choices=["a", "b"])
        limit: int | None = param(None, "a cap", min=1)

    assert Tiny().names == ("a",) and Tiny(n=5, limit=2).limit == 2
    with pytest.raises(SettingsError, match=r"99-tiny: n must be an integer between 1 and 5; "
                                            r"got 6"):
        Tiny(n=6)
    with pytest.raises(SettingsError, match=r"names must be a non-empty list of items from "
                                            r"\['a', 'b'\]; got \['c'\]"):
        Tiny(names=["c"])
    with pytest.raises(SettingsError, match=r"limit must be null or an integer >= 1; got 0"):
        Tiny(limit=0)
    assert [row["parameter"] for row in Tiny.describe()] == [
        "seed", "train_seed", "device", "dtype", "n", "names", "limit"]


NO_BOUNDS = {"min": None, "max": None, "choices": None, "optional": False, "min_items": 1}


@pytest.mark.parametrize("kind,is_list,optional,meta,good,bad", [
    ("int", False, False, {"min": 0, "max": 3}, [0, 3], [-1, 4, 1.0, True, "1", None]),
    ("float", False, False, {"min": 0.5}, [0.5, 2, 1e9], [0.4, float("nan"), False, "1.0"]),
    ("bool", False, False, {}, [True, False], [0, 1, "yes", None]),
    ("str", False, False, {}, ["gpt2"], ["", "  ", 3, None, ["gpt2"]]),
    ("str", False, False, {"choices": ["a", "b"]}, ["a"], ["c", ""]),
    ("int", False, True, {"min": 1}, [None, 1], [0, "None"]),
    ("int", True, False, {"min": 0}, [[0, 5], (1,)], [[], [-1], [1.5], 3, [True]]),
    ("str", True, False, {"min_items": 0}, [[], ["x"]], [[""], "x", [1]]),
    ("str", True, False, {"choices": "classification_tasks"}, [["rte", "snli"]],
     [["mnli"], [], "rte"]),
])
def test_check_value(kind, is_list, optional, meta, good, bad):
    meta = {**NO_BOUNDS, **meta}
    for value in good:
        assert check_value("p", value, kind, is_list, optional, meta) is None, value
    for value in bad:
        message = check_value("p", value, kind, is_list, optional, meta)
        assert message and message.startswith("p must be ") and message.endswith(repr(value))


def test_task_choices_come_from_the_task_registry():
    from anisotropy.inputs import tasks
    from anisotropy.inputs.settings import _choice_set

    assert _choice_set("sts_tasks") == tasks.names("sts")
    assert "STS-B-dev" in _choice_set("sts_tasks")
    assert _choice_set("classification_tasks") == tasks.names("classification")
    with pytest.raises(SettingsError, match="Unknown choice set 'nope'"):
        _choice_set("nope")


def test_a_notebooks_unknown_profile_lists_the_profiles():
    """``profile = "nope"`` in a parameters cell: the settings refuse it, naming every
    profile (binder among them) before any work."""
    from anisotropy.book import catalog
    from anisotropy.inputs.settings import SettingsError

    with pytest.raises(SettingsError, match=r"Unknown profile 'nope'; choose one of "
                                            r"\['binder', 'full', 'paper', 'smoke'\]"):
        catalog.settings("01-layerwise-anisotropy", "nope")
