"""``furnace play``'s terminal table: what a person sees between moves."""

from __future__ import annotations

import re

from engine import registry
from tests.cli.scripted import play_scripted


def _play(lines: list[str], game: str, *extra: str) -> list[str]:
    return play_scripted([game, "--bots", "random", "--iterations", "20", *extra], lines)


def test_a_solo_banner_names_no_empty_list_of_bots() -> None:
    """Issue 27: solo said ``You are P1 (seat 0). . Type 'help'``."""
    banner = _play(["quit"], "stephens", "--players", "1")[0]
    assert ". ." not in banner
    assert banner == "You are P1 (seat 0), playing solo. Type 'help' for commands."


def test_help_shows_a_move_of_the_game_being_played() -> None:
    """Issue 27: ``help`` showed Samara's example move in every game."""
    for game in ("samara", "oh-my-goods", "stephens"):
        printed = _play(["help", "quit"], game)
        help_text = next(p for p in printed if p.startswith("commands:"))
        example = re.search(r"e\.g\. '([^']+)'", help_text)
        assert example is not None, help_text
        state = registry.get_game(game).new_game(0, 2)
        state.parse_move(example.group(1))  # the game's own notation: it reads


def test_the_board_is_redrawn_after_the_bots_move() -> None:
    """Issue 27: after the bots moved, the last board on screen was stale until ``board``."""
    printed = _play(["1", "board", "quit"], "samara", "--seed", "2")
    boards = [k for k, line in enumerate(printed) if line.startswith("Samara, 2 players")]
    last_bot_move = max(k for k, line in enumerate(printed) if line.startswith("P2 (random): "))
    after = [k for k in boards if k > last_bot_move]
    # Drawn once after the bots' moves, then once for 'board': the same position.
    assert len(after) == 2, printed
    assert printed[after[0]] == printed[after[1]]


def test_solo_hints_say_what_the_percentage_is() -> None:
    """Issue 27: Stephens solo's hint column said "win 6.8%" for the chance of reaching
    the target score."""
    printed = _play(["hint 30", "quit"], "stephens", "--players", "1")
    hint = next(p for p in printed if p.startswith("hint after"))
    assert " win " not in hint
    assert re.search(r"reach \d+: +\d", hint), hint
