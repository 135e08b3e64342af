"""Bots: objects that pick a move for the seat to move.

Bot specs (for the CLI and the arena), parsed by :func:`make_bot`:

* ``random`` - uniform over the legal moves;
* ``greedy`` - best one-ply ``heuristic()`` difference, averaged over determinizations
  of its own view in a hidden-information game (see :class:`GreedyBot`);
* ``mcts`` - UCT with the default budget of :data:`DEFAULT_MCTS_ITERATIONS` iterations;
  options follow, separated by ``:``: a bare integer or ``i=N`` is the iteration
  budget, ``t=SECONDS`` a time limit (both may be given: whichever runs out
  first), ``c=FLOAT`` the exploration constant, ``m=SCALE`` the score-margin scale
  of the utility (``m=0``: the bare win share), ``d=DEPTH`` the playout depth
  (``d=0``: full random playouts; ``d=N``: ``N`` random moves, then the game's
  heuristic, see :mod:`engine.search.evaluate`), ``p=WEIGHT`` the weight of the
  heuristic prior (progressive bias; ``p=0``: none), ``mast=EPSILON`` MAST playouts
  (:mod:`engine.search.mast`: the best move by the search's move averages, a uniformly
  random one with probability ``EPSILON``; ``mast=off``: uniformly random playouts),
  ``v=learned|heuristic`` what values the leaf after the playout (the game's fitted
  value model after uniformly random moves, the game's ``learned_depth`` unless ``d=``
  says, docs/learned-values.md; or ``heuristic()``; default: the game's setting),
  ``model=PATH`` a learned leaf value by the model file at ``PATH`` instead of the
  game's (it implies ``v=learned``; the file is read when the spec is parsed, and must
  be a model of the game the bot plays; ``PATH`` cannot hold a ``:``), ``mp=PATH`` a
  learned move prior (:mod:`engine.search.move_prior`, a file ``furnace fit-prior``
  writes; ``mp=off``: none, whatever the game's configuration says) and ``mpw=WEIGHT``
  its weight in selection (``mpw=0``: off), ``pp=EPSILON`` playouts that follow the
  move prior (:class:`~engine.search.move_prior.PriorPlayoutEvaluator`: each move drawn by
  the prior, or uniformly with probability ``EPSILON``; ``pp=off``: the playouts the
  game's configuration says), ``lp=mast`` MAST playouts before a learned leaf's model
  instead of uniformly random moves (``lp=random``).
  What a spec leaves out comes from the game's search configuration
  (:mod:`engine.search.config`).  Examples: ``mcts:2000``, ``mcts:2000:c=1.0``,
  ``mcts:t=1.5``, ``mcts:5000:t=2``, ``ismcts:2000:m=3``, ``mcts:t=2:d=40:m=5``,
  ``mcts:2000:p=0``, ``mcts:2000:mast=0.2``, ``mcts:t=0.1:model=models/stephens.json``;
* ``ismcts`` - single-observer information set MCTS (:mod:`engine.search.ismcts`)
  for hidden-information games, default :data:`DEFAULT_ISMCTS_ITERATIONS`
  iterations and ``c`` :data:`~engine.search.ismcts.DEFAULT_ISMCTS_C`; same
  options as ``mcts``: ``ismcts:2000``, ``ismcts:t=1:c=0.5``, ``ismcts:500:d=0``;
* ``uct`` - the plain-UCT baseline (:mod:`engine.search.baseline`): the search
  ``mcts`` had when ``uct`` was introduced (UCT, ISMCTS in a hidden-information game,
  uniformly random playouts, the game's margin scale, playout depth and ``c`` from its
  search configuration), which later search improvements never reach, so that
  ``mcts:2000`` can be measured against ``uct:2000``.  The options of ``mcts`` but
  ``p`` and ``mast`` (the baseline has no prior and random playouts): ``uct:2000``,
  ``uct:t=1``, ``uct:500:m=3``;
* ``classic`` - the default search as it stood on 2026-11-30, before learned move
  priors (:data:`~engine.search.config.CLASSIC_CONFIGS`), kept so that later changes
  of the default can be measured against it: ``mcts:t=0.1`` against ``classic:t=0.1``.
  The options of ``mcts``: ``classic:2000``, ``classic:t=0.1``;
* ``level:N`` - strength level ``N``, 1 (weakest) to 5 (:mod:`engine.search.levels`):
  the default search with the level's iteration budget, then the level's choice over
  the root's visit counts (the weak levels sample, the strong ones play the most
  visited move).  One option, ``v=learned|heuristic``, the leaf value, as for ``mcts``
  (to replay games played before a game's default leaf changed): ``level:1``,
  ``level:5``, ``level:1:v=heuristic``.

Bots never modify the state they are given, and decide only from what the seat
to move can see: random and greedy bots from its legal moves and determinizations
of its view, tree searches through ISMCTS in hidden-information games.  They
raise ``ValueError`` when asked to move in a chance or finished position.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from engine.game import CHANCE, TERMINAL, FurnaceError, State
from engine.search.analysis import Analysis
from engine.search.baseline import baseline_config
from engine.search.budget import BudgetedSearch
from engine.search.config import (
    LEAF_VALUES,
    LEARNED_LEAF,
    LEARNED_PLAYOUTS,
    NO_MOVE_PRIOR,
    UNIFORM_PLAYOUTS,
    SearchConfig,
    SearchOverrides,
    classic_config,
    config_for,
    shipped_model,
    shipped_prior,
)
from engine.search.dispatch import make_tree
from engine.search.ismcts import ISMCTS
from engine.search.levels import MAX_LEVEL, MIN_LEVEL, Level, get_level, valid_levels

#: Iterations of a bare ``mcts`` spec.
DEFAULT_MCTS_ITERATIONS = 1000
#: Iterations of a bare ``ismcts`` spec.
DEFAULT_ISMCTS_ITERATIONS = 1000
#: Determinizations a greedy bot scores its moves on in a hidden-information game.
DEFAULT_GREEDY_SAMPLES = 8
#: Weight of the win share in GreedyBot's evaluation of a finished position.
_WIN_WEIGHT = 1e9


class BotSpecError(FurnaceError):
    """A bot spec that cannot be parsed (a ``ValueError``)."""


@runtime_checkable
class Bot(Protocol):
    """Anything with a ``name`` that chooses a legal move for the seat to move."""

    name: str

    def choose(self, state: State, rng: random.Random) -> int:
        """A legal move of ``state.current_player()``; ``state`` is left unchanged."""
        ...


def _require_decision(state: State) -> int:
    player = state.current_player()
    if player == CHANCE:
        raise ValueError("a bot cannot move at a chance node")
    if player == TERMINAL or player < 0:
        raise ValueError("a bot cannot move in a finished game")
    return player


class RandomBot:
    """Uniformly random legal moves."""

    def __init__(self, name: str = "random") -> None:
        self.name = name

    def choose(self, state: State, rng: random.Random) -> int:
        _require_decision(state)
        moves = state.legal_moves()
        if not moves:
            raise ValueError("no legal moves")
        return moves[rng.randrange(len(moves))]


class GreedyBot:
    """One ply of lookahead on ``State.heuristic()``, from the seat's own information.

    Each legal move is played on copies of the position and scored
    ``h[me] - max(h[others])`` (just ``h[me]`` alone in a one-player game).  In a
    game of perfect information the copy is the position itself; otherwise the
    bot never sees the hidden parts: it scores every move on ``samples``
    determinizations of its own view (``determinize(me, rng)``) and averages.
    When the move leads to a chance node the score is the probability-weighted
    average over that node's outcomes (one level: a chance node right after an
    outcome is evaluated as it stands).  A finished position adds
    ``1e9 * (reward[me] - max(reward[others]))`` from its outcome, so an
    immediate win is always taken and an immediate loss avoided.  Equal scores
    are broken uniformly with ``rng``.
    """

    def __init__(self, name: str = "greedy", samples: int = DEFAULT_GREEDY_SAMPLES) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, not {samples}")
        self.name = name
        self.samples = samples

    def choose(self, state: State, rng: random.Random) -> int:
        me = _require_decision(state)
        moves = state.legal_moves()
        if not moves:
            raise ValueError("no legal moves")
        root = state.search_state()
        if state.info.perfect_information:
            worlds = [root]
        else:
            worlds = [root.determinize(me, rng).search_state() for _ in range(self.samples)]
        for world in worlds:
            # Worked out once here, the moves pass to every copy made below in a game
            # whose states keep them (Stephens'), instead of once per copy when a move
            # is checked before it is played.
            world.legal_moves()
        best: list[int] = []
        best_value = float("-inf")
        for move in moves:
            value = sum(self._move_value(world, move, me) for world in worlds) / len(worlds)
            if value > best_value + 1e-9:
                best_value = value
                best = [move]
            elif value >= best_value - 1e-9:
                best.append(move)
        return best[rng.randrange(len(best))] if len(best) > 1 else best[0]

    def _move_value(self, world: State, move: int, me: int) -> float:
        child = world.clone()
        child.apply(move)
        if child.current_player() != CHANCE:
            return self._evaluate(child, me)
        value = 0.0
        total = 0.0
        for outcome, prob in child.chance_outcomes():
            after = child.clone()
            after.apply(outcome)
            value += prob * self._evaluate(after, me)
            total += prob
        return value / total if total > 0 else self._evaluate(child, me)

    @staticmethod
    def _evaluate(state: State, me: int) -> float:
        value = _margin(state.heuristic(), me)
        if state.current_player() == TERMINAL:
            value += _WIN_WEIGHT * _margin(list(state.outcome().rewards), me)
        return value


def _margin(values: list[float], me: int) -> float:
    others = [v for i, v in enumerate(values) if i != me]
    return float(values[me]) - (max(others) if others else 0.0)


class MctsBot:
    """UCT search (:mod:`engine.search.mcts`) for every move.

    The tree search that suits the game: in a game with hidden information
    (``info.perfect_information`` false) the bot runs ISMCTS for the seat to
    move instead, so it never sees what that seat cannot.  With a ``seed`` the bot draws the seed of each search from its own
    ``random.Random(seed)``; without one it draws it from the ``rng`` passed to
    :meth:`choose`, so games stay reproducible either way.  The analysis of the
    last search is kept in ``last_analysis``.

    The search settings are the game's configuration with ``overrides``
    (:class:`~engine.search.config.SearchOverrides`: a spec's ``c``, ``m``, ``d``, ``p``,
    ``mast``, ``v`` and ``model``), applied in each game the bot plays.
    """

    _kind = "mcts"

    def __init__(
        self,
        iterations: int | None = DEFAULT_MCTS_ITERATIONS,
        time_limit: float | None = None,
        seed: int | None = None,
        name: str | None = None,
        overrides: SearchOverrides | None = None,
    ) -> None:
        if iterations is None and time_limit is None:
            raise ValueError(
                f"{type(self).__name__} needs an iteration budget, a time limit, or both")
        self.iterations = iterations
        self.time_limit = time_limit
        self.seed = seed
        self.overrides = SearchOverrides() if overrides is None else overrides
        self._rng = random.Random(seed) if seed is not None else None
        self.name = name or _mcts_name(iterations, time_limit, self.overrides.c, self._kind)
        self.last_analysis: Analysis | None = None

    def _tree(self, state: State, seed: int) -> BudgetedSearch:
        # Plain MCTS would read the hidden cards: a hidden-information game gets ISMCTS.
        return make_tree(state, self._config(state), seed=seed)

    def _config(self, state: State) -> SearchConfig:
        """The search settings in ``state``'s game."""
        return self.overrides.applied_to(config_for(state), state)

    def choose(self, state: State, rng: random.Random) -> int:
        _require_decision(state)
        source = self._rng if self._rng is not None else rng
        tree = self._tree(state, source.getrandbits(63))
        self.last_analysis = tree.search(*self._budget(state))
        return self._pick(state, self.last_analysis, source)

    def _budget(self, state: State) -> tuple[int | None, float | None]:
        """The search's iterations and time limit in ``state``."""
        return self.iterations, self.time_limit

    def _pick(self, state: State, analysis: Analysis, rng: random.Random) -> int:
        """The move to play after the search: the most visited one."""
        return analysis.best_move


