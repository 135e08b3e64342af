"""Stephens (Pile Up Games, 2024): components, position and scoring (piece 1 of 3).

Not registered in :mod:`engine.registry` yet: the moves and the turn flow come with
piece 2.  Interpretations of the rulebook: ``docs/rules/stephens.md``.
"""
