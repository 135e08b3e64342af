"""Bradley-Terry ratings: recovery of known ratings, the anchor, regularisation,
intervals, and the errors."""

from __future__ import annotations

import math

import pytest

from engine.game import FurnaceError
from tournaments.ratings import (
    ELO_PER_NAT,
    Pairing,
    Rating,
    RatingError,
    fit_ratings,
    intervals_overlap,
)


def expected_share(r_a: float, r_b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def round_robin(true: dict[str, float], games: float) -> list[Pairing]:
    """Every pair with exactly the expected score: the fit must give ``true`` back."""
    names = list(true)
    return [Pairing(a, b, games, games * expected_share(true[a], true[b]))
            for i, a in enumerate(names) for b in names[i + 1:]]


def test_recovers_known_ratings_from_expected_results() -> None:
    true = {"random": 0.0, "greedy": 150.0, "level:1": 320.0, "level:3": 610.0,
            "level:5": 900.0}
    fit = fit_ratings(round_robin(true, 100_000), anchor="random")
    for name, elo in true.items():
        assert fit[name].elo == pytest.approx(elo, abs=1.0)
    assert [r.name for r in fit.ranked()] == ["level:5", "level:3", "level:1", "greedy",
                                              "random"]
    assert fit.names == tuple(true)  # the order of first appearance


def test_anchor_is_zero_and_moves_the_scale_only() -> None:
    true = {"a": 0.0, "b": 100.0, "c": 250.0}
    results = round_robin(true, 1000)
    by_a = fit_ratings(results)  # default anchor: the first name
    by_c = fit_ratings(results, anchor="c")
    assert by_a.anchor == "a" and by_a["a"].elo == 0.0
    assert by_a["a"].se == 0.0 and by_a["a"].ci95 == (0.0, 0.0)
    assert by_c["c"].elo == 0.0 and by_c["c"].ci95 == (0.0, 0.0)
    for name in true:
        assert by_c[name].elo == pytest.approx(by_a[name].elo - by_a["c"].elo, abs=1e-6)
    assert by_a["b"].elo == pytest.approx(100.0, abs=3.0)  # one virtual draw per 1000 games


def test_symmetric_results_give_equal_ratings() -> None:
    results = [Pairing("x", "y", 10, 5.0), Pairing("y", "z", 10, 5.0),
               Pairing("z", "x", 10, 5.0)]
    fit = fit_ratings(results)
    for rating in fit.ratings:
        assert rating.elo == pytest.approx(0.0, abs=1e-9)
        assert rating.games == 20 and rating.score == 10.0
    assert [r.name for r in fit.ranked()] == ["x", "y", "z"]  # ties keep the order given
    # Cyclic results (x beats y beats z beats x, equally): equal ratings too.
    cyclic = fit_ratings([Pairing("x", "y", 10, 7.0), Pairing("y", "z", 10, 7.0),
                          Pairing("z", "x", 10, 7.0)], anchor="y")
    assert cyclic["x"].elo == pytest.approx(0.0, abs=1e-9)
    assert cyclic["z"].elo == pytest.approx(0.0, abs=1e-9)


def test_results_add_up_in_either_order() -> None:
    split = fit_ratings([Pairing("a", "b", 6, 4.0), Pairing("b", "a", 4, 1.5)])
    whole = fit_ratings([Pairing("a", "b", 10, 6.5)])
    assert split["b"].elo == pytest.approx(whole["b"].elo, abs=1e-9)
    assert split["a"].score == 6.5 and split["b"].score == 3.5


def test_elo_scale_and_virtual_draw() -> None:
    # 76 points of 100, plus one virtual draw: 76.5 / 101.
    fit = fit_ratings([Pairing("strong", "weak", 100, 76.0)], anchor="weak")
    share = 76.5 / 101
    assert fit["strong"].elo == pytest.approx(400 * math.log10(share / (1 - share)), abs=1e-6)
    plain = fit_ratings([Pairing("strong", "weak", 100, 76.0)], anchor="weak",
                        virtual_draws=0)
    assert plain["strong"].elo == pytest.approx(400 * math.log10(76 / 24), abs=1e-6)
    # The interval from the Fisher information: se = 1 / sqrt(n p (1 - p)) nats.
    se = ELO_PER_NAT / math.sqrt(100 * 0.76 * 0.24)
    assert plain["strong"].se == pytest.approx(se, rel=1e-6)
    lo, hi = plain["strong"].ci95
    assert (hi - lo) / 2 == pytest.approx(1.959964 * se, rel=1e-6)


def test_perfect_separation_stays_finite_and_ordered() -> None:
    # a won every game against b and c; b won every game against c.
    results = [Pairing("a", "b", 20, 20.0), Pairing("a", "c", 20, 20.0),
               Pairing("b", "c", 20, 20.0)]
    fit = fit_ratings(results, anchor="c")
    elos = [fit[n].elo for n in ("a", "b", "c")]
    assert all(math.isfinite(e) for e in elos)
    assert elos[0] > elos[1] > elos[2] == 0.0
    assert all(math.isfinite(fit[n].se) and fit[n].se > 0 for n in ("a", "b"))
    # More games at the same perfect score: further apart, still finite.
    more = fit_ratings([Pairing(p.a, p.b, 200, 200.0) for p in results], anchor="c")
    assert more["a"].elo > fit["a"].elo and math.isfinite(more["a"].elo)
    with pytest.raises(RatingError, match="without virtual draws: a never conceded"):
        fit_ratings(results, anchor="c", virtual_draws=0)


def test_interval_shrinks_with_more_games() -> None:
    true = {"a": 0.0, "b": 120.0, "c": 200.0}
    widths = []
    for games in (20, 80, 320):
        fit = fit_ratings(round_robin(true, games))
        lo, hi = fit["b"].ci95
        assert lo < fit["b"].elo < hi
        widths.append(hi - lo)
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] / widths[1] == pytest.approx(2.0, rel=0.1)  # 1 / sqrt(games)


