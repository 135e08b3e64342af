"""The solo game against the Automa (rulebook pp. 21-22, L1464-L1800).

The Automa is not a seat: it has no score and makes no choice of its own.  After
the player's turn (and the reset it may trigger) the ``automa`` procedure frame
runs its turn from the position's generator: it reveals the next card of its deck
(the revealed pile reshuffled into a new deck when the deck is empty, L1505-L1510)
and follows the card's upper section (:func:`automa_furnace`,
:func:`automa_factory`, :func:`automa_profession`), then the disk symbol
(L1629-L1632).  Where the rulebook lets the player decide for it, the decision is
the player's (seat 0): the activation of a row when it takes a cube from an upper
furnace (L1650-L1653, an ``activation`` frame) and which cubes it removes from a
small factory (L1693, a ``remove`` frame).

In every reset, supplying the small factories is the last step, after the contracts
are fulfilled (L1592), and the Automa supplies them first from its hidden bag of 21
cubes (:func:`automa_supply`, L1589-L1596, L1620-L1627).

The solo end: the reset whose army step reaches the difficulty's space (20/25/30)
is the final one (``state.final_reset``); after it the Automa (when the player
triggered it) and the player take their last turn, the player's being the last
(L1598-L1609).  Readings: docs/rules/stephens.md, "The solo game".

The flow (:mod:`engine.stephens.flow`) reaches all of this through one set of hooks,
:data:`SOLO`; the opponent cards' standing rules live in
:mod:`engine.stephens.opponents`, below the rules they change.

>>> from engine.stephens.rules import StephensGame
>>> state = StephensGame().new_game(seed=4, num_players=1)
>>> len(state.automa_deck), state.bag, state.furnaces, state.workers_of(AUTOMA)
(10, [7, 7, 7], [3, 3, 3, 3], 1)
>>> rank_name(state, 159), rank_name(state, 160), target_score(state)
('Artisan', 'Glassblower', 160)
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from engine.game import Event, InvalidOptionError
from engine.stephens.components import AutomaCard
from engine.stephens.displays import discard_pile, display, slide_and_refill, take_profession
from engine.stephens.frames import Frame
from engine.stephens.hooks import Handler, Hooks, nothing
from engine.stephens.moves import REMOVE, encode, pack, payload_of, unpack
from engine.stephens.opponents import closed_space
from engine.stephens.position import EMPTY, Position
from engine.stephens.randomness import below, shuffle
from engine.stephens.reset import SUPPLY_LAST, start_reset
from engine.stephens.scoring import scores
from engine.stephens.turn import activate_row
from engine.stephens.vocabulary import (
    AUTOMA,
    CONTRACTS,
    DIFFICULTIES,
    DIRECTIONS,
    FURNACES,
    INVESTMENTS,
    NOBODY,
    PLACES,
    SMALL_FACTORIES,
    WHITE,
    WOODEN_NAMES,
    place_below,
    place_of_furnace,
)
from engine.validation import short_repr
from engine.wording import count

#: Clockwise order around the Stephens' factory (FN-UL, FN-UR, FN-LR, FN-LL) and
#: around the small factories (SF-UL, SF-UR, SF-LR, SF-LL): the arrows' cycles.
FURNACE_CYCLE = tuple(FURNACES.index(n) for n in ("FN-UL", "FN-UR", "FN-LR", "FN-LL"))
FACTORY_CYCLE = tuple(SMALL_FACTORIES.index(n) for n in ("SF-UL", "SF-UR", "SF-LR", "SF-LL"))
#: Values of the ``opponent`` option: none, a card's id (``opponent-3``, or just its
#: number as a string) or random.
OPPONENT_WORDS = ("none", "opponent-1", "opponent-2", "opponent-3", "opponent-4", "opponent-5",
                  "random")
NO_OPPONENT, RANDOM_OPPONENT = -1, -2
#: Stages of the ``automa`` frame: reveal and act, then the disk symbol and the end.
ACT, FINISH = 0, 1


# -- options and setup ------------------------------------------------------------------------
def solo_options(num_players: int, options: dict[str, object]) -> tuple[int, int]:
    """(difficulty index, opponent index or NO_OPPONENT/RANDOM_OPPONENT) of the options."""
    difficulty, opponent = str(options["difficulty"]).lower(), str(options["opponent"]).lower()
    if difficulty not in DIFFICULTIES:
        raise InvalidOptionError(f"option 'difficulty' must be one of {', '.join(DIFFICULTIES)}, "
                                 f"got {short_repr(options['difficulty'])}")
    if opponent.isdigit():
        opponent = f"opponent-{opponent}"
    if opponent not in OPPONENT_WORDS:
        raise InvalidOptionError(f"option 'opponent' must be one of {', '.join(OPPONENT_WORDS)}, "
                                 f"got {short_repr(options['opponent'])}")
    if num_players != 1 and (difficulty != "normal" or opponent != "none"):
        raise InvalidOptionError("the options 'difficulty' and 'opponent' belong to the solo "
                                 "game (1 player)")
    code = {"none": NO_OPPONENT, "random": RANDOM_OPPONENT}.get(opponent)
    return DIFFICULTIES.index(difficulty), \
        OPPONENT_WORDS.index(opponent) - 1 if code is None else code


def setup_solo(state: Position, difficulty: int, opponent: int) -> None:
    """The Automa's setup and the opponent card (L1464-L1503, L1615-L1618, L1777-L1800);
    the board is laid out already, the player's starting profession attached."""
    cat = state.catalogue
    solo = cat.solo
    rng = state.rng
    state.difficulty = difficulty
    if opponent == RANDOM_OPPONENT:
        opponent = below(rng, len(solo.opponents))
    state.opponent = opponent
    state.furnaces = [f.solo_start_cubes for f in cat.furnaces]  # L1468
    state.automa_deck = list(range(len(solo.automa_cards)))
    shuffle(rng, state.automa_deck)
    state.bag = list(solo.bag)
    # A random starting profession on the opposite side, its master the 1st disk of the
    # worker supply card (L1498-L1503).
    mine = next(c for cards in state.places for c in cards)
    side = cat.professions[mine].side
    others = [c for c in state.box if cat.professions[c].side != side]
    card = others[below(rng, len(others))]
    state.box.remove(card)
    place = PLACES.index("FN-UR" if side == 0 else "FN-UL")
    state.places[place].append(card)
    state.master[card] = AUTOMA
    if opponent >= 0:
        apply_opponent_setup(state)


