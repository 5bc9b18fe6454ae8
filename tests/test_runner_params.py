"""Runner: parameter types and ranges are checked before a kernel starts; a failing cell is
named with its failing line."""

from __future__ import annotations

import ast
import os
import time
from pathlib import Path

import pytest

from anisotropy.book import runner

SLUGS = runner.available_slugs()


@pytest.fixture
def no_kernel(monkeypatch):
    """Fail the test if papermill is asked to execute anything."""
    import papermill

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel was started for parameters that should be refused")

    monkeypatch.setattr(papermill, "execute_notebook", refuse)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_declared_parameter_has_a_spec(slug):
    missing = sorted(set(runner.declared_parameters(slug)) - set(runner.parameter_specs()))
    assert not missing, f"{slug} declares {missing} without a spec in {runner.PARAMETERS_FILE}"


def test_every_spec_is_declared_by_a_notebook():
    declared = set().union(*(runner.declared_parameters(slug) for slug in SLUGS))
    assert sorted(set(runner.parameter_specs()) - declared) == []


@pytest.mark.parametrize("slug", SLUGS)
def test_notebook_defaults_and_profile_values_fit_their_specs(slug):
    specs = runner.parameter_specs()
    for name, info in runner.declared_parameters(slug).items():
        value = ast.literal_eval(info["default"])
        if name == "profile":
            continue  # "full" is checked against the profiles below
        assert runner.check_parameter(name, value, specs[name]) is None, (slug, name, value)
    for profile in runner.profiles():
        runner.resolve_parameters(slug, profile)  # raises on a bad value


def test_negative_count_refused_at_once(no_kernel):
    began = time.perf_counter()
    with pytest.raises(runner.RunError,
                       match=r"n_sentences must be an integer >= 1; got -5"):
        runner.run("01-layerwise-anisotropy", "smoke",
                   runner.parse_overrides(["n_sentences=-5"]))
    assert time.perf_counter() - began < 1


def test_non_integer_seed_refused(no_kernel):
    with pytest.raises(runner.RunError, match=r"seed must be an integer >= 0; got 'abc'"):
        runner.run("01-layerwise-anisotropy", "smoke", runner.parse_overrides(["seed=abc"]))


def test_unknown_tasks_refused(no_kernel):
    with pytest.raises(runner.RunError, match=r"tasks must be .*'STS-B'.*got \['STS12', 'STS99'\]"):
        runner.run("03-frequency-bias", "smoke", {"tasks": ["STS12", "STS99"]})
    with pytest.raises(runner.RunError, match=r"glue_tasks must be .*'rte'.*got \['mnli'\]"):
        runner.run("05-isotropy-vs-clusters", "smoke", {"glue_tasks": ["mnli"]})
    with pytest.raises(runner.RunError, match=r"sweep_task must be one of"):
        runner.run("04-cluster-isotropy", "smoke", {"sweep_task": "STS17"})


def test_bad_profile_values_are_refused_too(tmp_path, monkeypatch, no_kernel):
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text("tiny:\n  01-layerwise-anisotropy:\n    n_sentences: 0\n"
                        "    models: [minilm, '']\n")
    monkeypatch.setattr(runner, "PROFILES_FILE", profiles)
    with pytest.raises(runner.RunError) as error:
        runner.run("01-layerwise-anisotropy", "tiny")
    message = str(error.value)
    assert "n_sentences must be an integer >= 1; got 0" in message
    assert ("models must be null or a non-empty list of non-empty strings; "
            "got ['minilm', '']") in message


def test_several_problems_are_listed_together():
    with pytest.raises(runner.RunError) as error:
        runner.resolve_parameters("03-frequency-bias", "smoke",
                                  {"max_pairs": 0, "include_sink": 1, "models": []})
    message = str(error.value)
    assert "max_pairs must be null or an integer >= 1; got 0" in message
    assert "include_sink must be true or false; got 1" in message
    assert "models must be null or a non-empty list" in message


def test_valid_overrides_pass(tmp_path, monkeypatch):
    import papermill

    seen = {}

    def fake_execute(source, output, parameters, **kwargs):
        seen.update(parameters)
        Path(os.environ["ANISOTROPY_RESULTS_DIR"], "03-frequency-bias.json").write_text("{}")
        Path(output).write_text("{}")

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path / "build")
    overrides = runner.parse_overrides(["tasks=[STS-B, STS-B-dev]", "max_pairs=null",
                                        "seed=7", "include_sink=true", "models=[minilm]"])
    runner.run("03-frequency-bias", "smoke", overrides)
    assert seen["tasks"] == ["STS-B", "STS-B-dev"] and seen["max_pairs"] is None
    assert seen["seed"] == 7 and seen["include_sink"] is True and seen["models"] == ["minilm"]
    assert seen["n_windows"] == runner.profiles()["smoke"]["03-frequency-bias"]["n_windows"]


