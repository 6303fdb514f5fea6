"""Synthetic rounds: a seeded generator of legal rounds and a mutator that injects one named fault each.

Tools for tests, demos and benchmarks, not the product core: they keep their own card arithmetic and their own
reading of a round, independent of :mod:`app.domain`, so that testing the engine with them is worth something.
"""