def apply_opponent_setup(state: Position) -> None:
    """The opponent card's setup effects (L1780-L1797); its rules during the game are
    read where they apply (:mod:`engine.stephens.opponents`, ``abilities``)."""
    cat = state.catalogue
    card = cat.solo.opponents[state.opponent]
    player = state.players[0]
    if card.effect == "tracks-lower":
        player.forest = max(0, player.forest - card.n)
        player.dune = max(0, player.dune - card.n)
    elif card.effect == "influence-disks-stacked":
        player.influence_stack = card.n
    elif card.effect == "ability-unavailable":
        player.lost_disk = card.ability
    elif card.effect == "no-cost-5-spaces":
        for pile in (CONTRACTS, INVESTMENTS):
            space = closed_space(state, pile)
            assert space is not None
            spaces = display(state, pile)
            if spaces[space] != EMPTY:
                deck = state.contract_deck if pile == CONTRACTS else state.investment_deck
                deck.append(spaces[space])
                spaces[space] = EMPTY


# -- ranks and targets --------------------------------------------------------------------------
def rank_of(state: Position, score: int) -> int:
    """0 Apprentice, 1 Artisan, 2 Glassblower at the game's difficulty (L1655-L1670)."""
    highest_apprentice, lowest_glassblower = state.catalogue.solo.difficulties[
        state.difficulty].ranks
    return 0 if score <= highest_apprentice else 2 if score >= lowest_glassblower else 1


