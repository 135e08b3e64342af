"""Checks that prove the compiled paths equal the reference (tools above the product).

* :mod:`checks.kernel` (``furnace check-kernel``): each game's kernel against its
  reference rules, move by move over seeded random games.
"""