class UctBot(MctsBot):
    """The plain-UCT baseline (``uct`` specs): :class:`MctsBot` on a tree built with
    :func:`~engine.search.baseline.baseline_config`, which later search improvements
    leave alone (see :mod:`engine.search.baseline`).  Options and defaults as
    :class:`MctsBot`'s.
    """

    _kind = "uct"

    def _config(self, state: State) -> SearchConfig:
        return self.overrides.applied_to(baseline_config(state), state)


class ClassicBot(MctsBot):
    """The classic search (``classic`` specs): :class:`MctsBot` on a tree built with the
    game's :func:`~engine.search.config.classic_config`.  Options and defaults as
    :class:`MctsBot`'s."""

    _kind = "classic"

    def _config(self, state: State) -> SearchConfig:
        return self.overrides.applied_to(classic_config(state), state)


class LevelBot(MctsBot):
    """Strength level ``level`` (``level:N`` specs, :mod:`engine.search.levels`): the
    default search with the level's iteration budget, then the level's choice over the
    root's visit counts.  The level is the game's (:meth:`level_for`: its search
    configuration's table), so ``iterations`` is ``None`` until a game is known.

    The choice draws from the same generator as the search's seed (the bot's own with a
    ``seed``, else the ``rng`` given to :meth:`choose`), so games stay reproducible;
    ``last_analysis`` is the search's, whose ``best_move`` (the most visited move) may
    differ from the move a weak level played.
    """

    _kind = "level"

    def __init__(self, level: int, seed: int | None = None, name: str | None = None,
                 leaf_value: str | None = None) -> None:
        default = get_level(level)  # checks the number: every game's table has 1-5
        super().__init__(iterations=default.iterations, seed=seed, name=name or default.name,
                         overrides=SearchOverrides(leaf_value=leaf_value))
        self.number = default.number
        self.iterations = None  # the game's table gives it, move by move (_budget)

    def level_for(self, state: State) -> Level:
        """This bot's level in ``state``'s game."""
        return config_for(state).level(self.number)

    def _budget(self, state: State) -> tuple[int | None, float | None]:
        return self.level_for(state).iterations, None

    def _pick(self, state: State, analysis: Analysis, rng: random.Random) -> int:
        return self.level_for(state).choose(analysis, rng)


