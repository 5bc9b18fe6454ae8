"""An example claim, kept in ``tests/``: the recipe of CONTRIBUTING's "Add a claim", run by
``tests/test_example_claim.py`` through the plan, the grading and a page."""
