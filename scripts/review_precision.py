"""Measure what a review's mistake and blunder labels are worth (docs/review.md).

    python scripts/review_precision.py GAME [--games 20] [--players 2] [--seed 0]
        [--budget N] [--factor 10] [--bots level:1,level:4] [--seat S] [--confirm K]

Plays ``--games`` games between the bots (cycled over the seats; game ``g`` is dealt
and played from seed ``seed + g``), reviews every seat of each at ``--budget``
(default: the game's review budget), then judges each move labelled mistake or
blunder again with ``--factor`` times the budget and another seed (a single look: no
deeper look of its own).  ``--confirm`` sets the review's deeper look
(``ReviewSettings.confirm``) in place of the game's.  Prints one line
a re-judged move and, last, a JSON summary: the moves flagged, the share whose label
at the larger budget is the same or worse (``precision``), the share still a
mistake or a blunder, and the mean losses (win probability, points) at both budgets.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import replace

from engine import registry
from engine.records import GameRecord
from engine.search import make_bot
from engine.search.review import decisions_of, review_decision, review_game
from engine.search.review_settings import LABELS, review_settings_for
from tournaments import play_game

FLAGGED = ("mistake", "blunder")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int)
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--bots", default="level:1,level:4")
    parser.add_argument("--seat", type=int, help="review only this seat (0-based)")
    parser.add_argument("--confirm", type=int,
                        help="the review's deeper look, times the budget (1: none)")
    args = parser.parse_args(argv)
    game = registry.get_game(args.game)
    settings = review_settings_for(game.info.name)
    if args.confirm is not None:
        settings = replace(settings, confirm=args.confirm)
    specs = args.bots.split(",")
    rejudged = []
    for g in range(args.games):
        seed = args.seed + g
        state = game.new_game(seed, args.players, {})
        bots = [make_bot(specs[s % len(specs)]) for s in range(args.players)]
        _, moves = play_game(state, bots, random.Random(seed))
        record = GameRecord(game.info.name, args.players, seed=seed, moves=list(moves))
        review = review_game(record, args.seat, budget=args.budget, seed=seed,
                             settings=settings)
        positions = {turn: (position, played)
                     for turn, position, played in decisions_of(record, review.seats)}
        for first in review.decisions:
            if first.label not in FLAGGED:
                continue
            position, played = positions[first.turn]
            again = review_decision(position, played, first.turn,
                                    budget=args.factor * review.budget,
                                    seed=seed + 1_000_000,
                                    settings=replace(review.settings, confirm=1))
            rejudged.append((first, again))
            print(f"game {g + 1} move {first.turn + 1} P{first.seat + 1}: {first.label} "
                  f"({first.win_probability_loss:+.3f}, {first.score_loss:+.1f} points) -> "
                  f"{again.label} ({again.win_probability_loss:+.3f}, "
                  f"{again.score_loss:+.1f} points)", file=sys.stderr, flush=True)
    n = len(rejudged)

    def mean(values: list[float]) -> float | None:
        return sum(values) / n if n else None

    print(json.dumps({
        "game": game.info.name, "games": args.games, "players": args.players,
        "bots": specs, "seat": args.seat, "budget": args.budget or (review.budget if args.games else None),
        "factor": args.factor, "confirm": settings.confirm, "flagged": n,
        "precision": mean([float(LABELS.index(b.label) >= LABELS.index(a.label))
                           for a, b in rejudged]),
        "still_flagged": mean([float(b.label in FLAGGED) for _, b in rejudged]),
        "win_probability_loss": [mean([a.win_probability_loss for a, _ in rejudged]),
                                 mean([b.win_probability_loss for _, b in rejudged])],
        "score_loss": [mean([a.score_loss for a, _ in rejudged]),
                       mean([b.score_loss for _, b in rejudged])],
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
