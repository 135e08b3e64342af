"""Text drawing of a Samara position for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.samara.catalogue import TOOL_NAMES
from engine.wording import count

if TYPE_CHECKING:
    from engine.samara.state import SamaraState

#: Tools counted in the plural ("2 saws"); the glass tools are named by their kind.
TOOL_PLURALS = {"saw": "saws", "compass": "compasses", "square": "squares",
                "glass-a": "glass-a", "glass-b": "glass-b"}

TOOL_LETTERS = ("S", "C", "Q", "A", "B")  # saw, compass, square, glass-a, glass-b


def _tools_text(counts: list[int]) -> str:
    return "".join(letter * n for letter, n in zip(TOOL_LETTERS, counts, strict=True))


def render_state(state: SamaraState) -> str:
    cat = state.catalogue
    lines = [f"Samara, {count(state.num_players, 'player')}, NOW = {state.month_name(state.month)} "
             f"(track ends {state.month_name(state.track_end())}); "
             f"tools: S=saw C=trowel-compass Q=trowel-square A/B=glass"]
    width = 14
    header = "     " + "".join(f"{'col ' + str(c) + ' (' + str(c) + 'm)':<{width}}"
                               for c in range(1, cat.columns + 1))
    lines.append(header)
    for row in range(cat.rows, 0, -1):
        cells = []
        for col in range(1, cat.columns + 1):
            text = ""
            for si, spot in enumerate(cat.spots):
                if (spot.row, spot.col) == (row, col):
                    tile = state.spot_tile[si]
                    if tile is None:
                        text = "--"
                    else:
                        t = cat.tiles[tile]
                        text = f"{t.name[:6]}{t.prestige}"
                    tools = _tools_text(state.spot_tools[si])
                    if tools:
                        text += f"[{tools}]"
            cells.append(f"{text:<{width}}")
        lines.append(f"str{row} " + "".join(cells))
    lines.append("tiles: name+prestige, needs saws/trowels/glass:")
    needs = []
    for si, spot in enumerate(cat.spots):
        tile = state.spot_tile[si]
        if tile is not None:
            t = cat.tiles[tile]
            power = f" *{t.power}" if state.powers and t.power else ""
            needs.append(f"{spot.label} {t.name} {t.prestige}p {t.saws}/{t.trowels}/{t.glass}{power}")
    for k in range(0, len(needs), 3):
        lines.append("  " + " | ".join(needs[k:k + 3]))
    lines.append("time track (nearest the board first):")
    for month in sorted(state.track):
        workers = " ".join(
            f"P{w.owner + 1}{'W' if w.female else 'M'}{w.strength}" for w in state.track[month]
        )
        marker = "NOW " if month == state.month else "    "
        lines.append(f"  {marker}{state.month_name(month)} (+{month - state.month}): {workers}")
    groups = _groups_line(state)
    if groups:
        lines.append(groups)
    scores = state.scores()
    for seat, f in enumerate(state.foremen):
        tools = ", ".join(count(n, name, TOOL_PLURALS[name])
                          for name, n in zip(TOOL_NAMES, f.tools, strict=True) if n)
        powers = f"; powers: {', '.join(f.powers)}" if f.powers else ""
        lines.append(f"P{seat + 1}: {scores[seat]:.0f} prestige, "
                     f"{count(len(f.buildings), 'building')}; tools: {tools or 'none'}; "
                     f"pawns on board: {count(f.pawn_men, 'man', 'men')}, "
                     f"{count(f.pawn_women, 'woman', 'women')}{powers}")
    lines += KEY
    return "\n".join(lines)


def _groups_line(state: SamaraState) -> str:
    """What the numbers of a move's worker group (``tool saw r2c2 1+2``) stand for: each
    seat's workers this month, numbered as the moves number them (nearest the board
    first), with what each is; a group of several is one worker of their strengths."""
    seats = []
    for seat in range(state.num_players):
        own = [w for w in state.track.get(state.month, ()) if w.owner == seat]
        if own:
            named = ", ".join(f"{k} = {'woman' if w.female else 'man'} of strength "
                              f"{w.strength}" for k, w in enumerate(own, 1))
            seats.append(f"P{seat + 1}: {named}")
    return "  workers this month, as moves number them: " + "; ".join(seats) if seats else ""


#: Every symbol the board uses, explained at its foot.
KEY = ("key: strN = street row N, col C (Cm) = column C, its workers' months; NAME6[TOOLS] "
       "= a tile (name cut to 6 letters, prestige) and the tools on its spot (S C Q A B as "
       "in the first line); -- = an empty spot (its tile taken)",
       "key: tiles: rRcC = row R column C; Np = prestige; a/b/c = saws/trowels/glass "
       "needed; *POWER = the power building it gives",
       "key: time track P1W2 = P1's woman of strength 2 (M = man); NOW = this month, "
       "(+N) = N months ahead",
       "key: moves: tool/build SPOT 1+2 = the mover's workers 1 and 2 of this month (the "
       "'workers this month' line), sent together: their strengths add; train N = worker "
       "N is the one the Weight Room trains")
