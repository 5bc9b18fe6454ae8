"""The check ids of claim 4 (``04-cluster-isotropy`` in ``data/checks.yaml``), each written
once: the package's modules import them from here, and no module of the library writes one
as a string again (``tests/test_layout.py`` checks). In their order of declaration.
"""

ISOTROPY_GAIN = "isotropy-gain"
ISOTROPY_END_STATE = "isotropy-end-state"
ISOTROPY_BEATS_GLOBAL = "isotropy-beats-global"
ISOTROPY_BEATS_GLOBAL_SHARE = "isotropy-beats-global-share"
STS_IMPROVES = "sts-improves"
STS_IMPROVES_EVERY_TASK = "sts-improves-every-task"
STS_IMPROVES_PER_TASK = "sts-improves-per-task"
SST2_PROBE = "sst2-probe"
FINETUNE_ACCURACY_FALLS = "finetune-accuracy-falls"
FINETUNE_ISOTROPY_RISES = "finetune-isotropy-rises"
FINETUNE_CLS_ISOTROPY = "finetune-cls-isotropy"
FINETUNE_CLS_ZERO_MEAN = "finetune-cls-zero-mean"
BEATS_GLOBAL = "beats-global"
