"""``furnace play``'s terminal table: what a person sees between moves."""

from __future__ import annotations

import json
import re

import pytest

from engine import registry
from furnace_cli import build_parser
from furnace_cli.play import play_local
from tests.cli.scripted import play_scripted


def _play(lines: list[str], game: str, *extra: str) -> list[str]:
    return play_scripted([game, "--bots", "random", "--iterations", "20", *extra], lines)


def test_a_solo_banner_names_no_empty_list_of_bots() -> None:
    """Issue 27: solo said ``You are P1 (seat 0). . Type 'help'``."""
    banner = _play(["quit"], "stephens", "--players", "1", "--seed", "3")[0]
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


def test_every_board_explains_its_symbols_and_legend_shows_them() -> None:
    """Issue 27: boards used symbols nobody explained (Oh My Goods! ``*``,
    ``assistant-2/1``, ``score 1`` beside ``0 VP``; Stephens ``unlock P2`` where P2
    reads like a player, contracts without their requirements)."""
    for game in ("samara", "oh-my-goods", "stephens"):
        printed = _play(["legend", "quit"], game)
        board = printed[1]
        keys = [line for line in board.splitlines() if line.startswith("key: ")]
        assert keys, board
        legend = printed[2]
        assert legend == "\n".join(k[len("key: "):] for k in keys)


def test_oh_my_goods_board_says_what_its_numbers_are() -> None:
    board = registry.get_game("oh-my-goods").new_game(3, 2).render(0)
    assert "half sun" in board and "wood*" in board
    assert not re.search(r"assistant-\d+/\d", board), board
    assert re.search(r"assistant-\d+ side [12] \(costs \d+ coins, \d+ VP\)", board), board
    assert "P1: 0 VP, 7 coins in goods: score 1 (VP + 1 per 5 coins)" in board


def test_stephens_board_shows_contract_needs_and_what_disks_do() -> None:
    state = registry.get_game("stephens").new_game(0, 2)
    board = state.render(0)
    assert re.search(r"\d:crown-\d+ \[\d+ \w+", board), board
    while not any(s["unlocked"] for s in state.observation(0)["players"]):
        state.apply(next(m for m in state.legal_moves()
                         if state.move_to_text(m).startswith("unlock")) if any(
            state.move_to_text(m).startswith("unlock") for m in state.legal_moves())
            else state.legal_moves()[0])
    unlocked = next(line for line in state.render(0).splitlines() if "unlocked: " in line
                    and not line.endswith("unlocked: -"))
    assert re.search(r"unlocked: [A-Z]+\d+\([^)]+\)", unlocked), unlocked


def test_the_end_of_a_game_offers_its_review() -> None:
    """Issue 24: ``furnace play`` offers ``review`` when the game ends, and it judges
    the person's decisions (a table row each, then the seat's summary)."""
    printed = _play(["1"] * 400 + ["review 0", "review 12", "quit"], "samara",
                    "--players", "2", "--seed", "1")
    over = next(k for k, line in enumerate(printed) if str(line).startswith("the game is over"))
    assert any(str(line).startswith("winner: ") for line in printed[:over])
    after = [str(line) for line in printed[over:]]
    assert "review takes a positive number of iterations, not '0'" in after
    assert any("12 iterations a search" in line for line in after)
    rows = [line for line in after if re.match(r"\s+\d+ P1 ", line)]
    assert rows and all(line.split()[-1] in ("best", "good", "inaccuracy", "mistake",
                                             "blunder") for line in rows)
    # the seat's summary, then its key moments when it has any (docs/review.md)
    summary = next(k for k, line in enumerate(after) if line.startswith("P1: "))
    assert re.match(r"P1: \d+ decisions .*accuracy \d", after[summary])
    assert after[summary + 1:] in ([], [after[-1]]) and \
        (summary + 1 == len(after) or after[-1].startswith("key moments: move "))


def test_without_a_seed_each_game_is_a_fresh_deal_that_its_seed_deals_again() -> None:
    """``furnace play`` dealt seed 0 every time; now it draws a seed, prints it, and
    ``--seed`` with it deals the same game."""
    first, second = (_play(["board", "quit"], "oh-my-goods") for _ in range(2))
    seeds = [re.search(r"\nDealt from seed (\d+) \(--seed \1 deals this game again\)\.$",
                       printed[0]) for printed in (first, second)]
    assert seeds[0] and seeds[1] and seeds[0].group(1) != seeds[1].group(1)
    assert first[1:] != second[1:]
    again = _play(["board", "quit"], "oh-my-goods", "--seed", seeds[0].group(1))
    assert "Dealt from seed" not in again[0]
    assert again[1:] == first[1:] and first[0].startswith(again[0])


def test_a_solo_game_ends_with_its_score_target_and_rank() -> None:
    """Issue 37: solo Stephens ended ``winner: P1 (you!)`` whatever the score; it ends
    with the score against the target, the rank the rulebook gives it and the score by
    source."""
    printed = [str(line) for line in
               _play(["1"] * 1500 + ["quit"], "stephens", "--players", "1", "--seed", "4")]
    over = next(k for k, line in enumerate(printed) if line.startswith("the game is over"))
    ending = printed[:over]
    final = next(line for line in ending if line.startswith("final score: "))
    assert re.fullmatch(r"final score: \d+, target 160: (Apprentice|Artisan|Glassblower)",
                        final), final
    assert not any(line.startswith("winner") for line in ending)
    by_source = next(line for line in ending if line.startswith("  P1 (you): "))
    points = [int(n) for n in re.findall(r"\(\d[a-d]?\) (\d+)", by_source)]
    assert points and sum(points) == int(final.split()[2].rstrip(",")), by_source