def rank_name(state: Position, score: int) -> str:
    return state.catalogue.solo.rank_names[rank_of(state, score)]


def target_score(state: Position) -> int:
    """The score to aim for: the opponent card's target at the difficulty (100/130/160,
    L1672-L1674), else the Glassblower bar."""
    level = state.catalogue.solo.difficulties[state.difficulty]
    return level.opponent_target if state.opponent >= 0 else level.ranks[1]


def result(state: Position) -> str:
    """The solo result of the score as it stands: a rank, or against an opponent card
    "beat opponent-k" / "lost to opponent-k" (a score reaching the target wins)."""
    score = scores(state)[0]
    if state.opponent >= 0:
        name = state.catalogue.solo.opponents[state.opponent].id
        return f"beat {name}" if score >= target_score(state) else f"lost to {name}"
    return rank_name(state, score)


# -- the Automa's turn --------------------------------------------------------------------------
def supply_number(state: Position) -> int:
    """The highest number visible on the worker supply card: the one under the last
    disk taken (disks leave it in order; beyond the 10th the last number stays,
    docs/rules/stephens.md A-27h)."""
    numbers = state.catalogue.solo.worker_supply
    taken = state.workers_of(AUTOMA)
    return numbers[max(1, min(taken, len(numbers))) - 1]


def cycle(order: tuple[int, ...], start: int, direction: int) -> list[int]:
    """``order`` rotated to begin at ``start``, walked along ``direction``."""
    steps = order if DIRECTIONS[direction] == "cw" else order[:1] + order[:0:-1]
    k = steps.index(start)
    return list(steps[k:] + steps[:k])


def current_card(state: Position) -> AutomaCard:
    return state.catalogue.solo.automa_cards[state.automa_revealed[-1]]


def run_automa(state: Position, frame: Frame, events: list[Event]) -> None:
    """The ``automa`` procedure frame: act, then (stage 1) the disk and the end of its turn."""
    if frame.num("stage") == ACT:
        state.decisions[-1] = frame.with_(stage=FINISH)
        reveal(state, events)
        card = current_card(state)
        action = card.action
        if action.kind == "furnace":
            automa_furnace(state, action.start, action.direction, action.costs, events)
        elif action.kind == "factory":
            automa_factory(state, action.start, action.direction, events)
        else:
            automa_profession(state, action.position, events)
        return
    state.decisions.pop()
    if current_card(state).disk:
        automa_disk(state, events)
    state.round += 1
    state.decisions.append(Frame.make("turn", 0, stage=0))
    if not state.final_reset and sum(n == 0 for n in state.furnaces) >= 2:
        start_reset(state, 0, False, events)


def reveal(state: Position, events: list[Event]) -> None:
    if not state.automa_deck:  # A-27a: reshuffle when a card must be revealed
        state.automa_deck = sorted(state.automa_revealed)
        state.automa_revealed = []
        shuffle(state.rng, state.automa_deck)
        events.append(Event("the Automa shuffles its revealed cards into a new deck"))
    card = state.automa_deck.pop()
    state.automa_revealed.append(card)
    events.append(Event(f"the Automa reveals {state.catalogue.solo.automa_cards[card].id}"))


def automa_furnace(state: Position, start: int, direction: int, costs: tuple[int, ...],
                   events: list[Event]) -> None:
    """Remove 1 cube from the first furnace holding one, from ``start`` along the arrow
    (L1643-L1653); an upper furnace activates the player's workers in its row, a white
    cube from a lower furnace removes the display cards at ``costs`` (L1695-L1702)."""
    cat = state.catalogue
    for furnace in cycle(FURNACE_CYCLE, start, direction):
        if state.furnaces[furnace] == 0:
            continue
        state.furnaces[furnace] -= 1
        events.append(Event(f"the Automa removes a cube from {FURNACES[furnace]}"))
        place = place_of_furnace(furnace)
        if place is not None:
            activate_row(state, place, 0, events)
        elif cat.furnaces[furnace].colour == WHITE and costs:
            pile = CONTRACTS if cat.furnaces[furnace].action == "contract" else INVESTMENTS
            remove_display_cards(state, pile, costs, events)
        return
    events.append(Event("the Automa finds no cube in the furnaces"))


