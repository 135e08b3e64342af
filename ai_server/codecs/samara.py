"""Samara's typed state: ``furnace.v1.SamaraState`` <-> the game's JSON state (version 1).

The codec only moves fields; it checks nothing.  Unset enums become ``None`` and
the game's own ``state_from_json`` rejects them with a message naming the field.
"""

from __future__ import annotations

from typing import Any

from furnace_proto.furnace.v1 import furnace_pb2 as pb

GAME = "samara"
#: The ``GameState`` oneof field holding a Samara state.
FIELD = "samara"

_TOOL_KEYS = (("saw", "saw"), ("compass", "compass"), ("square", "square"),
              ("glass-a", "glass_a"), ("glass-b", "glass_b"))
_GENDER_TO_JSON = {pb.SAMARA_GENDER_MAN: "man", pb.SAMARA_GENDER_WOMAN: "woman"}
_GENDER_FROM_JSON = {v: k for k, v in _GENDER_TO_JSON.items()}
_KIND_TO_JSON = {
    pb.SAMARA_DECISION_KIND_GIVE: "give",
    pb.SAMARA_DECISION_KIND_WEAKEN: "weaken",
    pb.SAMARA_DECISION_KIND_BURY: "bury",
    pb.SAMARA_DECISION_KIND_IMPRISON: "imprison",
}
_KIND_FROM_JSON = {v: k for k, v in _KIND_TO_JSON.items()}
_ONLY_TO_JSON = {
    pb.SAMARA_TOOL_FILTER_UNSPECIFIED: "any",
    pb.SAMARA_TOOL_FILTER_SAW: "saw",
    pb.SAMARA_TOOL_FILTER_TROWEL: "trowel",
    pb.SAMARA_TOOL_FILTER_GLASS: "glass",
}
_ONLY_FROM_JSON = {v: k for k, v in _ONLY_TO_JSON.items()}


def typed_path(path: str) -> str:
    """The ``SamaraState`` field path of a path in the JSON state (``tools.glass-a``
    is ``tools.glass_a``; every other field has the same name)."""
    return path.replace("glass-a", "glass_a").replace("glass-b", "glass_b")


def _tools_to_json(tools: pb.SamaraTools) -> dict[str, int]:
    return {key: int(getattr(tools, attr)) for key, attr in _TOOL_KEYS}


def _tools_from_json(data: dict[str, Any]) -> pb.SamaraTools:
    return pb.SamaraTools(**{attr: int(data[key]) for key, attr in _TOOL_KEYS})


def to_json(message: pb.SamaraState) -> dict[str, Any]:
    """The game's JSON state described by ``message``."""
    data: dict[str, Any] = {
        "game": GAME,
        "version": message.version,
        "num_players": message.num_players,
        "month": message.month,
        "spots": [
            {
                "spot": spot.spot,
                "tile": spot.tile if spot.HasField("tile") else None,
                "tools": _tools_to_json(spot.tools),
            }
            for spot in message.spots
        ],
        "unused_tiles": list(message.unused_tiles),
        "track": [
            {
                "month": entry.month,
                "workers": [
                    {
                        "owner": w.owner,
                        "gender": _GENDER_TO_JSON.get(w.gender),
                        "men": w.men,
                        "women": w.women,
                    }
                    for w in entry.workers
                ],
            }
            for entry in message.track
        ],
        "foremen": [
            {
                "tools": _tools_to_json(f.tools),
                "pawns": {"men": f.pawns.men, "women": f.pawns.women},
                "buildings": list(f.buildings),
                "powers": list(f.powers),
            }
            for f in message.foremen
        ],
        "pending": [],
    }
    if message.HasField("options"):
        options: dict[str, Any] = {}
        if message.options.HasField("powers"):
            options["powers"] = message.options.powers
        data["options"] = options
    for d in message.pending:
        entry: dict[str, Any] = {
            "kind": _KIND_TO_JSON.get(d.kind),
            "player": d.player,
            "target": d.target,
            "spot": d.spot if d.HasField("spot") else None,
            "only": _ONLY_TO_JSON.get(d.only, d.only),
        }
        if d.count:
            entry["count"] = d.count
        data["pending"].append(entry)
    return data


def from_json(data: dict[str, Any]) -> pb.SamaraState:
    """The typed message of a (valid) Samara JSON state, as ``State.to_json()`` makes it."""
    message = pb.SamaraState(
        version=int(data["version"]),
        num_players=int(data["num_players"]),
        month=int(data["month"]),
        unused_tiles=list(data.get("unused_tiles") or []),
    )
    options = data.get("options") or {}
    message.options.SetInParent()
    if "powers" in options:
        message.options.powers = bool(options["powers"])
    for spot in data["spots"]:
        entry = message.spots.add(spot=spot["spot"], tools=_tools_from_json(spot["tools"]))
        if spot.get("tile") is not None:
            entry.tile = spot["tile"]
    for month in data["track"]:
        track = message.track.add(month=int(month["month"]))
        for w in month["workers"]:
            track.workers.add(owner=int(w["owner"]), gender=_GENDER_FROM_JSON[w["gender"]],
                              men=int(w["men"]), women=int(w["women"]))
    for f in data["foremen"]:
        message.foremen.add(
            tools=_tools_from_json(f["tools"]),
            pawns=pb.SamaraPawns(men=int(f["pawns"]["men"]), women=int(f["pawns"]["women"])),
            buildings=list(f.get("buildings") or []),
            powers=list(f.get("powers") or []),
        )
    for d in data.get("pending") or []:
        decision = message.pending.add(
            kind=_KIND_FROM_JSON[d["kind"]],
            player=int(d["player"]),
            target=int(d["target"]),
            count=int(d.get("count", 1)),
            only=_ONLY_FROM_JSON[d.get("only", "any")],
        )
        if d.get("spot") is not None:
            decision.spot = d["spot"]
    return message
