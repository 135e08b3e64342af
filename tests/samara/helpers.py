"""Building blocks for Samara rule tests: positions set up by hand."""

from __future__ import annotations

from engine.samara import GAME
from engine.samara.catalogue import TOOL_NAMES
from engine.samara.state import SamaraState, Worker


def fresh(num_players: int = 2, seed: int = 0, powers: bool = True) -> SamaraState:
    return GAME.new_game(seed, num_players, {"powers": powers})


def spot(state: SamaraState, label: str) -> int:
    return state.catalogue.spot_index(label)


def put_tile(state: SamaraState, tile_id: str, label: str) -> None:
    """Move tile ``tile_id`` to spot ``label`` (swapping with whatever was there)."""
    tile = state.catalogue.tile_index(tile_id)
    target = spot(state, label)
    for si, t in enumerate(state.spot_tile):
        if t == tile:
            state.spot_tile[si] = state.spot_tile[target]
            break
    else:
        state.unused_tiles.remove(tile)
        if state.spot_tile[target] is not None:
            state.unused_tiles.append(state.spot_tile[target])
    state.spot_tile[target] = tile


def clear_tools(state: SamaraState) -> None:
    for tools in state.spot_tools:
        tools[:] = [0] * 5


def set_spot_tools(state: SamaraState, label: str, **counts: int) -> None:
    tools = state.spot_tools[spot(state, label)]
    for name, n in counts.items():
        tools[TOOL_NAMES.index(name.replace("_", "-"))] = n


def set_tools(state: SamaraState, seat: int, **counts: int) -> None:
    tools = state.foremen[seat].tools
    for name, n in counts.items():
        tools[TOOL_NAMES.index(name.replace("_", "-"))] = n


def set_track(state: SamaraState, month: int, layout: dict[int, list[str]]) -> None:
    """Workers written as 'P1W1' (seat 1, woman, strength 1) or 'P2M2', nearest first.

    Pawns on the Foreman boards are adjusted so each player keeps 3 men and 2 women.
    """
    state.month = month
    state.track = {}
    used = [[0, 0] for _ in state.foremen]
    for m, workers in layout.items():
        state.track[m] = []
        for code in workers:
            seat = int(code[1]) - 1
            female = code[2] == "W"
            strength = int(code[3])
            worker = Worker(seat, female, 0 if female else strength, strength if female else 0)
            state.track[m].append(worker)
            used[seat][0] += worker.men
            used[seat][1] += worker.women
    for seat, foreman in enumerate(state.foremen):
        foreman.pawn_men = max(0, 3 - used[seat][0])
        foreman.pawn_women = max(0, 2 - used[seat][1])


def track_codes(state: SamaraState) -> dict[int, list[str]]:
    return {m: [f"P{w.owner + 1}{'W' if w.female else 'M'}{w.strength}" for w in ws]
            for m, ws in sorted(state.track.items())}


def texts(state: SamaraState) -> list[str]:
    return state.legal_moves_text()


def non_build(state: SamaraState) -> list[str]:
    """Legal moves other than buildings (the random layout may offer tool-free tiles)."""
    return [t for t in state.legal_moves_text() if not t.startswith("build")]
