"""Fuzzers: tools above the product that feed it hostile or random input.

* :mod:`fuzzers.states` (``furnace fuzz-states``): mutated game states through each
  game's loader, and random play through the reference rules and the kernel;
* :mod:`fuzzers.server` (``furnace fuzz-server``): hostile requests to a server through
  both doors, with costly positions (:mod:`fuzzers.positions`).
"""
