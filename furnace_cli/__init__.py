"""The ``furnace`` command line: play, self-play, arena, benchmarks, kernel checks, server.

The application layer: it composes the engine's commands with the server's
(:mod:`ai_server.cli`) and the clients' (:mod:`clients.cli`); ``engine`` imports
neither (the import rules are in pyproject.toml, ``[tool.importlinter]``).

Every subcommand answers bad input with a one-line error and exit status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from engine.batch import connect_timeout, import_ray, parse_cluster_address
from engine.game import FurnaceError
from engine.seats import SEAT_CONVENTION


def _options(text: str | None) -> dict[str, Any]:
    """Game options from ``key=value,key=value`` (values: true/false/integers/strings)."""
    options: dict[str, Any] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        if not eq:
            raise FurnaceError(f"option {part!r} must look like name=value")
        value = value.strip()
        parsed: Any = value
        if value.lower() in ("true", "yes", "on"):
            parsed = True
        elif value.lower() in ("false", "no", "off"):
            parsed = False
        elif value.lstrip("-").isdigit():
            parsed = int(value)
        options[key.strip()] = parsed
    return options


def _add_cluster_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run the games as tasks of a Ray cluster: local (start one on "
                   "this machine, every port on 127.0.0.1), auto (the cluster running "
                   "here), HOST:PORT (a head's GCS address) or ray://HOST:PORT (Ray "
                   "Client); joining gives up after 60 s (FURNACE_CLUSTER_TIMEOUT).  Needs "
                   "pip install 'furnace[cluster]'; same results as without "
                   "(docs/cluster.md)")


def _progress_bar(label: str) -> Callable[[int, int], None]:
    """A progress bar on stderr, redrawn in place on terminals and every 10% elsewhere."""
    tty = sys.stderr.isatty()
    last = [-1]

    def show(done: int, total: int) -> None:
        fraction = done / total if total else 1.0
        if not tty and int(fraction * 10) == last[0] and done != total:
            return
        last[0] = int(fraction * 10)
        filled = int(fraction * 30)
        bar = "#" * filled + "-" * (30 - filled)
        end = "\n" if done == total or not tty else ""
        sys.stderr.write(f"\r{label} [{bar}] {done}/{total}{end}")
        sys.stderr.flush()

    return show


def _cmd_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema (draft 2020-12) of a game's JSON state: what a server
    answers in ``GameInfo.state_schema`` and at ``GET /schemas/<game>.json``."""
    from engine import registry
    from engine.state_schema import json_schema, schema_text

    schema = json_schema(registry.get_game(args.game).state_description())
    print(schema_text(schema) if args.compact else json.dumps(schema, indent=2,
                                                               ensure_ascii=False))
    return 0


def _cmd_games(args: argparse.Namespace) -> int:
    """List the games; one that fails to load (a corrupt catalogue...) is named with the
    reason, the others are listed all the same (exit status 1 then)."""
    from engine import registry

    failed = 0
    for name in registry.game_names():
        try:
            info = registry.get_game(name).info
        except Exception as exc:  # one broken game must not hide the others
            failed += 1
            reason = str(exc) if isinstance(exc, FurnaceError) else \
                f"{type(exc).__name__}: {exc}"
            print(f"{name}: failed to load: {reason}")
            continue
        kind = "perfect information" if info.perfect_information else "hidden information"
        options = ", ".join(f"{o.name}={o.default}" for o in info.options) or "none"
        print(f"{info.name}: {info.title}, {info.min_players}-{info.max_players} players, "
              f"{kind}; options: {options}")
    return 1 if failed else 0


def _cmd_arena(args: argparse.Namespace) -> int:
    from engine import registry
    from tournaments import run_arena

    game = registry.get_game(args.game)
    specs = [s for s in args.bots.split(",") if s.strip()]
    progress = None if args.quiet else _progress_bar(f"{game.info.name} arena")
    report = run_arena(game, args.players, specs, args.games, args.seed,
                       _options(args.options), progress=progress, workers=args.workers,
                       cluster=args.cluster)
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['game']}, {report['players']} players, {report['games']} games, "
              f"seed {report['seed']}")
        for key, res in report["results"].items():
            if "ranks" in res:  # one seat: a score and ranks, no win rate
                lo, hi = res["score_ci95"]
                ranks = ", ".join(f"{name} {n}" for name, n in res["ranks"].items())
                print(f"  {key:<20} mean score {res['mean_score']:.2f} (95% CI {lo:.2f}-"
                      f"{hi:.2f}); {ranks}")
                continue
            lo, hi = res["ci95"]
            print(f"  {key:<20} win rate {res['win_rate']:.3f} (95% CI {lo:.3f}-{hi:.3f}), "
                  f"mean score {res['mean_score']:.2f}")
    return 0