@pytest.mark.parametrize("spec,good,bad", [
    ({"type": "int", "min": 0, "max": 3}, [0, 3], [-1, 4, 1.0, True, "1", None]),
    ({"type": "float", "min": 0.5}, [0.5, 2, 1e9], [0.4, float("nan"), False, "1.0"]),
    ({"type": "bool"}, [True, False], [0, 1, "yes", None]),
    ({"type": "str"}, ["gpt2"], ["", "  ", 3, None, ["gpt2"]]),
    ({"type": "str", "choices": ["a", "b"]}, ["a"], ["c", ""]),
    ({"type": "int", "min": 1, "optional": True}, [None, 1], [0, "None"]),
    ({"type": "list[int]", "min": 0}, [[0, 5], (1,)], [[], [-1], [1.5], 3, [True]]),
    ({"type": "list[str]", "min_items": 0}, [[], ["x"]], [[""], "x", [1]]),
    ({"type": "list[str]", "choices": "classification_tasks"}, [["rte", "snli"]],
     [["mnli"], [], "rte"]),
])
def test_check_parameter(spec, good, bad):
    for value in good:
        assert runner.check_parameter("p", value, spec) is None, value
    for value in bad:
        message = runner.check_parameter("p", value, spec)
        assert message and message.startswith("p must be ") and message.endswith(repr(value))


def test_parameter_without_spec_or_with_a_bad_type_refused(monkeypatch, tmp_path):
    specs = tmp_path / "parameters.yaml"
    specs.write_text("profile: {type: str, choices: profiles}\n")
    monkeypatch.setattr(runner, "PARAMETERS_FILE", specs)
    with pytest.raises(runner.RunError, match="n_sentences has no declared type"):
        runner.resolve_parameters("01-layerwise-anisotropy", "smoke")
    with pytest.raises(runner.RunError, match="unknown type 'integer'"):
        runner.check_parameter("n", 1, {"type": "integer"})


def test_task_choices_come_from_the_task_registry():
    from anisotropy.inputs import tasks

    assert runner._choice_set("sts_tasks") == tasks.names("sts")
    assert "STS-B-dev" in runner._choice_set("sts_tasks")
    assert runner._choice_set("classification_tasks") == tasks.names("classification")
    with pytest.raises(runner.RunError, match="unknown choice set 'nope'"):
        runner._choice_set("nope")


# --------------------------------------------------------------------------- failing cells

# The traceback IPython 9 sends for a cell whose line 5 fails inside numpy.
IPYTHON_TRACEBACK = [
    "\x1b[31m---------------------------------------------------------------------------\x1b[39m",
    "\x1b[31mTypeError\x1b[39m                                 Traceback (most recent call last)",
    "\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[3]\x1b[39m\x1b[32m, line 5\x1b[39m\n"
    "\x1b[32m      1\x1b[39m \x1b[38;5;28;01mimport\x1b[39;00m numpy \x1b[38;5;28;01mas"
    "\x1b[39;00m np\n\x1b[32m      2\x1b[39m x = \x1b[32m1\x1b[39m\n\x1b[32m      3\x1b[39m \n"
    "\x1b[32m----> \x1b[39m\x1b[32m5\x1b[39m y = np.random.SeedSequence(\x1b[33m'abc'"
    "\x1b[39m)\n\x1b[32m      6\x1b[39m z = \x1b[32m2\x1b[39m\n",
    "\x1b[36mFile \x1b[39m\x1b[32mnumpy/random/bit_generator.pyx:308\x1b[39m, in \x1b[36m"
    "numpy.random.bit_generator.SeedSequence.__init__\x1b[39m\x1b[34m()\x1b[39m\n\x1b[32m--> "
    "\x1b[39m\x1b[32m308\x1b[39m \x1b[33m'Could not get source'\x1b[39m\n",
    "\x1b[31mTypeError\x1b[39m: SeedSequence expects int or sequence of ints for entropy",
]


def test_failing_line_is_the_cells_marked_line():
    assert runner._failing_line(IPYTHON_TRACEBACK) == (5, "y = np.random.SeedSequence('abc')")
    # older IPython marks every frame with ---->; the cell's frame still wins
    old = ["Cell In[2], line 2\n      1 a = 1\n----> 2 f(a)\n",
           "File /lib/x.py:9, in f(a)\n----> 9 raise ValueError\n"]
    assert runner._failing_line(old) == (2, "f(a)")
    assert runner._failing_line(["  Cell In[4], line 3\n    x = (\n        ^\n",
                                 "SyntaxError: incomplete input"]) == (3, "")
    assert runner._failing_line([]) is None and runner._failing_line(None) is None
