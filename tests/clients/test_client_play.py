"""clients.play.play_remote: a whole game against a bot, through the protocol only."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable

from clients.play import play_remote


def scripted(lines: Iterable[str]) -> Callable[[str], str]:
    it = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def test_full_game_to_the_end(address) -> None:
    out: list[str] = []
    answers = ["help", "moves", "board", "nonsense move", "999"] + ["1"] * 400
    code = play_remote(address, "samara", 2, 0, 11, 10, input_fn=scripted(answers),
                       output=out.append)
    text = "\n".join(str(o) for o in out)
    assert code == 0, text[-2000:]
    assert "final scores: P1 " in text and "\n  P1 (you): " in text and "\n  P2: " in text
    assert "\nwinner: " in text or "\nwinners: " in text
    assert "P2 plays " in text
    assert "not allowed: cannot read move" in text
    assert "pick 1-" in text


def test_same_seed_same_game(address) -> None:
    def play() -> list[str]:
        out: list[str] = []
        play_remote(address, "samara", 3, 2, 5, 8, input_fn=scripted(["2"] * 3 + ["quit"]),
                    output=out.append)
        return [str(o) for o in out]

    first = play()
    assert first == play()
    assert first[-1] == "game abandoned"


def test_input_end_and_bad_arguments(address) -> None:
    out: list[str] = []
    assert play_remote(address, "samara", 2, 0, 1, 10, input_fn=scripted([]),
                       output=out.append) == 1
    assert play_remote(address, "samara", 2, 5, 1, 10, output=out.append) == 2
    assert play_remote(address, "samara", 2, 0, 1, 0, output=out.append) == 2
    assert play_remote(address, "chess", 2, 0, 1, 10, output=out.append) == 2
    assert play_remote(address, "samara", 9, 0, 1, 10, output=out.append) == 2
    assert "UNKNOWN_GAME" in "\n".join(map(str, out))
    assert play_remote("127.0.0.1:1", "samara", 2, 0, 1, 10, output=out.append) == 1


def test_remote_board_hides_the_bots_hand(address) -> None:
    out: list[str] = []
    play_remote(address, "oh-my-goods", 2, 0, 3, 5, input_fn=scripted(["1", "quit"]),
                output=out.append)
    boards = [str(o) for o in out if "Oh My Goods!" in str(o)]
    assert boards
    for board in boards:
        lines = board.splitlines()
        p2 = next(i for i, line in enumerate(lines) if line.lstrip(">").startswith(" P2:")
                  or line.lstrip(">").startswith("P2:"))
        assert lines[p2 + 2].strip().startswith("hand: ") and "cards" in lines[p2 + 2]
        assert "(" not in lines[p2 + 2]  # no card names, only a count


def _mentions(text: str, card: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(card)}(?![\w-])", text) is not None


def test_remote_play_shows_only_the_humans_view(address) -> None:
    """Oh My Goods!: after the human's first move, neither the printed output nor the
    ``board`` command shows the bot's hand or its secret phase II choices."""
    from engine import registry  # the test's referee knows the truth; the client does not

    seed = 3
    start = registry.get_game("oh-my-goods").new_game(seed=seed, num_players=2)
    assert start.current_player() == 0 and start.to_json()["phase"] == "choose"
    bot_hand = start.to_json()["players"][1]["hand"]
    out: list[str] = []
    # Work, board (the human still to plan), plan; then the bot chooses in secret,
    # Sunset, and the human acts first in phase IV: board, board, quit.
    code = play_remote(address, "oh-my-goods", 2, 0, seed, 20,
                       input_fn=scripted(["1", "board", "1", "board", "board", "quit"]),
                       output=out.append)
    lines = [str(o) for o in out]
    text = "\n".join(lines)
    assert code == 0 and lines[-1] == "game abandoned", text[-2000:]
    leaked = [card for card in bot_hand if _mentions(text, card)]
    assert not leaked, f"the bot's cards {leaked} were shown:\n{text}"
    # The bot's two phase II choices are secret: shown as such, never by name.
    assert text.count("P2 makes a secret choice") == 2, text
    for line in lines:
        assert not re.match(r"P2 plays (work|idle|plan)", line), line
    boards = [line for line in lines if line.startswith("Oh My Goods!")]
    # the first, its redraw after the work move, 'board' in phase II, the redraw after
    # the bot's moves, 'board' twice
    assert len(boards) == 6
    for board in boards:
        p2 = board.split("P2:", 1)[1]
        assert re.search(r"hand: \d+ cards", p2), board
        assert "plan: a card, face down" in p2 or "plan:" not in p2, board
    # After Sunset the placement is public, the planned card still is not.
    assert "P2 works" in text and "has planned a building" in text


def test_furnace_play_server_seat_is_0_based(address, monkeypatch, capsys) -> None:
    """Issue 13, item 7: ``furnace play --server --seat`` took a 1-based seat (``--seat 0``
    was refused) while every RPC and ``furnace client --seat`` are 0-based."""
    from furnace_cli import build_parser

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # input() ends at once
    for seat in (0, 1):
        args = build_parser().parse_args(["play", "samara", "--server", address, "--seat",
                                          str(seat), "--iterations", "5"])
        assert args.func(args) == 1  # input ended
        out = capsys.readouterr().out
        assert f"you are P{seat + 1} (seat {seat})" in out, out
    args = build_parser().parse_args(["play", "samara", "--server", address, "--seat", "2"])
    assert args.func(args) == 2
    assert "seat must be in 0..1 (0 is P1), got 2" in capsys.readouterr().out