def test_disconnected_results_are_an_error() -> None:
    results = [Pairing("a", "b", 10, 6.0), Pairing("c", "d", 10, 4.0)]
    with pytest.raises(RatingError, match="not connected: a, b never played c, d"):
        fit_ratings(results)
    with pytest.raises(ValueError, match="not connected"):  # a FurnaceError, a ValueError
        fit_ratings([Pairing("a", "b", 10, 6.0)], names=["a", "b", "lonely"])
    assert issubclass(RatingError, FurnaceError)
    # Connected through a third party is enough.
    fit = fit_ratings(results + [Pairing("b", "c", 10, 5.0)])
    assert len(fit.ratings) == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"results": [Pairing("a", "b", 10, 11.0)]}, "must be in 0..games"),
        ({"results": [Pairing("a", "b", -1, 0.0)]}, "must be in 0..games"),
        ({"results": [Pairing("a", "b", 10, 5.0)], "anchor": "z"}, "anchor 'z'"),
        ({"results": [Pairing("a", "a", 10, 5.0)]}, "against itself"),
        ({"results": [Pairing("a", "b", 10, 5.0)], "virtual_draws": -1}, "virtual_draws"),
        ({"results": [Pairing("a", "b", 10, 5.0)], "names": ["a"]}, "not among the names"),
        ({"results": []}, "no names"),
    ],
)
def test_bad_results_are_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(RatingError, match=message):
        fit_ratings(**kwargs)


def test_intervals_overlap_and_difference() -> None:
    def rating(lo: float, hi: float) -> Rating:
        return Rating("r", (lo + hi) / 2, (hi - lo) / 3.92, (lo, hi), 10, 5.0)

    assert intervals_overlap(rating(0, 100), rating(50, 150))
    assert intervals_overlap(rating(50, 150), rating(0, 100))
    assert intervals_overlap(rating(0, 100), rating(100, 200))  # a shared end point
    assert not intervals_overlap(rating(0, 100), rating(100.5, 200))
    assert not intervals_overlap(rating(300, 400), rating(0, 100))

    true = {"l1": 0.0, "l3": 250.0, "l5": 500.0}
    fit = fit_ratings(round_robin(true, 200))
    assert not intervals_overlap(fit["l1"], fit["l3"])
    assert not intervals_overlap(fit["l3"], fit["l5"])
    few = fit_ratings(round_robin(true, 4))
    assert intervals_overlap(few["l1"], few["l3"])
    diff, (lo, hi) = fit.difference("l5", "l3")
    assert diff == pytest.approx(fit["l5"].elo - fit["l3"].elo)
    assert lo < diff < hi and lo > 0
    back, (blo, bhi) = fit.difference("l3", "l5")
    assert back == pytest.approx(-diff) and (blo, bhi) == pytest.approx((-hi, -lo))
    # Against the anchor the difference's interval is the rating's own.
    assert fit.difference("l3", "l1")[1] == pytest.approx(fit["l3"].ci95)
