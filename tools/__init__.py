"""Checks and benchmarks around the build (not part of it): run them from the repository's root as
`python -m tools.<name>`; the tests import them too."""
