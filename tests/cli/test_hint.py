"""``furnace play``'s hint: its headline is the recommended move's forecast."""

from __future__ import annotations

import re

import pytest

from engine import registry
from furnace_cli.play import hint_text


@pytest.mark.parametrize(("name", "players"), [("samara", 2), ("oh-my-goods", 2),
                                               ("stephens", 1)])
def test_the_headline_is_the_best_moves_figure(name: str, players: int) -> None:
    state = registry.new_game(name, seed=5, num_players=players)
    text = hint_text(state, 80, seed=2)
    lines = text.splitlines()
    best = re.search(r"best (.+)$", lines[0]).group(1)
    listed = {line.rsplit(" visits", 1)[0].strip(): float(re.search(r"([\d.]+)%", line).group(1))
              for line in lines[1:-1]}
    headline = re.search(r"with (.+): ([\d.]+)%", lines[-1])
    assert headline.group(1) == best
    assert float(headline.group(2)) == listed[best]
    assert float(headline.group(2)) >= 0


def test_the_hint_budget_is_independent_of_the_bots_level() -> None:
    """Issue 37: a hint searches the game's hint budget, whatever the bots' level; with
    level-1 bots and with level-5 bots the same seeded hint, word for word."""
    from engine.search.hints import hint_iterations
    from tests.cli.scripted import play_scripted

    hints = []
    for level in (1, 5):
        printed = play_scripted(["stephens", "--bots", f"level:{level}", "--seed", "4"],
                                ["hint", "quit"])
        hint = next(p for p in printed if p.startswith("hint after "))
        hints.append(re.sub(r"\(\d+\.\d+ s\)", "(time)", hint))  # the one figure that varies
    assert hints[0] == hints[1]
    assert hints[0].startswith(f"hint after {hint_iterations('stephens')} iterations")
