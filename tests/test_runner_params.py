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
def test_every_notebook_declares_profile_and_overrides(slug):
    declared = runner.declared_parameters(slug)
    assert sorted(declared) == sorted(runner.NOTEBOOK_PARAMETERS)
    assert ast.literal_eval(declared["overrides"]["default"]) == {}
    assert ast.literal_eval(declared["profile"]["default"]) in runner.profiles()


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


def test_unknown_parameter_refused_with_the_closest_name(no_kernel):
    with pytest.raises(runner.RunError, match=r"'n_sentence' \(did you mean 'n_sentences'\?\) "
                                              r"is not a parameter"):
        runner.run("01-layerwise-anisotropy", "smoke", {"n_sentence": 10})


def test_unknown_tasks_refused(no_kernel):
    with pytest.raises(runner.RunError, match=r"tasks must be .*'STS-B'.*got \['STS12', 'STS99'\]"):
        runner.run("03-frequency-bias", "smoke", {"tasks": ["STS12", "STS99"]})
    with pytest.raises(runner.RunError, match=r"glue_tasks must be .*'rte'.*got \['mnli'\]"):
        runner.run("05-isotropy-vs-clusters", "smoke", {"glue_tasks": ["mnli"]})
    with pytest.raises(runner.RunError, match=r"sweep_task must be one of"):
        runner.run("04-cluster-isotropy", "smoke", {"sweep_task": "STS17"})


def test_bad_profile_values_are_refused_too(tmp_path, monkeypatch, no_kernel):
    from anisotropy.inputs import settings

    profiles = tmp_path / "profiles.yaml"
    profiles.write_text("tiny:\n  01-layerwise-anisotropy:\n    n_sentences: 0\n"
                        "    models: [minilm, '']\n")
    monkeypatch.setattr(settings, "PROFILES_FILE", profiles)
    with pytest.raises(runner.RunError) as error:
        runner.run("01-layerwise-anisotropy", "tiny")
    message = str(error.value)
    assert "n_sentences must be an integer >= 1; got 0" in message
    assert ("models must be a non-empty list of non-empty strings; "
            "got ['minilm', '']") in message


def test_several_problems_are_listed_together():
    with pytest.raises(runner.RunError) as error:
        runner.resolve_settings("03-frequency-bias", "smoke",
                                {"max_pairs": 0, "include_sink": 1, "models": []})
    message = str(error.value)
    assert "max_pairs must be null or an integer >= 1; got 0" in message
    assert "include_sink must be true or false; got 1" in message
    assert "models must be a non-empty list" in message


def test_the_kernel_gets_the_profile_and_the_overrides(tmp_path, monkeypatch):
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
    assert seen == {"profile": "smoke", "overrides": {
        "tasks": ["STS-B", "STS-B-dev"], "max_pairs": None, "seed": 7, "include_sink": True,
        "models": ["minilm"]}}


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