def test_a_game_of_two_ends_with_the_scores_by_source_and_the_winner() -> None:
    printed = [str(line) for line in _play(["1"] * 400 + ["quit"], "oh-my-goods",
                                           "--players", "2", "--seed", "2")]
    over = next(k for k, line in enumerate(printed) if line.startswith("the game is over"))
    ending = printed[max(0, over - 6):over]
    assert any(line.startswith("final scores: P1 ") for line in ending), ending
    assert any(line.startswith("  P1 (you): ") for line in ending), ending
    assert any(line.startswith("  P2: ") for line in ending), ending
    assert any(line.startswith(("winner: ", "winners: ")) for line in ending), ending


#: A count of one with a plural noun ("1 players", "1 men"), or a hedged plural
#: ("card(s)"); "#1 produces" is a slot and a verb, "1 compass" ends in "ss", and
#: clothes and shears have no singular.
MISCOUNTED = re.compile(r"(?<![\w#.:+-])1 (?!clothes\b|shears\b)(?:[a-z-]*[a-rt-z]s|men|women)\b"
                        r"|\w\(s\)")


@pytest.mark.parametrize(("game", "players", "seed"), [("samara", 2, 1), ("oh-my-goods", 2, 2),
                                                       ("stephens", 1, 4), ("stephens", 2, 3)])
def test_counts_of_one_are_singular(game: str, players: int, seed: int) -> None:
    """Issue 37: the terminal said "1 players", "1 men", "1 buildings", "draws 1 card(s)",
    "paying 1 coin(s)" in boards, events and refusals."""
    printed = [str(line) for line in _play(
        ["help", "moves", "legend", "999", "nonsense"] + ["1"] * 1500 + ["quit"], game,
        "--players", str(players), "--seed", str(seed))]
    wrong = sorted({m.group(0) + " in: " + line.strip()[:80] for text in printed
                    for line in text.splitlines() for m in MISCOUNTED.finditer(line)})
    assert not wrong, "\n".join(wrong)
    text = "\n".join(printed)
    if players == 1:
        assert f"{registry.get_game(game).info.title}, 1 player," in text
    if game == "samara":
        assert "pawns on board: 1 man, 1 woman" in text


def test_help_lists_every_command() -> None:
    """Issue 37: ``help`` listed no ``undo`` (and nothing of what the end of a game
    offers)."""
    printed = _play(["help", "quit"], "samara")
    help_text = next(p for p in printed if p.startswith("commands:"))
    listed = {line.split()[0] for line in help_text.splitlines()[1:]
              if line.startswith("  ") and not line.startswith("   ")}
    assert {"N", "MOVE", "moves", "hint", "undo", "board", "legend", "save", "help", "quit",
            "review"} <= listed, help_text


def _boards(printed: list[str], game: str) -> list[str]:
    title = registry.get_game(game).info.title
    return [line for line in printed if line.startswith(title)]


def test_undo_at_the_start_has_nothing_to_take_back() -> None:
    printed = _play(["undo", "quit"], "samara", "--seed", "2")
    assert ("there is no move of yours to take back: you have not moved yet in this game"
            in printed)


@pytest.mark.parametrize(("game", "players"), [("samara", 2), ("oh-my-goods", 2),
                                               ("stephens", 2), ("stephens", 1)])
def test_undo_shows_the_position_before_ones_last_move(game: str, players: int) -> None:
    """Issue 37: no undo; ``undo`` takes back the person's last move and the bots'
    replies, and the board drawn again is the one they moved from."""
    printed = [str(line) for line in _play(["board", "1", "undo", "board", "quit"], game,
                                           "--players", str(players), "--seed", "5")]
    took = next(k for k, line in enumerate(printed) if line.startswith("took back your move "))
    boards = _boards(printed, game)
    first_board = printed.index(boards[0])
    before = printed[first_board]
    assert took > first_board
    after = _boards(printed[took:], game)
    assert after and after[0] == before and after[-1] == before


def test_undo_refuses_once_a_hidden_card_was_shown() -> None:
    """Oh My Goods!: after P1's plan the bot chooses in secret and Sunset turns up
    market cards; taking the plan back would let P1 plan again knowing them."""
    printed = [str(line) for line in _play(["1", "1", "undo", "quit"], "oh-my-goods",
                                           "--seed", "3")]
    refusal = next(line for line in printed if "cannot be taken back" in line)
    assert refusal.startswith("your move 'plan ")
    assert "you have seen what was hidden before it" in refusal
    assert not any(line.startswith("took back") for line in printed)


def test_quit_offers_to_save_the_game(tmp_path) -> None:
    """Issue 37: ``quit`` left without a word about saving."""
    from clients.table import SAVE_OFFER

    prompts: list[str] = []
    printed: list[str] = []
    save = tmp_path / "left.json"
    feed = iter(["1", "quit", str(tmp_path / "no" / "such" / "dir.json"), str(save)])

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)

    args = build_parser().parse_args(["play", "samara", "--bots", "random", "--seed", "2"])
    assert play_local(args, input_fn=read, output=printed.append) == 0
    assert prompts[-2:] == [SAVE_OFFER, SAVE_OFFER]  # a failed save asks again
    assert any(str(line).startswith("cannot save to ") for line in printed)
    assert printed[-1] == f"saved to {save}: resume it with --load {save}"
    assert json.loads(save.read_text())["format"] == "furnace-record"
    # Enter leaves without saving.
    assert _play(["quit", ""], "samara")[-1] == "game abandoned"
