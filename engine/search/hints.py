"""A hint: the search a player asks for advice, at the game's own budget.

A hint is not a bot.  Whatever the bots' strength at the table, a hint searches the
game's **hint budget**, :func:`hint_iterations`, and answers the search's best move (the
most visited, ``Analysis.best_move``): it never draws a move with a strength level's
temperature (:func:`engine.search.levels.choose_by_visits`), which is how a weak bot
errs on purpose.

The hint budget is the iteration budget of the game's strongest level
(``SearchConfig.levels[-1]``), which plays the most visited move: a hint lights the move
the strongest bot would play, and the forecasts it shows are those of a game finished by
that play, which is what the forecast models were fitted on (docs/forecasts.md).  The
ladders measured that level as the strongest (docs/strength.md); at a weak level's
budget a hint was noise (issue 37 saw every candidate of a 200-iteration Samara hint
get 12-15 visits, one lit as "the" hint).  With the compiled kernels it takes well
under a second (docs/api.md, "Hints and reviews").  Reviews have a budget of their own,
:attr:`engine.search.review_settings.ReviewSettings.budget`, at which docs/review.md
measured their labels.

Everything that gives a hint reads the budget here: ``furnace play``'s ``hint``, the
server's ``GameInfo.hint_iterations`` (which the web table's Hint button and the remote
client ask for).
"""

from __future__ import annotations

from engine.game import GameInfo, State
from engine.search.analysis import Analysis
from engine.search.config import config_for
from engine.search.dispatch import search_for


def hint_iterations(game: State | GameInfo | str) -> int:
    """The iterations of a hint in ``game`` (a state, its ``GameInfo`` or its name): the
    game's strongest level's budget."""
    return config_for(game).levels[-1].iterations


def hint_search(state: State, seed: int, iterations: int | None = None) -> Analysis:
    """A hint for the seat to move in ``state``, from that seat's information only: the
    search's analysis at ``iterations`` (default: :func:`hint_iterations`), whose
    ``best_move`` is the hint (never drawn with a temperature)."""
    seat = state.current_player()
    budget = hint_iterations(state) if iterations is None else iterations
    return search_for(state, seat, iterations=budget, seed=seed)
