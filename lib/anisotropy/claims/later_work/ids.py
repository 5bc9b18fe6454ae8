"""The check ids of chapter 6 (``06-later-work`` in ``data/checks.yaml``), each written
once: the package's modules import them from here, and no module of the library writes one
as a string again (``tests/test_layout.py`` checks). In their order of declaration.
"""

MASSIVE_ACTIVATIONS = "massive-activations"
MASSIVE_AT_SINK = "massive-at-sink"
SINK_HEADS = "sink-heads"
ROGUE_DIMENSIONS = "rogue-dimensions"
STANDARDISE_HELPS = "standardise-helps"
STANDARDISE_HELPS_WORDS = "standardise-helps-words"
ID_PEAK_INTERIOR = "id-peak-interior"
ID_PEAK_GRIDE = "id-peak-gride"
ID_SHUFFLED_FLATTER = "id-shuffled-flatter"
MEASURES_DISAGREE = "measures-disagree"
MASSIVE_ONSET = "massive-onset"
MASSIVE_DIMS = "massive-dims"
SINK_HEADS_SHORT = "sink-heads-short"
MASSIVE_REMOVAL = "massive-removal"
ALL_BUT_THE_TOP = "all-but-the-top"
MEASURES_AGREEMENT = "measures-agreement"