class IsmctsBot(MctsBot):
    """Single-observer ISMCTS (:mod:`engine.search.ismcts`) for every move.

    The search sees the position only through ``determinize`` for the seat to
    move, so the bot can be handed the full state of a hidden-information game
    without cheating.  Seeding and ``last_analysis`` work as in :class:`MctsBot`.
    """

    _kind = "ismcts"

    def _tree(self, state: State, seed: int) -> BudgetedSearch:
        return ISMCTS(state, None, self._config(state), seed=seed)


def _mcts_name(iterations: int | None, time_limit: float | None, c: float | None,
               kind: str) -> str:
    parts = [kind]
    if iterations is not None:
        parts.append(str(iterations))
    if time_limit is not None:
        parts.append(f"t={time_limit:g}")
    if c is not None:
        parts.append(f"c={c:g}")
    return ":".join(parts)


_SEARCH_OPTIONS = "[:ITERATIONS][:t=SECONDS][:c=FLOAT][:m=SCALE][:d=DEPTH]"
_GUIDED_OPTIONS = ("[:p=WEIGHT][:mast=EPSILON][:v=LEAF][:model=PATH][:mp=PATH][:mpw=WEIGHT]"
                   "[:pp=EPSILON][:lp=random|mast]")
_SPEC_HELP = (
    f"bot specs: random, greedy, mcts{_SEARCH_OPTIONS}{_GUIDED_OPTIONS}, "
    f"ismcts{_SEARCH_OPTIONS}{_GUIDED_OPTIONS}, classic{_SEARCH_OPTIONS}{_GUIDED_OPTIONS}, "
    f"uct{_SEARCH_OPTIONS}, level:N[:v=LEAF] (N {MIN_LEVEL}-{MAX_LEVEL}, {MIN_LEVEL} weakest)"
)


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """The bot described by ``spec`` (see the module docstring); raises :class:`BotSpecError`.

    ``seed`` seeds bots that keep their own generator (``mcts``, ``ismcts``, ``uct``,
    ``level``); the others only use the ``rng`` given to ``choose``.  The bot's ``name``
    is the spec as given.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError(f"empty bot spec ({_SPEC_HELP})")
    text = spec.strip()
    kind, *args = [part.strip() for part in text.split(":")]
    kind = kind.lower()
    if kind in ("random", "greedy"):
        if args:
            raise BotSpecError(f"bot {kind!r} takes no options, got {text!r} ({_SPEC_HELP})")
        return RandomBot(text) if kind == "random" else GreedyBot(text)
    if kind == "level":
        return _make_level_bot(text, args, seed)
    if kind not in ("mcts", "ismcts", "uct", "classic"):
        raise BotSpecError(f"unknown bot {kind!r} in {text!r} ({_SPEC_HELP})")

    iterations: int | None = None
    time_limit: float | None = None
    options: dict[str, Any] = {}  # SearchOverrides' fields, by name
    seen: set[str] = set()
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq:
            key, value = "i", arg
        key = key.strip().lower()
        value = value.strip()
        key = {"iterations": "i", "time": "t", "depth": "d"}.get(key, key)
        if key in seen:
            raise BotSpecError(f"option {key!r} given twice in {text!r}")
        seen.add(key)
        if key == "i":
            try:
                iterations = int(value)
            except ValueError:
                raise BotSpecError(
                    f"iterations must be an integer, got {value!r} in {text!r}"
                ) from None
            if iterations < 1:
                raise BotSpecError(f"iterations must be at least 1, got {value!r} in {text!r}")
        elif key == "d":
            try:
                depth = int(value)
            except ValueError:
                raise BotSpecError(
                    f"playout depth d= must be an integer (0: full playouts), got {value!r} "
                    f"in {text!r}"
                ) from None
            if depth < 0:
                raise BotSpecError(
                    f"playout depth d= must not be negative (0: full playouts), got {value!r} "
                    f"in {text!r}")
            options["playout_depth"] = depth
        elif key == "v":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline plays full playouts: option v= is "
                                   f"for mcts and ismcts, got {text!r}")
            if value.lower() not in LEAF_VALUES:
                raise BotSpecError(f"v= needs a leaf value, {' or '.join(LEAF_VALUES)}, "
                                   f"got {value!r} in {text!r}")
            options["leaf_value"] = value.lower()
        elif key == "model":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline plays full playouts: option model= is "
                                   f"for mcts and ismcts, got {text!r}")
            try:
                shipped_model(value)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise BotSpecError(f"model= needs a value model file, got {value!r} in "
                                   f"{text!r}: {exc}") from None
            options["value_model"] = value
        elif key == "mp":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline has no prior: option mp= is for mcts "
                                   f"and ismcts, got {text!r}")
            if value.lower() == NO_MOVE_PRIOR:
                options["move_prior"] = NO_MOVE_PRIOR
                continue
            try:
                shipped_prior(value)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise BotSpecError(f"mp= needs a move prior file (or {NO_MOVE_PRIOR!r}), got "
                                   f"{value!r} in {text!r}: {exc}") from None
            options["move_prior"] = value
        elif key == "mpw":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline has no prior: option mpw= is for mcts "
                                   f"and ismcts, got {text!r}")
            try:
                move_weight = float(value)
            except ValueError:
                move_weight = -1.0
            if not (0.0 <= move_weight < float("inf")):
                raise BotSpecError(f"mpw= needs a finite weight of 0 or more (0: no move "
                                   f"prior), got {value!r} in {text!r}")
            options["move_prior_weight"] = move_weight
        elif key == "lp":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline plays random playouts: option lp= is "
                                   f"for mcts and ismcts, got {text!r}")
            if value.lower() not in LEARNED_PLAYOUTS:
                raise BotSpecError(f"lp= needs {' or '.join(LEARNED_PLAYOUTS)}, got {value!r} "
                                   f"in {text!r}")
            options["learned_playouts"] = value.lower()
        elif key == "pp":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline plays random playouts: option pp= is "
                                   f"for mcts and ismcts, got {text!r}")
            if value.lower() == NO_MOVE_PRIOR:
                options["prior_playouts"] = NO_MOVE_PRIOR
                continue
            try:
                playout_epsilon = float(value)
            except ValueError:
                playout_epsilon = -1.0
            if not 0.0 <= playout_epsilon <= 1.0:
                raise BotSpecError(f"pp= needs an epsilon from 0 to 1 (or {NO_MOVE_PRIOR!r}), "
                                   f"got {value!r} in {text!r}")
            options["prior_playouts"] = playout_epsilon
        elif key == "mast":
            if kind == "uct":
                raise BotSpecError(f"the uct baseline plays random playouts: option mast= is "
                                   f"for mcts and ismcts, got {text!r}")
            if value.lower() == UNIFORM_PLAYOUTS:
                options["mast_epsilon"] = UNIFORM_PLAYOUTS
                continue
            try:
                mast = float(value)
            except ValueError:
                mast = -1.0
            if not 0.0 <= mast <= 1.0:
                raise BotSpecError(f"mast= needs an epsilon from 0 to 1 (or {UNIFORM_PLAYOUTS!r}"
                                   f" for random playouts), got {value!r} in {text!r}")
            options["mast_epsilon"] = mast
        elif key in ("t", "c", "m", "p"):
            try:
                number = float(value)
            except ValueError:
                raise BotSpecError(
                    f"option {key}= needs a number, got {value!r} in {text!r}"
                ) from None
            if not (number == number and number not in (float("inf"), float("-inf"))):
                raise BotSpecError(f"option {key}= must be finite, got {value!r} in {text!r}")
            if key == "t":
                if number <= 0:
                    raise BotSpecError(f"time limit must be positive, got {value!r} in {text!r}")
                time_limit = number
            elif key == "m":
                if number < 0:
                    raise BotSpecError(f"m must not be negative, got {value!r} in {text!r}")
                options["margin_scale"] = number if number > 0 else None
            elif key == "p":
                if kind == "uct":
                    raise BotSpecError(f"the uct baseline has no prior: option p= is for "
                                       f"mcts and ismcts, got {text!r}")
                if number < 0:
                    raise BotSpecError(f"p must not be negative (0: no prior), got {value!r} "
                                       f"in {text!r}")
                options["prior_weight"] = number
            else:
                if number < 0:
                    raise BotSpecError(f"c must not be negative, got {value!r} in {text!r}")
                options["c"] = number
        else:
            raise BotSpecError(f"unknown {kind} option {key!r} in {text!r} ({_SPEC_HELP})")
    leaf = options.get("leaf_value")
    if "value_model" in options and leaf not in (None, LEARNED_LEAF):
        raise BotSpecError(f"model= is a learned leaf value, not v={leaf} in {text!r}")
    if iterations is None and time_limit is None:
        iterations = DEFAULT_ISMCTS_ITERATIONS if kind == "ismcts" else DEFAULT_MCTS_ITERATIONS
    bot_class = {"ismcts": IsmctsBot, "uct": UctBot, "classic": ClassicBot}.get(kind, MctsBot)
    return bot_class(iterations=iterations, time_limit=time_limit, seed=seed, name=text,
                     overrides=SearchOverrides(**options))


def _make_level_bot(text: str, args: list[str], seed: int | None) -> LevelBot:
    leaf = None
    if len(args) == 2 and args[1].startswith("v="):
        leaf = args[1][2:]
        if leaf not in LEAF_VALUES:
            raise BotSpecError(f"v= needs a leaf value, {' or '.join(LEAF_VALUES)}, got "
                               f"{leaf!r} in {text!r}")
        args = args[:1]
    if len(args) != 1 or not args[0]:
        raise BotSpecError(f"a level spec is level:N with N one of {valid_levels()}, or "
                           f"level:N:v=LEAF, got {text!r}")
    try:
        number = int(args[0])
    except ValueError:
        number = None
    if number is None or not MIN_LEVEL <= number <= MAX_LEVEL:
        raise BotSpecError(f"level must be one of {valid_levels()}, got {args[0]!r} "
                           f"in {text!r}")
    return LevelBot(number, seed=seed, name=text, leaf_value=leaf)
