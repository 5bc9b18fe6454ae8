"""The check ids of claim 1 (``01-layerwise-anisotropy`` in ``data/checks.yaml``), each
written once: the package's modules import them from here, and no module of the library
writes one as a string again (``tests/test_layout.py`` checks). In their order of
declaration.
"""

BASELINE_POSITIVE = "baseline-positive"
BASELINE_RISES = "baseline-rises"
DECODER_BASELINE_HIGH = "decoder-baseline-high"
SELFSIM_FALLS = "selfsim-falls"
LAST_LAYER_RISE = "last-layer-rise"
MEV_LOW = "mev-low"
MEV_VARIANTS = "mev-variants"
