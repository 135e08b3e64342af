"""checks.kernel: the kernel-versus-rules checker, on Samara and on a toy game."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from checks.kernel import check_kernel, game_options, kernel_player_counts
from engine import registry
from engine.game import (
    TERMINAL,
    FurnaceError,
    Game,
    GameInfo,
    GameOption,
    IllegalMoveError,
    State,
    rank_groups,
)
from engine.samara import GAME, fast

SAMARA = registry.get_game("samara")
needs_kernel = pytest.mark.skipif(
    fast.kernel_module() is None, reason="Samara kernel not built (or FURNACE_PURE_PYTHON set)"
)


# -- a toy game with a pretend kernel twin ------------------------------------------------

COUNT_INFO = GameInfo(
    name="toy-count",
    title="Count to 12",
    min_players=2,
    max_players=3,
    perfect_information=True,
    has_chance=False,
    options=(
        GameOption("big", False, "moves add 2 or 4 instead of 1 or 2"),
        GameOption("fair", True, "a boolean that changes nothing"),
        GameOption("goal", 12, "not a boolean: never varied by the checker"),
    ),
)


class CountState(State):
    """Seats in turn add 1 or 2 (2 or 4 when big) to a total; the game ends at ``goal``."""

    info: ClassVar[GameInfo] = COUNT_INFO

    def __init__(self, num_players: int, big: bool, goal: int, twin: str = "none") -> None:
        self.num_players = num_players
        self.big = big
        self.goal = goal
        self.twin = twin  # none | good | bad | dealer | host: what search_state() returns
        self.total = 0
        self.turn = 0
        self.added = [0] * num_players

    def current_player(self) -> int:
        return TERMINAL if self.total >= self.goal else self.turn

    def legal_moves(self) -> list[int]:
        if self.total >= self.goal:
            return []
        return [2, 4] if self.big else [1, 2]

    def apply(self, move: int) -> list[str]:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"illegal move {move}")
        self.total += move
        self.added[self.turn] += move
        self.turn = (self.turn + 1) % self.num_players
        return []

    def clone(self) -> CountState:
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.added = list(self.added)
        return twin

    def scores(self) -> list[float]:
        return [float(a) for a in self.added]

    def ranking(self) -> list[list[int]]:
        return rank_groups([(a, -s) for s, a in enumerate(self.added)])

    def observation(self, seat: int | None) -> dict[str, Any]:
        return self.to_json()

    def determinize(self, observer: int | None, rng: random.Random) -> State:
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "turn": self.turn, "added": list(self.added),
                "big": self.big, "goal": self.goal}

    def move_to_text(self, move: int) -> str:
        return str(move)

    def parse_move(self, text: str) -> int:
        return int(text)

    def why_illegal(self, move: int) -> str | None:
        return None if move in self.legal_moves() else "no"

    def search_state(self) -> State:
        if self.twin == "none" or (self.twin == "two" and self.num_players != 2):
            return self
        cls = {"bad": BuggyTwin, "dealer": DealerTwin, "host": HostDealerTwin,
               "guided": GuidedTwin, "wrong-guided": WrongGuidedTwin,
               "two": TwoPlayerTwin, "words": WordsTwin,
               "features": FeaturesTwin}.get(self.twin, CountState)
        twin = cls.__new__(cls)
        twin.__dict__.update(self.__dict__)
        twin.added = list(self.added)
        twin.twin = "none"  # a twin is its own search state
        return twin


class TwoPlayerTwin(CountState):
    """A twin that plays only the 2-player game (a kernel may leave a player count to the
    reference rules)."""


class BuggyTwin(CountState):
    """Agrees with the rules until the total reaches 6, then lists its moves backwards."""

    def legal_moves(self) -> list[int]:
        moves = super().legal_moves()
        return moves[::-1] if self.total >= 6 else moves


class WordsTwin(CountState):
    """Plays like the rules but names a move of 2 otherwise (search shows its words)."""

    def move_to_text(self, move: int) -> str:
        return "two" if move == 2 else str(move)


class DealerTwin(CountState):
    """Plays like the rules but its determinizations draw a different hidden total."""

    def determinize(self, observer: int | None, rng: random.Random) -> State:
        twin = self.clone()
        twin.goal += rng.randrange(2)
        return twin


class HostDealerTwin(CountState):
    """Determinizes like the rules for every seat, but not for the host (observer None)."""

    def determinize(self, observer: int | None, rng: random.Random) -> State:
        twin = self.clone()
        if observer is None:
            twin.goal += 1
        return twin


class GuidedTwin(CountState):
    """Has its own guided playout: the rules' one (``wrong``: with greedy moves reversed,
    the kind of slip a C twin of the epsilon-greedy step could make)."""

    wrong = False

    def guided_playout(self, seed: int, values: Any, epsilon: float, trace: Any,
                       max_moves: int = 0) -> int:
        from engine.guided_playout import guided_playout

        return guided_playout(self, seed, -values if self.wrong else values, epsilon,
                              trace, max_moves)


class WrongGuidedTwin(GuidedTwin):
    wrong = True


class FeaturesTwin(CountState):
    """Plays like the rules but reads a feature the rules do not declare."""

    def features(self) -> list[list[float]]:
        return [[float(a)] for a in self.added]


class CountGame(Game):
    info: ClassVar[GameInfo] = COUNT_INFO

    def __init__(self, twin: str) -> None:
        self.twin = twin
        self.made: list[tuple[int, int, dict[str, Any]]] = []

    def new_game(self, seed: int, num_players: int,
                 options: Mapping[str, Any] | None = None) -> State:
        self.info.check_players(num_players)
        resolved = self.info.resolve_options(options)
        self.made.append((seed, num_players, dict(options or {})))
        return CountState(num_players, resolved["big"], resolved["goal"], self.twin)

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        raise NotImplementedError


def test_toy_twin_that_agrees_has_no_mismatch() -> None:
    game = CountGame("good")
    report = check_kernel(game, 8, seed=5)
    assert report["game"] == "toy-count"
    assert report["games"] == 8 and report["mismatches"] == 0 and report["examples"] == []
    assert report["steps"] > 8 * 3
    # first a new game per player count, to learn which ones the kernel plays
    probes, made = game.made[:2], game.made[2:]
    assert probes == [(0, 2, {"big": False, "fair": True}), (0, 3, {"big": False, "fair": True})]
    game.made = made
    # seeds seed+i, player counts cycling fastest, boolean options in every combination
    assert [m[0] for m in game.made] == list(range(5, 13))
    assert [m[1] for m in game.made] == [2, 3] * 4
    assert [m[2] for m in game.made] == [
        {"big": False, "fair": True}, {"big": False, "fair": True},
        {"big": True, "fair": True}, {"big": True, "fair": True},
        {"big": False, "fair": False}, {"big": False, "fair": False},
        {"big": True, "fair": False}, {"big": True, "fair": False},
    ]


def test_only_the_player_counts_the_kernel_plays_are_checked() -> None:
    """A kernel that leaves a player count to the reference rules is checked on the others."""
    game = CountGame("two")
    assert kernel_player_counts(game) == (2,)
    report = check_kernel(game, 4, seed=5)
    assert report["mismatches"] == 0 and report["steps"] > 4 * 3
    assert [m[1] for m in game.made[4:]] == [2] * 4  # after the probes of both calls
    assert kernel_player_counts(CountGame("none")) == ()


def test_chosen_player_counts_and_option_values() -> None:
    """``players`` picks the counts (no probing); ``option_values`` gives an option its
    values in turn, the next after each cycle of the counts."""
    game = CountGame("good")
    report = check_kernel(game, 4, seed=5, players=(3,), option_values={"goal": [6, 8]})
    assert report["mismatches"] == 0
    assert [(m[1], m[2]["goal"], m[2]["big"]) for m in game.made] == [
        (3, 6, False), (3, 8, True), (3, 6, False), (3, 8, True)]
    with pytest.raises(FurnaceError, match="does not play 3-player games"):
        check_kernel(CountGame("two"), 1, seed=0, players=(3,))
    with pytest.raises(FurnaceError, match="2-3 players, not 4"):
        check_kernel(game, 1, seed=0, players=(4,))
    with pytest.raises(FurnaceError, match="no option 'speed'"):
        check_kernel(game, 1, seed=0, option_values={"speed": [1]})


def test_toy_buggy_twin_is_caught_with_a_description() -> None:
    report = check_kernel(CountGame("bad"), 4, seed=0)
    assert report["mismatches"] >= 4
    assert len(report["examples"]) == 4
    assert report["examples"][0].startswith("game 0 (seed 0, 2 players, big=False, fair=True)")
    # its playouts already differ at the start; its move lists from total 6 on
    assert "step 0: rollout(" in report["examples"][0]
    assert all("legal moves differ" in e or "rollout(" in e for e in report["examples"])


def test_toy_twin_whose_features_differ_is_caught() -> None:
    report = check_kernel(CountGame("features"), 2, seed=0)
    assert report["mismatches"] >= 2
    assert "step 0: features: [[], []] vs [[0.0], [0.0]]" in report["examples"][0]
    assert all("features: " in e for e in report["examples"])


def test_toy_twin_with_its_own_guided_playout_is_compared() -> None:
    assert check_kernel(CountGame("guided"), 4, seed=0)["mismatches"] == 0
    report = check_kernel(CountGame("wrong-guided"), 4, seed=0)
    assert report["mismatches"] >= 4
    assert all("guided_playout(" in e for e in report["examples"])


def test_toy_twin_that_names_a_move_differently_is_caught() -> None:
    report = check_kernel(CountGame("words"), 4, seed=0)
    assert report["mismatches"] >= 4
    assert all("move texts differ at index " in e and "'2' vs 'two'" in e
               for e in report["examples"])


def test_toy_twin_that_determinizes_differently_is_caught() -> None:
    report = check_kernel(CountGame("dealer"), 4, seed=0)
    assert report["mismatches"] >= 4
    assert all("determinize(" in e for e in report["examples"])


def test_toy_twin_that_determinizes_differently_for_the_host_is_caught() -> None:
    """The checker cycles the observer through the seats and None (the host)."""
    report = check_kernel(CountGame("host"), 4, seed=0)
    assert report["mismatches"] >= 4
    assert all("determinize(None)" in e for e in report["examples"])


def test_toy_without_twin_raises_clean_error() -> None:
    with pytest.raises(FurnaceError, match="kernel for toy-count is not built"):
        check_kernel(CountGame("none"), 3, seed=0)


def test_progress_and_bad_arguments() -> None:
    calls: list[tuple[int, int]] = []
    check_kernel(CountGame("good"), 3, seed=1, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    with pytest.raises(FurnaceError):
        check_kernel(CountGame("good"), -1, seed=1)
    assert check_kernel(CountGame("none"), 0, seed=1)["games"] == 0


def test_game_options_for_samara() -> None:
    assert [game_options(SAMARA, i)["powers"] for i in range(12)] == (
        [True] * 4 + [False] * 4 + [True] * 4)


# -- Samara -------------------------------------------------------------------------------------

@needs_kernel
def test_samara_kernel_agrees_over_20_games() -> None:
    report = check_kernel(SAMARA, 20, seed=1)
    assert report["mismatches"] == 0, report["examples"]
    assert report["games"] == 20 and report["steps"] > 20 * 40
    assert report["game"] == "samara" and report["examples"] == []


@needs_kernel
def test_samara_wrong_twin_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = fast.kernel_twin

    def wrong(state: Any) -> Any:  # a twin of another deal
        return real(GAME.new_game(12345, state.num_players, {"powers": state.powers}))

    monkeypatch.setattr(fast, "kernel_twin", wrong)
    report = check_kernel(SAMARA, 2, seed=1)
    assert report["mismatches"] > 0 and len(report["examples"]) == 2


def test_samara_forced_pure_python_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    assert not SAMARA.kernel_available()
    with pytest.raises(FurnaceError, match="kernel for samara is not built"):
        check_kernel(SAMARA, 20, seed=1)


def test_samara_imports_and_plays_without_the_extension() -> None:
    code = (
        "import sys; sys.modules['ext.samara_kernel'] = None\n"
        "from engine.samara import GAME, fast\n"
        "s = GAME.new_game(3, 2)\n"
        "assert fast.kernel_module() is None and not GAME.kernel_available()\n"
        "assert s.search_state() is s\n"
        "print(s.rollout(1).scores)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