def _cmd_calibration(args: argparse.Namespace) -> int:
    from furnace_cli.calibration import run_calibration_command

    return run_calibration_command(args, _options(args.options), _progress_bar)


def _cmd_fit_value(args: argparse.Namespace) -> int:
    from furnace_cli.fit_value import run_fit_value_command

    return run_fit_value_command(args, _options(args.options), _progress_bar)


def _cmd_fit_prior(args: argparse.Namespace) -> int:
    from furnace_cli.fit_prior import run_fit_prior_command

    return run_fit_prior_command(args, _options(args.options), _progress_bar)


def _cmd_prior_loop(args: argparse.Namespace) -> int:
    from furnace_cli.fit_prior import run_prior_loop_command

    return run_prior_loop_command(args, _options(args.options), _progress_bar)


def _cmd_ladder(args: argparse.Namespace) -> int:
    from furnace_cli.ladder import run_ladder_command

    return run_ladder_command(args, _options(args.options), _progress_bar)


def _cmd_review(args: argparse.Namespace) -> int:
    from furnace_cli.review import run_review_command

    return run_review_command(args, _progress_bar)


def _cmd_selfplay(args: argparse.Namespace) -> int:
    from furnace_cli.selfplay import run_selfplay_command

    return run_selfplay_command(args, _options(args.options), _progress_bar)


def _cmd_check_kernel(args: argparse.Namespace) -> int:
    from checks.kernel import check_kernel
    from checks.kernel_fields import FIELD_GAMES, check_kernel_fields
    from engine import registry

    game = registry.get_game(args.game)
    progress = None if args.quiet else _progress_bar(f"check-kernel {game.info.name}")
    option_values = {}
    for text in args.option or ():
        option, _, values = text.partition("=")
        option_values[option] = values.split(",")
    report = check_kernel(game, args.games, args.seed, progress=progress, players=args.players,
                          option_values=option_values, workers=args.workers,
                          cluster=args.cluster)
    fields_ok = True
    if args.games:
        fields = check_kernel_fields(game, games=FIELD_GAMES, seed=args.seed)
        report["fields"] = fields.summary()
        fields_ok = not fields.losses and not fields.uncovered
    print(json.dumps(report))
    return 0 if report["mismatches"] == 0 and fields_ok else 1


def _cmd_check_search(args: argparse.Namespace) -> int:
    from checks.search import check_search
    from engine import registry

    game = registry.get_game(args.game)
    progress = None if args.quiet else _progress_bar(f"check-search {game.info.name}")
    report = check_search(game, args.positions, args.seed, iterations=args.iterations,
                          players=args.players, progress=progress)
    print(json.dumps(report))
    return 0 if report["mismatches"] == 0 else 1


def _cmd_check_games(args: argparse.Namespace) -> int:
    from engine import registry
    from furnace_cli.checkgames import check_games

    name = registry.get_game(args.game).info.name
    progress = None if args.quiet else _progress_bar(f"check-games {name}")
    report = check_games(name, args.players, args.games, args.seed, _options(args.options),
                         workers=args.workers, progress=progress, cluster=args.cluster)
    print(json.dumps(report))
    return 0 if report["problems"] == 0 and report["unfinished"] == 0 else 1


def _cmd_fuzz_states(args: argparse.Namespace) -> int:
    from engine import registry
    from fuzzers.states import fuzz

    name = registry.get_game(args.game).info.name
    progress = None if args.quiet else _progress_bar(f"fuzz-states {name}")
    report = fuzz(name, args.states, args.seed, players=args.players, workers=args.workers,
                  progress=progress, cluster=args.cluster)
    print(json.dumps(report))
    return 0 if report["problems"] == 0 else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from engine import registry
    from furnace_cli.bench import run_bench

    report = run_bench(registry.get_game(args.game), seconds=args.seconds,
                       players=args.players, mcts_iterations=args.mcts_iterations,
                       log=None if args.json else print)
    print(json.dumps(report) if args.json else
          "\n".join(f"{key}: {value}" for key, value in report.items()))
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    if args.server:
        from furnace_cli.play import game_seed

        if args.load:
            raise FurnaceError("--load resumes a game here, not on a server: drop --server "
                               "to play a saved game on")

        args.seed, dealt = game_seed(args.seed)
        if dealt:
            print(dealt)
        from clients.cli import connection_kwargs
        from clients.play import play_remote

        return play_remote(args.server, args.game, args.players, args.seat, args.seed,
                           args.iterations, connection=connection_kwargs(args))
    from furnace_cli.play import play_local

    return play_local(args)



