"""The check ids of claim 2 (``02-clusters-manifolds`` in ``data/checks.yaml``), each
written once: the package's modules import them from here, and no module of the library
writes one as a string again (``tests/test_layout.py`` checks). In their order of
declaration.
"""

GLOBAL_ANISOTROPY = "global-anisotropy"
LOCAL_ISOTROPY = "local-isotropy"
LOCAL_BEYOND_CENTRING = "local-beyond-centring"
INTRA_ABOVE_INTER = "intra-above-inter"
DECODER_CLUSTERS_FEW_DIMS = "decoder-clusters-few-dims"
ISOLATED_CLUSTERS = "isolated-clusters"
SWISS_ROLL = "swiss-roll"
LID_BELOW_STATIC = "lid-below-static"