def test_remote_play_is_the_same_front_end_as_local_play(address, tmp_path) -> None:
    """Issue 27: ``furnace play --server`` had 'list' but no 'moves', 'hint', 'save' or
    'legend', though the README describes them for ``play``."""
    save = tmp_path / "game.json"
    out: list[str] = []
    code = play_remote(address, "oh-my-goods", 2, 0, 3, 10,
                       input_fn=scripted(["help", "moves", "hint 20", "legend",
                                          f"save {save}", "quit"]),
                       output=out.append)
    text = "\n".join(str(o) for o in out)
    assert code == 0, text
    assert "commands:" in text and "legend" in text
    assert "  1. " in text  # the numbered moves
    assert "hint after 20 iterations" in text
    assert f"saved to {save}" in text
    from engine import records  # the save is a game record (the deal and the moves)

    record = records.record_from_json(json.loads(save.read_text()))
    assert records.replay(record).num_players == 2


def test_the_remote_hint_has_the_local_hints_headline(address) -> None:
    """Issue 37: over ``--server`` the hint ended with ``line: ...``, without the
    headline the local hint gives (``your win probability with BEST: P%``), which is
    the best move's figure in the list."""
    for game, players, aim in (("samara", 2, "your win probability"),
                               ("stephens", 1, "your chance of reaching 160")):
        out: list[str] = []
        play_remote(address, game, players, 0, 5, 10, input_fn=scripted(["hint 30", "quit"]),
                    output=out.append)
        hint = next(str(o) for o in out if str(o).startswith("hint after 30 iterations"))
        lines = hint.splitlines()
        best = re.search(r"best (.+)$", lines[0]).group(1)
        headline = re.fullmatch(rf"  {aim} with (.+): ([\d.]+)%; line: (.+)", lines[-1])
        assert headline and headline.group(1) == best, hint
        assert headline.group(3).startswith(best)
        listed = next(line for line in lines[1:-1] if line.strip().startswith(best + " "))
        assert f"{headline.group(2)}%" in listed, hint


def test_remote_save_is_a_record_that_review_and_load_take(address, tmp_path) -> None:
    """Issue 37: the remote ``save`` wrote a position, which ``furnace review`` refused
    asking for "`furnace play`'s save", what had been done; it writes the game record
    now: the server's deal (seed) and every move, which replays to the game's position."""
    from engine import records  # the test's referee replays the record
    from furnace_cli.review import load_record

    save = tmp_path / "remote.json"
    out: list[str] = []
    play_remote(address, "oh-my-goods", 2, 0, 3, 5,
                input_fn=scripted(["1", "1", "board", f"save {save}", "quit"]),
                output=out.append)
    lines = [str(o) for o in out]
    board = lines[lines.index(f"saved to {save}") - 1]
    record = load_record(str(save))
    assert (record.game, record.num_players, record.seed) == ("oh-my-goods", 2, 3)
    assert len(record.moves) >= 2
    assert records.replay(record).render(0) == board


def test_a_remote_game_is_reviewed_on_the_server(address) -> None:
    """Issue 37: after a game over ``--server`` the table offered no review; the server
    reviews it (ReviewGame on the game's record), one row a decision of the person's."""
    out: list[str] = []
    code = play_remote(address, "samara", 2, 0, 11, 4,
                       input_fn=scripted(["1"] * 400 + ["review 1", "review 4", "quit"]),
                       output=out.append)
    lines = [str(o) for o in out]
    assert code == 0
    over = next(k for k, line in enumerate(lines) if line.startswith("the game is over"))
    after = lines[over:]
    assert "review takes a positive number of iterations, not '1'" not in after
    assert any(line.startswith("review on the server, 4 iterations a search") for line in after)
    rows = [line for line in after if re.match(r"\s+\d+ P\d ", line)]
    assert rows and all(line.split()[1] == "P1" for line in rows)
    assert all(line.split()[-1] in ("best", "good", "inaccuracy", "mistake", "blunder")
               for line in rows)
    assert re.match(rf"P1: {len(rows)} decisions \(\d+ best, .*accuracy \d", after[-1]), after[-3:]


def test_undo_over_the_server_says_it_is_not_available(address) -> None:
    out: list[str] = []
    play_remote(address, "samara", 2, 0, 5, 5, input_fn=scripted(["1", "undo", "quit"]),
                output=out.append)
    text = "\n".join(str(o) for o in out)
    assert "undo is not available over --server" in text
    assert "play without --server to undo" in text


def test_quit_over_the_server_offers_to_save(address, tmp_path) -> None:
    save = tmp_path / "left.json"
    out: list[str] = []
    play_remote(address, "samara", 2, 0, 5, 5, input_fn=scripted(["1", "quit", str(save)]),
                output=out.append)
    assert str(out[-1]) == f"saved to {save}: resume it with --load {save}"
    assert json.loads(save.read_text())["format"] == "furnace-record"


def test_a_remote_hint_has_the_games_budget_not_the_bots(address) -> None:
    """Issue 37: without --iterations the remote bots search 2,000 iterations and a hint
    the game's hint budget (GameInfo.hint_iterations); given, it is both."""
    from clients.furnace_client import FurnaceClient
    from clients.play import BOT_ITERATIONS, RemoteTable
    from engine.search.hints import hint_iterations

    with FurnaceClient(address, timeout=30) as client:
        table = RemoteTable(client, "stephens", 2, 0, 1, None)
        assert table.iterations == BOT_ITERATIONS
        assert table.hint_iterations == hint_iterations("stephens") != BOT_ITERATIONS
        table = RemoteTable(client, "stephens", 2, 0, 1, 30)
        assert table.iterations == table.hint_iterations == 30
