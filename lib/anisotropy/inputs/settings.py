"""Claim settings: every parameter of a claim declared once, with its type, range, default
and meaning, and validated in one place.

Each claim module declares a frozen dataclass ``Settings`` (a subclass of
:class:`ClaimSettings`) whose fields are made with :func:`param`. Profiles
(``notebooks/profiles.yaml``) are named sets of overrides, validated against it:

>>> from anisotropy.claims.layerwise.claim import Settings   # doctest: +SKIP
>>> Settings.for_profile("smoke", n_sentences=200).n_sentences    # doctest: +SKIP
200

The runner, the workflow and a notebook's ``parameters`` cell all build their settings with
:meth:`ClaimSettings.for_profile`, so a bad value gets the same message wherever it comes
from, and before any kernel or forward pass starts. Importing this module is cheap (PyYAML
only): the CLI refuses bad input at once.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import yaml

from anisotropy.geometry.streams import sub_seed
from anisotropy.inputs import tasks
from anisotropy.inputs.data import PROJECT_ROOT
from anisotropy.inputs.devices import check_device_name

__all__ = ["ClaimSettings", "SettingsError", "param", "profiles", "PROFILES_FILE", "TRANSFORMERS",
           "check_value"]

PROFILES_FILE = PROJECT_ROOT / "notebooks" / "profiles.yaml"


class SettingsError(ValueError):
    """A parameter that is not declared, or a value out of its type or range."""


def param(default: Any, meaning: str, *, min: float | None = None,  # noqa: A002
          max: float | None = None, choices: list | str | None = None,  # noqa: A002
          optional: bool = False, min_items: int = 1) -> Any:
    """A declared parameter: a dataclass field with its default, meaning and range.

    Parameters
    ----------
    default : Any
        The value when neither a profile nor an override gives one. A list default is
        stored as a tuple (settings are immutable).
    meaning : str
        One line: what the parameter does (shown in the settings table of each page).
    min, max : float or None, optional
        Inclusive bounds of a number, or of each item of a list of numbers (default None:
        unbounded). Keyword-only.
    choices : list or str or None, optional
        Allowed values (of each item, for lists): a list, or the name of a set:
        ``"profiles"``, ``"sts_tasks"``, ``"classification_tasks"``, ``"word_tasks"``,
        ``"corpora"``. Default None: any value of the type. Keyword-only.
    optional : bool, optional
        Whether ``None`` is allowed (default False). Keyword-only.
    min_items : int, optional
        Least number of items of a list (default 1). Keyword-only.

    Returns
    -------
    dataclasses.Field
        A field with that default and with ``meaning``, ``min``, ``max``, ``choices``,
        ``optional`` and ``min_items`` in its ``metadata``.
    """
    if isinstance(default, list):
        default = tuple(default)
    return field(default=default, metadata={
        "meaning": meaning, "min": min, "max": max, "choices": choices,
        "optional": optional, "min_items": min_items})


@lru_cache(maxsize=4)
def _profiles(path: Path, mtime: float) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def profiles() -> dict[str, dict[str, dict]]:
    """``{profile: {slug: {parameter: value}}}`` from ``notebooks/profiles.yaml``.

    Returns
    -------
    dict
        The parsed file (empty when the file is); read again when its modification time
        changes.
    """
    return _profiles(PROFILES_FILE, PROFILES_FILE.stat().st_mtime)


def _choice_set(name: str) -> list:
    if name == "profiles":
        return sorted(profiles())
    if name in ("sts_tasks", "classification_tasks", "corpora", "word_tasks"):
        return tasks.names({"sts_tasks": "sts", "classification_tasks": "classification",
                            "corpora": "corpora", "word_tasks": "word_similarity"}[name])
    raise SettingsError(f"Unknown choice set {name!r}; use a list, 'profiles', 'sts_tasks', "
                        "'classification_tasks', 'word_tasks' or 'corpora'.")


def _kind(annotation: Any) -> tuple[str, bool, bool]:
    """``(item type, is_list, optional)`` of a field annotation such as
    ``"tuple[str, ...] | None"`` (annotations are strings: ``from __future__ import
    annotations``)."""
    text = annotation if isinstance(annotation, str) else annotation.__name__
    text = text.replace("typing.", "").replace(" ", "")
    optional = text.endswith("|None") or text.startswith("Optional[")
    text = text.removesuffix("|None")
    if text.startswith("tuple[") or text.startswith("list["):
        return text[text.index("[") + 1:].split(",")[0].rstrip("]"), True, optional
    return text, False, optional


def _fits(value: Any, kind: str, meta: dict, choices: list | None) -> bool:
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "str":
        ok = isinstance(value, str) and bool(value.strip())
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "float":
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and math.isfinite(value))
    else:
        raise SettingsError(f"Unsupported parameter type {kind!r}.")
    if ok and kind in ("int", "float"):
        ok = (meta["min"] is None or value >= meta["min"]) and (
            meta["max"] is None or value <= meta["max"])
    return ok and (choices is None or value in choices)


def _bounds(meta: dict) -> str:
    low, high = meta["min"], meta["max"]
    if low is not None and high is not None:
        return f" between {low} and {high}"
    if low is not None:
        return f" >= {low}"
    return f" <= {high}" if high is not None else ""


def check_value(name: str, value: Any, kind: str, is_list: bool, optional: bool,
                meta: dict) -> str | None:
    """``None`` when ``value`` fits; else a sentence naming the parameter, what is allowed
    and what was given (``n_sentences must be an integer >= 1; got -5``).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : Any
        The value to check.
    kind : str
        The type of the value, or of each item of a list: ``"int"``, ``"float"``,
        ``"bool"`` or ``"str"`` (a non-empty string).
    is_list : bool
        Whether ``value`` must be a list or tuple of such items.
    optional : bool
        Whether ``None`` is allowed.
    meta : dict
        The field's metadata (:func:`param`): ``min``, ``max``, ``choices`` (a list or the
        name of a set) and ``min_items`` (default 1 when absent).

    Returns
    -------
    str or None
        None when the value fits, else the sentence (without a final period).

    Raises
    ------
    SettingsError
        For an unknown choice-set name or an unsupported ``kind``.
    """
    choices = meta["choices"]
    if isinstance(choices, str):
        choices = _choice_set(choices)
    if optional and value is None:
        return None
    min_items = int(meta.get("min_items", 1))
    if is_list:
        ok = (isinstance(value, (list, tuple)) and len(value) >= min_items
              and all(_fits(item, kind, meta, choices) for item in value))
    else:
        ok = _fits(value, kind, meta, choices)
    if ok:
        return None
    if choices is not None:
        expected = f"items from {list(choices)}" if is_list else f"one of {list(choices)}"
    else:
        names = {"int": ("an integer", "integers"), "float": ("a number", "numbers"),
                 "bool": ("true or false", "true/false values"),
                 "str": ("a non-empty string", "non-empty strings")}[kind]
        expected = names[is_list] + _bounds(meta)
    if is_list:
        expected = ("a list of " if min_items == 0 else "a non-empty list of " if min_items == 1
                    else f"a list of at least {min_items} ") + expected
    if optional:
        expected = f"null or {expected}"
    return f"{name} must be {expected}; got {value!r}"


@dataclass(frozen=True)
class ClaimSettings:
    """Base of every claim's ``Settings``: the parameters all claims share.

    A subclass sets ``slug`` (the claim it configures) and adds its own fields with
    :func:`param`. Every value is checked when the instance is made; lists become tuples.
    ``profile`` and ``overrides`` record where the values came from (set by
    :meth:`for_profile`); they are not parameters. The parameters (``seed``, ``train_seed``,
    ``device``, ``dtype`` and a subclass's own) are declared with :func:`param`, each with
    its meaning, and are not listed here again.

    Attributes
    ----------
    profile : str
        The profile the values came from (:meth:`for_profile`); default ``"custom"``. Not
        compared.
    overrides : tuple
        The values given on top of the profile, sorted ``(name, value)`` pairs with lists as
        tuples (:meth:`for_profile`, :meth:`override_dict`); default empty. Not compared.
    """

    slug: ClassVar[str] = ""

    seed: int = param(0, "the seed the sample derives from (sentences, windows, pairs, items, "
                      "words, bootstrap draws), and what is trained when train_seed is null",
                      min=0)
    train_seed: int | None = param(None, "the seed of what is trained or initialised on the "
                                   "sample (K-means starts, flows, classifiers, fine-tuning); "
                                   "null: the seed", min=0, optional=True)
    device: str = param("auto", "forward passes: auto (CUDA, else Apple MPS, else CPU), cpu, "
                        "cuda, cuda:N or mps")
    dtype: str = param("float32", "forward-pass precision; float16 or bfloat16 on "
                       "accelerators only", choices=["float32", "float16", "bfloat16"])
    profile: str = field(default="custom", compare=False, metadata={"meta": True})
    overrides: tuple = field(default=(), compare=False, metadata={"meta": True})

    def __post_init__(self) -> None:
        problems = []
        for spec in self.parameter_fields():
            value = getattr(self, spec.name)  # checked as given, then stored immutable
            if isinstance(value, list):
                object.__setattr__(self, spec.name, tuple(value))
            kind, is_list, optional = _kind(spec.type)
            problem = check_value(spec.name, value, kind, is_list,
                                  optional or spec.metadata["optional"], spec.metadata)
            if problem is None and spec.name == "device":
                try:
                    check_device_name(value)
                except ValueError as error:
                    problem = str(error).rstrip(".")
            if problem:
                problems.append(problem)
        if len(problems) == 1:
            raise SettingsError(f"{self.slug}: {problems[0]}.")
        if problems:
            raise SettingsError(f"{self.slug}: bad parameters:\n"
                                + "\n".join(f"- {p}" for p in problems))

    def train_stream(self, name: str) -> int | None:
        """The training seed of stream ``name`` (:func:`~anisotropy.geometry.streams.sub_seed`
        of ``train_seed``), ``None`` when ``train_seed`` is null: pass it as ``train_seed``
        beside ``stream_seed(self.seed, name)``.

        Parameters
        ----------
        name : str
            The stream's ``'/'``-separated path, as for the sample seed.

        Returns
        -------
        int or None
            ``stream_seed(train_seed, name)``, or None when ``train_seed`` is None.
        """
        return sub_seed(self.train_seed, name)

    # ------------------------------------------------------------------ declarations
    @classmethod
    def parameter_fields(cls) -> list[dataclasses.Field]:
        """The declared parameters (every field but ``profile`` and ``overrides``).

        Returns
        -------
        list of dataclasses.Field
            The fields without ``"meta"`` in their metadata, in declaration order (the shared
            fields of :class:`ClaimSettings` first).
        """
        return [f for f in dataclasses.fields(cls) if not f.metadata.get("meta")]

    @classmethod
    def names(cls) -> list[str]:
        """The names of the declared parameters.

        Returns
        -------
        list of str
            The names of :meth:`parameter_fields`, in the same order.
        """
        return [f.name for f in cls.parameter_fields()]

    @classmethod
    def describe(cls) -> list[dict]:
        """One row per parameter: name, default, allowed values and meaning.

        Returns
        -------
        list of dict
            Per parameter: ``parameter`` (its name), ``default``, ``allowed`` (e.g.
            ``"int >= 1"``, ``"one of [...]"``, with ``", or None"`` when None is allowed)
            and ``meaning``.
        """
        rows = []
        for spec in cls.parameter_fields():
            kind, is_list, optional = _kind(spec.type)
            meta = spec.metadata
            allowed = (f"one of {meta['choices']}" if meta["choices"] else
                       f"{'list of ' if is_list else ''}{kind}{_bounds(meta)}")
            if optional or meta["optional"]:
                allowed += ", or None"
            rows.append({"parameter": spec.name, "default": spec.default,
                         "allowed": allowed, "meaning": meta["meaning"]})
        return rows

    # ------------------------------------------------------------------ construction
    @classmethod
    def check_names(cls, names) -> None:
        """Refuse names that are not parameters of this claim, suggesting the closest.

        Parameters
        ----------
        names : iterable of str
            The names to check (a dict of values checks its keys).

        Raises
        ------
        SettingsError
            If any name is not a parameter; the message names each, with the closest parameter
            when there is one, and lists the parameters.
        """
        valid = cls.names()
        unknown = [name for name in names if name not in valid]
        if not unknown:
            return
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, valid, n=1)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise SettingsError(f"{cls.slug}: {', '.join(hints)} "
                            f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'}"
                            f" of this claim; its parameters: {valid}.")

    @classmethod
    def for_profile(cls, profile: str = "full", **overrides: Any) -> ClaimSettings:
        """The settings of a named profile (``notebooks/profiles.yaml``), then ``overrides``.

        Parameters
        ----------
        profile : str, optional
            A profile of ``notebooks/profiles.yaml`` (default ``"full"``); its values for this
            claim's ``slug`` are applied (none when it has none).
        **overrides : Any
            Parameter values that replace the profile's and the defaults.

        Returns
        -------
        ClaimSettings
            An instance of this class, with ``profile`` and ``overrides`` (sorted
            ``(name, value)`` pairs, lists as tuples) recorded.

        Raises
        ------
        SettingsError
            For an unknown profile, a name that is not a parameter, or a value out of its
            type or range; the message names each.
        """
        table = profiles()
        if profile not in table:
            raise SettingsError(f"Unknown profile {profile!r}; choose one of {sorted(table)}.")
        chosen = (table[profile] or {}).get(cls.slug) or {}
        cls.check_names(chosen)
        cls.check_names(overrides)
        values = {**chosen, **overrides}
        settings = cls(**values)
        object.__setattr__(settings, "profile", profile)
        object.__setattr__(settings, "overrides", tuple(sorted(
            (k, tuple(v) if isinstance(v, list) else v) for k, v in overrides.items())))
        return settings

    def parameters(self) -> dict[str, Any]:
        """Every parameter's value, lists as lists (what the results file records).

        Returns
        -------
        dict of str to Any
            ``{name: value}`` for every declared parameter, in declaration order; tuples become
            lists.
        """
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in ((n, getattr(self, n)) for n in self.names())}

    def override_dict(self) -> dict[str, Any]:
        """The overrides given on top of the profile, lists as lists.

        Returns
        -------
        dict of str to Any
            ``{name: value}`` of the overrides (empty when none were given); tuples become
            lists.
        """
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.overrides}


# The book's four transformers: two sentence encoders and two decoders (`anisotropy models`).
TRANSFORMERS = ("sentence-transformers/all-MiniLM-L6-v2", "sentence-transformers/all-mpnet-base-v2",
                "HuggingFaceTB/SmolLM2-135M-Instruct", "google/gemma-3-270m")
