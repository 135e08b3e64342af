"""Oh My Goods!'s typed state: ``furnace.v1.OhMyGoodsState`` <-> the game's JSON (version 1).

The codec only moves fields; it checks nothing.  Unset enums become ``None`` and
the game's own ``state_from_json`` rejects them with a message naming the field.
The message carries the whole state; ``GameState.observer_seat`` says whom an
answer is for, and answers never use what that seat cannot see (see the .proto).
``shown_goods`` (goods a chain showed face up) and ``reshuffled`` (the public
cards of the last reshuffle) are part of it: they tell every seat's
``determinize`` what it may not resample.
"""

from __future__ import annotations

import re
from typing import Any

from furnace_proto.furnace.v1 import furnace_pb2 as pb

GAME = "oh-my-goods"
#: The ``GameState`` oneof field holding an Oh My Goods! state.
FIELD = "oh_my_goods"

_PHASE_TO_JSON = {
    pb.OH_MY_GOODS_PHASE_REDRAW: "redraw",
    pb.OH_MY_GOODS_PHASE_SHIFT: "shift",
    pb.OH_MY_GOODS_PHASE_CHOOSE: "choose",
    pb.OH_MY_GOODS_PHASE_ACT: "act",
    pb.OH_MY_GOODS_PHASE_OVER: "over",
}
_PHASE_FROM_JSON = {v: k for k, v in _PHASE_TO_JSON.items()}
_STEP_TO_JSON = {
    pb.OH_MY_GOODS_STEP_RUN: "run",
    pb.OH_MY_GOODS_STEP_SUPPLY: "supply",
    pb.OH_MY_GOODS_STEP_CHAIN: "chain",
    pb.OH_MY_GOODS_STEP_BUILD: "build",
    pb.OH_MY_GOODS_STEP_HIRE: "hire",
    pb.OH_MY_GOODS_STEP_PLACE: "place",
}
_STEP_FROM_JSON = {v: k for k, v in _STEP_TO_JSON.items()}
_MODE_TO_JSON = {
    pb.OH_MY_GOODS_WORK_MODE_ORDERLY: "orderly",
    pb.OH_MY_GOODS_WORK_MODE_SLOPPY: "sloppy",
}
_MODE_FROM_JSON = {v: k for k, v in _MODE_TO_JSON.items()}
_PURPOSE_TO_JSON = {
    pb.OH_MY_GOODS_PAY_PURPOSE_SHIFT: "shift",
    pb.OH_MY_GOODS_PAY_PURPOSE_BUILD: "build",
    pb.OH_MY_GOODS_PAY_PURPOSE_HIRE: "hire",
}
_PURPOSE_FROM_JSON = {v: k for k, v in _PURPOSE_TO_JSON.items()}


# A player's goods: a list of card lists in JSON, OhMyGoodsGoods { cards } typed.
_GOODS = re.compile(r"\.goods\[(\d+)\]\[")


def typed_path(path: str) -> str:
    """The ``OhMyGoodsState`` field path of a path in the JSON state (a player's
    ``goods[1][0]`` is ``goods[1].cards[0]``; every other field has the same name)."""
    return _GOODS.sub(r".goods[\1].cards[", path)


def _player_to_json(p: pb.OhMyGoodsPlayer) -> dict[str, Any]:
    return {
        "charburner": p.charburner,
        "worker": p.worker,
        "hand": list(p.hand),
        "buildings": list(p.buildings),
        "goods": [list(g.cards) for g in p.goods],
        "assistants": [{"assistant": a.assistant, "face": a.face, "slot": a.slot}
                       for a in p.assistants],
        "work": ({"slot": p.work.slot, "mode": _MODE_TO_JSON.get(p.work.mode)}
                 if p.HasField("work") else None),
        "plan": p.plan if p.HasField("plan") else None,
        "chosen": p.chosen,
    }


def _act_to_json(act: pb.OhMyGoodsAct) -> dict[str, Any]:
    pay = None
    if act.HasField("pay"):
        pay = {"due": act.pay.due, "paid": act.pay.paid, "last": act.pay.last,
               "purpose": _PURPOSE_TO_JSON.get(act.pay.purpose), "arg": act.pay.arg}
    return {
        "step": _STEP_TO_JSON.get(act.step),
        "handled": list(act.handled),
        "running": act.running,
        "need": list(act.need),
        "slack": act.slack,
        "produce_count": act.produce_count,
        "chain_slot": act.chain_slot,
        "hired": act.hired if act.HasField("hired") else None,
        "shifted": list(act.shifted),
        "pay": pay,
    }


