"""clients.play.play_remote: a whole game against a bot, through the protocol only."""

from __future__ import annotations

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
    answers = ["help", "list", "board", "nonsense move", "999"] + ["1"] * 400
    code = play_remote(address, "samara", 2, 0, 11, 10, input_fn=scripted(answers),
                       output=out.append)
    text = "\n".join(str(o) for o in out)
    assert code == 0, text[-2000:]
    assert "game over" in text
    assert "P2 plays " in text
    assert "not allowed: cannot read move" in text
    assert "no move number 999" in text


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
