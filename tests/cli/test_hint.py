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
