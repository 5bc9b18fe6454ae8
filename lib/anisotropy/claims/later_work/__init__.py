"""Chapter 6, what came after: massive activations, attention sinks, rogue dimensions,
intrinsic dimension.

- :mod:`~anisotropy.claims.later_work.claim`: its settings, inputs, checks and grading;
- :mod:`~anisotropy.claims.later_work.measure`: the chapter's statistics;
- :mod:`~anisotropy.claims.later_work.ids`: its check ids, each written once;
- :mod:`~anisotropy.claims.later_work.page`: its page's tables and figures.
"""