def remove_display_cards(state: Position, pile: int, costs: tuple[int, ...],
                         events: list[Event]) -> None:
    cat = state.catalogue
    spaces = display(state, pile)
    prices = cat.contract_costs if pile == CONTRACTS else cat.investment_costs
    names = cat.contracts if pile == CONTRACTS else cat.investments
    gone = []
    for cost in costs:
        if cost in prices and spaces[prices.index(cost)] != EMPTY:
            card = spaces[prices.index(cost)]
            spaces[prices.index(cost)] = EMPTY
            discard_pile(state, pile).append(card)
            gone.append(names[card].id)
    if gone:
        events.append(Event(f"the Automa removes {', '.join(gone)} from the display"))
        slide_and_refill(state, pile, events)


def automa_factory(state: Position, start: int, direction: int,
                   events: list[Event]) -> None:
    """Remove up to the supply card's number of cubes from the first small factory
    holding any, from ``start`` along the arrow; the player chooses which (L1680-L1693).
    All four empty: 1 cube from the furnaces, from the one on the same corner."""
    k = supply_number(state)
    for factory in cycle(FACTORY_CYCLE, start, direction):
        have = state.factories[factory]
        if not any(have):
            continue
        if sum(have) <= k:
            remove_cubes(state, factory, list(have), events)
        else:
            state.decisions.append(Frame.make("remove", 0, factory=factory, n=k))
        return
    corner = FURNACES.index("FN-" + SMALL_FACTORIES[start][3:])
    events.append(Event("the small factories are empty"))
    automa_furnace(state, corner, direction, (), events)


def remove_cubes(state: Position, factory: int, counts: list[int],
                 events: list[Event]) -> None:
    for i, n in enumerate(counts):
        state.factories[factory][i] -= n
    taken = " ".join(WOODEN_NAMES[i] for i in range(3) for _ in range(counts[i]))
    events.append(Event(f"the Automa removes {taken} from {SMALL_FACTORIES[factory]}"))


def automa_profession(state: Position, position: int, events: list[Event]) -> None:
    """Take the profession at ``position`` of the six face-up ones (or the next one of
    its colour, A-27g) to the topmost place of its side the placement rule allows, with
    the next disk of the worker supply card as its master (L1704-L1714)."""
    cat = state.catalogue
    row = state.face_up_professions()
    group = [0, 1, 2] if position < 3 else [3, 4, 5]
    k = group.index(position)
    card = next((row[p] for p in group[k:] + group[:k] if row[p] != EMPTY), EMPTY)
    if card == EMPTY:
        events.append(Event("the Automa finds no profession to take"))
        return
    side = cat.professions[card].side
    place = next(p for p in (3 * side, 3 * side + 1, 3 * side + 2)
                 if _fits(state, p))
    take_profession(state, card, events)
    state.places[place].append(card)
    state.master[card] = AUTOMA
    events.append(Event(f"the Automa creates {cat.professions[card].id} at {PLACES[place]}"))


def _fits(state: Position, place: int) -> bool:
    """The placement rule, strict (the Automa has no P2)."""
    under = place_below(place)
    return under is None or len(state.places[place]) + 1 < len(state.places[under])


def automa_disk(state: Position, events: list[Event]) -> None:
    """The disk symbol: the next disk to an empty apprentice space of a card with the
    player's master (L1629-L1632); none: nothing (A-27f)."""
    cat = state.catalogue
    for cards in state.places:
        for card in cards:
            if (state.master[card] == 0 and state.apprentice[card] == NOBODY
                    and cat.professions[card].has_apprentice_space):
                state.apprentice[card] = AUTOMA
                events.append(Event(f"the Automa places an apprentice on "
                                    f"{cat.professions[card].id}"))
                return
    events.append(Event("the Automa finds no apprentice space on your professions"))