def to_json(message: pb.OhMyGoodsState) -> dict[str, Any]:
    """The game's JSON state described by ``message``."""
    return {
        "game": GAME,
        "version": message.version,
        "num_players": message.num_players,
        "options": {"second_edition": message.options.second_edition},
        "rng": message.rng,
        "round": message.round,
        "active": message.active,
        "final_round": message.final_round if message.HasField("final_round") else None,
        "phase": _PHASE_TO_JSON.get(message.phase),
        "turn": message.turn,
        "deck": list(message.deck),
        "discard": list(message.discard),
        "display": list(message.display),
        "sunset_at": message.sunset_at,
        "pool": [{"assistant": a.assistant, "face": a.face} for a in message.pool],
        "starting_hands": list(message.starting_hands),
        "shown_goods": list(message.shown_goods),
        "reshuffled": list(message.reshuffled),
        "players": [_player_to_json(p) for p in message.players],
        "act": _act_to_json(message.act),
    }


def _player_from_json(data: dict[str, Any]) -> pb.OhMyGoodsPlayer:
    player = pb.OhMyGoodsPlayer(
        charburner=str(data["charburner"]),
        worker=str(data["worker"]),
        hand=list(data.get("hand") or []),
        buildings=list(data.get("buildings") or []),
        goods=[pb.OhMyGoodsGoods(cards=list(g)) for g in data.get("goods") or []],
        assistants=[pb.OhMyGoodsHiredAssistant(assistant=str(a["assistant"]),
                                               face=int(a["face"]), slot=int(a["slot"]))
                    for a in data.get("assistants") or []],
        chosen=int(data.get("chosen", 0)),
    )
    work = data.get("work")
    if work is not None:
        player.work.CopyFrom(pb.OhMyGoodsWork(slot=int(work["slot"]),
                                              mode=_MODE_FROM_JSON[work["mode"]]))
    if data.get("plan") is not None:
        player.plan = str(data["plan"])
    return player


def _act_from_json(data: dict[str, Any]) -> pb.OhMyGoodsAct:
    act = pb.OhMyGoodsAct(
        step=_STEP_FROM_JSON[data["step"]],
        handled=[int(v) for v in data.get("handled") or []],
        running=int(data.get("running", -1)),
        need=[int(v) for v in data["need"]],
        slack=int(data.get("slack", 0)),
        produce_count=int(data.get("produce_count", 0)),
        chain_slot=int(data.get("chain_slot", -1)),
        shifted=list(data.get("shifted") or []),
    )
    if data.get("hired") is not None:
        act.hired = str(data["hired"])
    pay = data.get("pay")
    if pay is not None:
        act.pay.CopyFrom(pb.OhMyGoodsPayment(
            due=int(pay["due"]), paid=int(pay["paid"]), last=int(pay["last"]),
            purpose=_PURPOSE_FROM_JSON[pay["purpose"]], arg=int(pay.get("arg", 0))))
    return act


def from_json(data: dict[str, Any]) -> pb.OhMyGoodsState:
    """The typed message of a (valid) Oh My Goods! JSON state, as ``to_json()`` makes it."""
    message = pb.OhMyGoodsState(
        version=int(data["version"]),
        num_players=int(data["num_players"]),
        options=pb.OhMyGoodsOptions(
            second_edition=bool((data.get("options") or {}).get("second_edition", False))),
        rng=str(data["rng"]),
        round=int(data["round"]),
        active=int(data["active"]),
        phase=_PHASE_FROM_JSON[data["phase"]],
        turn=int(data["turn"]),
        deck=list(data["deck"]),
        discard=list(data.get("discard") or []),
        display=list(data.get("display") or []),
        sunset_at=int(data["sunset_at"]),
        pool=[pb.OhMyGoodsPoolAssistant(assistant=str(a["assistant"]), face=int(a["face"]))
              for a in data.get("pool") or []],
        starting_hands=[int(v) for v in data.get("starting_hands") or []],
        shown_goods=[str(v) for v in data.get("shown_goods") or []],
        reshuffled=[str(v) for v in data.get("reshuffled") or []],
        players=[_player_from_json(p) for p in data["players"]],
        act=_act_from_json(data["act"]),
    )
    if data.get("final_round") is not None:
        message.final_round = int(data["final_round"])
    return message