def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="furnace", description="Search-based AI opponents for modern board games.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their player counts")
    p.set_defaults(func=_cmd_games)

    p = sub.add_parser(
        "schema", help="print the JSON Schema of a game's JSON state",
        description="Print the JSON Schema (draft 2020-12) of GAME's JSON state, the one a "
                    "server serves in ListGames and at GET /schemas/GAME.json (reference: "
                    "docs/states/).")
    p.add_argument("game")
    p.add_argument("--compact", action="store_true",
                   help="one line, sorted keys: the text the server sends")
    p.set_defaults(func=_cmd_schema)

    p = sub.add_parser(
        "play", help="play against bots in the terminal",
        description="Play GAME against bots in the terminal, here or on a Furnace server.",
        epilog=SEAT_CONVENTION)
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seat", type=int, default=0,
                   help="your seat, 0-based as everywhere: 0 is P1, the first player "
                   "(default 0)")
    p.add_argument("--bots", default="mcts:2000", help="bot spec(s) for the other seats")
    p.add_argument("--iterations", type=int, default=None,
                   help="search budget of hints (default: the game's hint budget, whatever "
                   "the bots search: docs/api.md, 'Hints and reviews') and of the bots with "
                   "--server (default 2000)")
    p.add_argument("--seed", type=int, default=None,
                   help="deal this game (default: a fresh one, its seed printed so that "
                   "--seed deals it again)")
    p.add_argument("--options", help="game options, e.g. powers=false")
    p.add_argument("--load", help="resume a game saved with 'save FILE' (a game record; "
                   "a position saved before records loads too)")
    p.add_argument("--server", help="play against a remote Furnace server HOST:PORT")
    p.set_defaults(func=_cmd_play)
    play = p

    p = sub.add_parser(
        "selfplay", help="let bots play each other and print the games",
        description="Play GAMES games of GAME between bot specs and print each (game g "
        "dealt from seed SEED + g - 1).  With --workers or --cluster the games run in "
        "parallel; they are printed and saved in game order all the same, so the output "
        "is the same as in one process.")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--bots", default="mcts:500", help="comma-separated specs, cycled over seats")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (shown for several games when stdout is not a "
                   "terminal)")
    _add_cluster_argument(p)
    p.add_argument("--options")
    p.add_argument("--json", action="store_true", help="one JSON line per game")
    p.add_argument("--save", metavar="FILE",
                   help="write each game as a game record, one JSON object per line (JSON "
                   "lines): its game, num_players, options, seed and every move's id and "
                   "text; `furnace play --load` resumes one saved alone, and the API takes it "
                   "as GameState.record (docs/api.md, Game records)")
    p.set_defaults(func=_cmd_selfplay)

    p = sub.add_parser(
        "review", help="judge every decision of a saved game: played move, best move, loss",
        description="Review a saved game: each decision of the seat (every seat by default) "
        "with more than one legal move is searched from what that seat could see then; the "
        "move played is compared with the search's best and labelled best, good, "
        "inaccuracy, mistake or blunder by the game's thresholds (docs/review.md).",
        epilog=SEAT_CONVENTION)
    p.add_argument("file", help="a game record: `furnace play`'s save, or `furnace selfplay "
                   "--save` (one record a line)")
    p.add_argument("--record", type=int, default=1,
                   help="which record of a file of several (1-based, default 1)")
    p.add_argument("--seat", type=int, help="the seat to review (default: every seat)")
    p.add_argument("--budget", type=int, metavar="ITERATIONS",
                   help="iterations a search (default: the game's review budget)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true",
                   help='print only one JSON line: {"turns": [...], "summary": [...], ...}')
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw the win probability and the expected margin over the game, "
                   "inaccuracies, mistakes and blunders marked")
    p.add_argument("--at", type=int, metavar="N",
                   help="review only move N of the record (the table's move number): its "
                   "position as the mover saw it, the move played, the best move and the "
                   "loss")
    p.add_argument("--key-moments", action="store_true",
                   help="after the table, each key moment (mistakes, blunders, the largest "
                   "swings of the forecast) with its position, in the game's order")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_review)

    p = sub.add_parser(
        "arena", help="measure bots against each other over many games",
        description="Play GAMES games of GAME between bot specs, rotating them over the "
        "seats, and report each spec's wins, mean score and wins by seat.")
    p.add_argument("game", help="the game (see 'furnace games')")
    p.add_argument("--players", type=int, default=2,
                   help="players per game (default %(default)s)")
    p.add_argument("--bots", required=True,
                   help="comma-separated bot specs, e.g. mcts:2000,greedy,random "
                   "(a spec may repeat)")
    p.add_argument("--games", type=int, default=100,
                   help="games to play (default %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the deals and the bots: the same seed plays the same "
                   "games (default %(default)s)")
    p.add_argument("--options", help="game options NAME=VALUE, comma-separated, e.g. "
                   "powers=false")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    p.add_argument("--json", action="store_true", help="end with one JSON line")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_cluster_argument(p)
    p.set_defaults(func=_cmd_arena)

    p = sub.add_parser(
        "fit-value", help="fit a learned leaf value to self-play games",
        description="Play GAMES seeded self-play games of GAME between bot specs, record "
        "each seat's features along them, fit a ridge regression of the final margin on "
        "them, report held-out correlation and winner accuracy by stage beside the "
        "heuristic's, the scores' and a random playout's, and write the model file "
        "(docs/learned-values.md).")
    p.add_argument("game", help="the game (see 'furnace games')")
    p.add_argument("--players", type=int, default=2,
                   help="players per game (default %(default)s)")
    p.add_argument("--bots", required=True,
                   help="comma-separated bot specs, rotated over the seats, e.g. level:1")
    p.add_argument("--games", type=int, default=160,
                   help="games to play, a fifth held out (default %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of everything: the same seed writes the same model "
                   "(default %(default)s)")
    p.add_argument("--every", type=int, default=4,
                   help="sample every EVERY-th decision of a game (default %(default)s)")
    p.add_argument("--alpha", type=float, default=1.0,
                   help="ridge penalty on unit-spread features (default %(default)s)")
    p.add_argument("--out", required=True, help="the model file to write (JSON)")
    p.add_argument("--options", help="game options NAME=VALUE, comma-separated")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    _add_cluster_argument(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON line")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_fit_value)

    p = sub.add_parser(
        "fit-prior", help="fit a learned move prior to self-play searches",
        description="Play GAMES seeded self-play games of GAME between search bot specs, "
        "record the root visit counts of each sampled decision's search and the features "
        "of the position each legal move leads to, fit a softmax regression of the visits "
        "on them, report held-out top-1, top-3 and cross-entropy by stage, and write the "
        "move prior file (docs/learned-values.md).")
    p.add_argument("game", help="the game (see 'furnace games')")
    p.add_argument("--players", type=int, default=2,
                   help="players per game (default %(default)s)")
    p.add_argument("--bots", default="mcts:2000",
                   help="comma-separated search bot specs, rotated over the seats "
                   "(default %(default)s)")
    p.add_argument("--games", type=int, default=200,
                   help="games to play, a fifth held out (default %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of everything: the same seed writes the same model "
                   "(default %(default)s)")
    p.add_argument("--every", type=int, default=1,
                   help="sample every EVERY-th decision of a game (default %(default)s)")
    p.add_argument("--teacher", metavar="SPEC",
                   help="fit the visit counts of this search bot's search of each sampled "
                   "position (a stronger search than the players', e.g. mcts:20000), not "
                   "the players' own")
    p.add_argument("--alpha", type=float, default=0.01,
                   help="ridge penalty on unit-spread features (default %(default)s)")
    p.add_argument("--out", required=True, help="the move prior file to write (JSON)")
    p.add_argument("--save-records", metavar="PATH",
                   help="also write the sampled decisions (JSON lines, one game a line)")
    p.add_argument("--records", metavar="PATH",
                   help="fit on decisions saved by --save-records instead of playing "
                   "(GAMES, SEED and the bots must be those of the run that saved them)")
    p.add_argument("--options", help="game options NAME=VALUE, comma-separated")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    _add_cluster_argument(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON line")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_fit_prior)

    p = sub.add_parser(
        "prior-loop", help="the self-play loop of learned move priors: generate, fit, gate",
        description="Run ROUNDS rounds of the loop in DIR: self-play games of the best "
        "search so far, a move prior fitted on every round's records, an equal-time arena "
        "of the candidate against the best, kept when it wins at least --keep-rate "
        "(docs/learned-values.md).  Each round is written when it finishes; started again "
        "on the same DIR, the loop goes on after the last finished round.")
    p.add_argument("game", help="the game (see 'furnace games')")
    p.add_argument("--players", type=int, default=2,
                   help="players per game (default %(default)s)")
    p.add_argument("--rounds", type=int, default=1, help="rounds to run (default %(default)s)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the loop's directory: records, candidates, best.json, loop.json")
    p.add_argument("--games", type=int, default=100,
                   help="self-play games a round (default %(default)s)")
    p.add_argument("--iterations", type=int, default=2000,
                   help="iterations of each self-play search (default %(default)s)")
    p.add_argument("--arena-games", type=int, default=100,
                   help="games of each round's gate (default %(default)s)")
    p.add_argument("--seconds", type=float, default=0.1,
                   help="seconds a move in the gate (default %(default)s)")
    p.add_argument("--weight", type=float, default=6.0,
                   help="the move prior's weight in the searches (default %(default)s)")
    p.add_argument("--keep-rate", type=float, default=0.55,
                   help="the gate's win rate that keeps a candidate (default %(default)s)")
    p.add_argument("--teacher-iterations", type=int, metavar="N",
                   help="fit the visits of the best search at N iterations at each sampled "
                   "decision (a teacher stronger than the self-play players), not the "
                   "players' own")
    p.add_argument("--seed", type=int, default=0, help="seed of the loop (default %(default)s)")
    p.add_argument("--options", help="game options NAME=VALUE, comma-separated")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    _add_cluster_argument(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_prior_loop)

    p = sub.add_parser(
        "calibration", help="measure (or fit) a game's win probabilities and expected scores",
        description="Play held-out self-play games of GAME between level-L bots, record at "
        "every EVERY-th decision the forecasts the service would answer (BestMove's from the "
        "level's search, EstimateScores' from random playouts), and report their Brier "
        "score, expected calibration error (10 bins) with a reliability table, calibration "
        "slope, and the mean absolute error and bias of expected final scores by stage, "
        "beside the raw statistics and a constant forecast (docs/forecasts.md).  With --fit, "
        "first fit the forecast model on other games (--fit-seed) and write it.")
    p.add_argument("game", help="the game (see 'furnace games')")
    p.add_argument("--players", type=int, default=2,
                   help="players per game (default %(default)s)")
    p.add_argument("--games", type=int, default=200,
                   help="held-out games to play (default %(default)s)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the held-out games (default %(default)s)")
    p.add_argument("--level", type=int, default=4,
                   help="the bots' level, whose search the forecasts read (default "
                   "%(default)s)")
    p.add_argument("--every", type=int, default=5,
                   help="sample every EVERY-th decision of a game (default %(default)s)")
    p.add_argument("--fit", action="store_true",
                   help="fit the model on --fit-games games of --fit-seed first, and write it")
    p.add_argument("--fit-games", type=int, action="append", metavar="F",
                   help="games to fit on (default 200); repeated, the games of each "
                   "--fit-seed in turn")
    p.add_argument("--fit-seed", type=int, action="append", metavar="T",
                   help="seed of the fitting games (default 1000); repeat it to fit on "
                   "the games of several seeds")
    p.add_argument("--with-playouts", action="store_true",
                   help="with --fit: BestMove's forecast also reads the position's random "
                   "playouts (EstimateScores' means: 200 playouts before each search), for "
                   "a game whose search describes the end of a game worse than they do")
    p.add_argument("--out", help="with --fit: the model file to update (default: the "
                   "game package's forecast-model.json)")
    p.add_argument("--save-records", metavar="FILE",
                   help="keep the held-out games' records in FILE, and read them from it "
                   "when it holds the same games")
    p.add_argument("--save-fit-records", metavar="FILE", action="append",
                   help="the same for the fitting games (one FILE per --fit-seed)")
    p.add_argument("--options", help="game options NAME=VALUE, comma-separated")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    _add_cluster_argument(p)
    p.add_argument("--plot", metavar="FILE.png", help="draw the reliability diagram "
                   "(needs matplotlib)")
    p.add_argument("--json", action="store_true",
                   help="print the report as one JSON line")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_calibration)

    p = sub.add_parser(
        "ladder", help="rate bots by a round robin: Elo with 95%% intervals",
        description="Play every pair of bot specs GAMES games (seats alternated, each "
        "deal played twice) and fit Elo ratings; writes ladder.json, ladder.md, ladder.png "
        "and the games (games.jsonl, for --resume) to --out.  See docs/strength.md.")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2, help="2: a ladder is head to head")
    p.add_argument("--bots", required=True,
                   help="comma-separated distinct specs: random,greedy,mcts:200,mcts:1000")
    p.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--options")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    p.add_argument("--anchor", help="the spec rated 0 (default: random if it plays, "
                   "else the first spec)")
    p.add_argument("--out", help="output directory (default: ladder-GAME in "
                   "$XDG_DATA_HOME/furnace, else ~/.local/share/furnace)")
    p.add_argument("--resume", action="store_true",
                   help="continue the ladder recorded in --out: play only the missing games")
    p.add_argument("--json", action="store_true", help="end with one JSON line")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_cluster_argument(p)
    p.set_defaults(func=_cmd_ladder)

    p = sub.add_parser("bench", help="measure engine, kernel and search speed")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.0,
                   help="time each side of a comparison gets, in short repetitions taken "
                        "in turns with the other sides")
    p.add_argument("--mcts-iterations", type=int, default=3000,
                   help="most iterations of one search repetition")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser(
        "check-kernel", help="prove the compiled kernel agrees with the rules",
        description="Play seeded random games on the reference rules and on the kernel side "
                    "by side, compare them after every move, and prove the kernel's state "
                    "copies carry every field of the game's state description (\"fields\" in "
                    "the report: each comes back in at least two values).")
    p.add_argument("game")
    p.add_argument("--games", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, action="append",
                   help="a player count to check (repeatable; default: every count the "
                        "kernel plays)")
    p.add_argument("--option", action="append", metavar="NAME=V1,V2",
                   help="an option's values, taken in turn game after game (repeatable)")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    p.add_argument("--quiet", action="store_true")
    _add_cluster_argument(p)
    p.set_defaults(func=_cmd_check_kernel)

    p = sub.add_parser("check-search",
                       help="prove the compiled search trees answer as the Python trees")
    p.add_argument("game")
    p.add_argument("--positions", type=int, default=200,
                   help="seeded positions searched by both trees (default 200)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--iterations", type=int, default=300,
                   help="iterations of each search (default 300)")
    p.add_argument("--players", type=int, default=None,
                   help="only this player count (default: every count in turn)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_cmd_check_search)

    p = sub.add_parser("check-games",
                       help="play random games, checking the protocol after every move")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--options", help="game options, e.g. powers=false")
    p.add_argument("--workers", type=int, default=1, help="games in parallel processes")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_cluster_argument(p)
    p.set_defaults(func=_cmd_check_games)

    p = sub.add_parser(
        "fuzz-states",
        help="mutate saved states: the loader must reject them or the engine play them safely")
    p.add_argument("game")
    p.add_argument("--states", type=int, default=1000, help="mutated states to check")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, help="mutate states of this player count only")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes (a crash in one is reported, not fatal); "
                        "0: check in this process")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_cluster_argument(p)
    p.set_defaults(func=_cmd_fuzz_states)

    # The server's and the clients' commands, and the connection flags of
    # `play --server` (a hosted server: TLS, tokens).
    from ai_server import cli as server_cli
    from clients import cli as client_cli
    from fuzzers import server as server_fuzz
    from load import cli as loadtest_cli
    from load import fairness

    server_cli.add_commands(sub)
    server_fuzz.add_command(sub)
    loadtest_cli.add_command(sub)
    fairness.add_command(sub)
    client_cli.add_commands(sub)
    client_cli.add_connection_arguments(play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "cluster", None):
            # Before any work, and before Ray starts: a malformed address, a bad timeout,
            # or no Ray (say how to install it).
            parse_cluster_address(args.cluster)
            connect_timeout()
            import_ray()
        return int(args.func(args) or 0)
    except FurnaceError as exc:
        print(f"furnace: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nfurnace: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0