# -- the ``remove`` decision: the player chooses the cubes the Automa removes ---------------------
def remove_moves(state: Position, frame: Frame) -> list[int]:
    factory, n = frame.num("factory"), frame.num("n")
    have = state.factories[factory]
    out = []
    for combo in combinations_with_replacement(range(3), n):
        counts = [combo.count(i) for i in range(3)]
        if all(c <= h for c, h in zip(counts, have, strict=True)):
            out.append(encode(REMOVE, pack([factory, *counts])))
    return out


def remove_reason(state: Position, frame: Frame, move: int) -> str | None:
    factory, *counts = unpack(payload_of(move), 4)
    if factory != frame.num("factory") or payload_of(move) >> 32:
        return (f"the Automa removes cubes from "
                f"{SMALL_FACTORIES[frame.num('factory')]}: name {frame.num('n')} of them")
    if sum(counts) != frame.num("n"):
        return f"name exactly {count(frame.num('n'), 'cube')} for the Automa to remove"
    return f"{SMALL_FACTORIES[factory]} has not those cubes"


def apply_remove(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    state.decisions.pop()
    factory, *counts = unpack(payload_of(move), 4)
    remove_cubes(state, factory, counts, events)


# -- the reset phase ------------------------------------------------------------------------
def automa_supply(state: Position, events: list[Event]) -> None:
    """The Automa's supply step (L1589-L1596, L1620-L1627): as many cubes as the lower
    section of its last revealed card shows, drawn from the bag at random one at a time,
    each into a different small factory from the named one along the arrow."""
    if not state.automa_revealed:
        return
    card = current_card(state)
    factories = cycle(FACTORY_CYCLE, card.supply_start, card.supply_direction)
    placed = []
    for i in range(card.supply_cubes):
        total = sum(state.bag)
        if total == 0:
            events.append(Event("the Automa's bag is empty"))
            break
        pick = below(state.rng, total)
        colour = 0 if pick < state.bag[0] else 1 if pick < state.bag[0] + state.bag[1] else 2
        state.bag[colour] -= 1
        factory = factories[i % len(factories)]
        state.factories[factory][colour] += 1
        placed.append(f"{WOODEN_NAMES[colour]} to {SMALL_FACTORIES[factory]}")
    if placed:
        events.append(Event(f"the Automa supplies {', '.join(placed)}"))


# -- the solo game in the flow --------------------------------------------------------------
def note_final_reset(state: Position, events: list[Event]) -> None:
    """The reset whose army step reaches the difficulty's space is the final one
    (L1554-L1559, docs/rules/stephens.md A-11)."""
    if not state.final_reset and state.army <= state.final_space():
        state.final_reset = 1
        events.append(Event("this is the final reset phase"))


def last_turn_over(state: Position, events: list[Event]) -> bool:
    """The player's turn after the final reset is the last (L1604-L1609)."""
    return bool(state.final_reset)


def automa_turn(state: Position, events: list[Event]) -> None:
    """The Automa plays between the player's turns (L1561-L1563)."""
    state.decisions.append(Frame.make("automa", 0, stage=ACT))


#: The solo game's hooks: no score ends it (docs/rules/stephens.md A-12), the final
#: reset does; the Automa takes a turn after each of the player's and supplies the
#: small factories in every reset; its own frames are its turn and the cubes the player
#: chooses for it to remove.
SOLO = Hooks(
    check_end=nothing,
    last_turn_over=last_turn_over,
    next_turn=automa_turn,
    army_advanced=note_final_reset,
    reset_steps=SUPPLY_LAST,
    supplying=automa_supply,
    procedures={"automa": run_automa},
    decisions={"remove": Handler("choose the cubes the Automa removes", (REMOVE,),
                                 remove_moves, remove_reason, apply_remove)},
)
