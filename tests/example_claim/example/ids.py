"""The example claim's check ids (``99-example-claim`` in ``data/checks.yaml``), each
written once: the package's modules import them from here, and no module of the library
writes one as a string again (``tests/test_layout.py`` checks). In their order of
declaration.
"""

SENTENCE_BASELINE_POSITIVE = "sentence-baseline-positive"
CLOSEST_PAIR = "closest-pair"
