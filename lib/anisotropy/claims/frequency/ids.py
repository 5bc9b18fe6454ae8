"""The check ids of claim 3 (``03-frequency-bias`` in ``data/checks.yaml``), each written
once: the package's modules import them from here, and no module of the library writes one
as a string again (``tests/test_layout.py`` checks). In their order of declaration.
"""

NORM_FREQUENCY = "norm-frequency"
KNN_FREQUENCY = "knn-frequency"
FREQUENCY_CONTEXTUAL = "frequency-contextual"
WHITENING_HELPS = "whitening-helps"
FLOW_HELPS = "flow-helps"
