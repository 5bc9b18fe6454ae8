"""The check ids of claim 5 (``05-isotropy-vs-clusters`` in ``data/checks.yaml``), each
written once: the package's modules import them from here, and no module of the library
writes one as a string again (``tests/test_layout.py`` checks). In their order of
declaration.
"""

ANTICORRELATION = "anticorrelation"
SPEARMAN_ANTICORRELATION = "spearman-anticorrelation"
CLASSES_COLLAPSE = "classes-collapse"
ISOSCORE_FALLS = "isoscore-falls"
SILHOUETTE_RISES = "silhouette-rises"
SEED_SPREAD = "seed-spread"
APPENDIX_ANTICORRELATION = "appendix-anticorrelation"
ANTICORRELATION_WORD2VEC = "anticorrelation-word2vec"
