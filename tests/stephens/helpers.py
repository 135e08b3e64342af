"""Building blocks for Stephens tests: positions set up by hand."""

from __future__ import annotations

from engine.stephens.abilities import unlockable_disks
from engine.stephens.codec import state_from_json
from engine.stephens.frames import Frame
from engine.stephens.setup import new_state
from engine.stephens.state import EMPTY, StephensState
from engine.stephens.vocabulary import COLOURS, NOBODY, PLACES, SMALL_FACTORIES


def blank(num_players: int = 4, seed: int = 0) -> StephensState:
    """A set-up game with the setup decisions dropped and the starting professions
    back in the box: an empty board, every player as player setup leaves them, the
    first player to choose an action."""
    state = new_state(seed, num_players)
    for cards in state.places:
        for card in cards:
            state.master[card] = NOBODY
            state.box.append(card)
        cards.clear()
    state.box.sort()
    turn_of(state, 0)
    return state


def turn_of(state: StephensState, seat: int) -> StephensState:
    """Make it ``seat``'s turn, about to choose an action."""
    state.active = seat
    state.decisions = [Frame.make("turn", seat, stage=1),
                       Frame.make("action", seat, discarded=0)]
    state.touched()
    return state


def prof(state: StephensState, card_id: str) -> int:
    return state.catalogue.profession_ids[card_id]


def _take_profession(state: StephensState, card: int) -> None:
    for pile in (*state.profession_decks, *state.profession_discards, state.box):
        if card in pile:
            pile.remove(card)
            return
    if card in state.profession_display:
        state.profession_display[state.profession_display.index(card)] = EMPTY
        return
    raise AssertionError(f"{state.catalogue.professions[card].id} is already in play")


def attach(state: StephensState, card_id: str, place: str, master: int,
           apprentice: int | None = None) -> int:
    """Put profession ``card_id`` on ``place`` with its workers (no rules checked)."""
    card = prof(state, card_id)
    _take_profession(state, card)
    state.places[PLACES.index(place)].append(card)
    state.master[card] = master
    state.apprentice[card] = NOBODY if apprentice is None else apprentice
    return card


def settle_disks(state: StephensState, prefer: dict[int, list[str]] | None = None) -> None:
    """Take one disk off each player's board per worker they have on cards: first the
    ``prefer``red ones (disk ids, in order), then the first allowed ones."""
    cat = state.catalogue
    for seat, player in enumerate(state.players):
        wanted = [cat.disk_ids[d] for d in (prefer or {}).get(seat, [])]
        while player.disks_taken < state.workers_of(seat):
            options = unlockable_disks(cat, player, lowest_influence_only=False)
            pick = next((d for d in wanted if d in options), options[0])
            player.unlocked[pick] = 1


def grant(state: StephensState, seat: int, *disks: str) -> None:
    """Give ``seat`` the abilities ``disks``, each with a worker on a card in play."""
    for _ in disks:
        card = next(c for c in state.catalogue.deck("blue")
                    if c in state.profession_decks[1])
        attach(state, state.catalogue.professions[card].id, "FN-UR", seat)
    settle_disks(state, {seat: list(disks)})
    state.touched()


def contract(state: StephensState, card_id: str) -> int:
    """Take contract ``card_id`` out of the deck or display (a hole in the display is
    refilled from the deck)."""
    card = state.catalogue.contract_ids[card_id]
    if card in state.contract_deck:
        state.contract_deck.remove(card)
    else:
        slot = state.contract_display.index(card)
        state.contract_display[slot] = state.contract_deck.pop()
    return card


def investment(state: StephensState, card_id: str) -> int:
    card = state.catalogue.investment_ids[card_id]
    if card in state.investment_deck:
        state.investment_deck.remove(card)
    else:
        slot = state.investment_display.index(card)
        state.investment_display[slot] = state.investment_deck.pop()
    return card


def give_investment(state: StephensState, seat: int, card_id: str, row: str) -> int:
    """Fund ``card_id`` into ``seat``'s row of colour ``row`` (no rules checked)."""
    card = investment(state, card_id)
    rows = state.catalogue.board.investment_rows
    state.players[seat].investments[rows.index(COLOURS.index(row))].append(card)
    return card


def cubes(**counts: int) -> list[int]:
    return [counts.get(c, 0) for c in COLOURS]


def round_trip(state: StephensState) -> StephensState:
    """The state through JSON: proves the hand-made position is a legal one."""
    twin = state_from_json(state.to_json())
    assert twin.to_json() == state.to_json()
    return twin


def on_display(state: StephensState, pile: str, card_id: str, space: int) -> int:
    """Put contract or investment ``card_id`` on display ``space``; the card that lay
    there goes back on top of the deck."""
    cat = state.catalogue
    if pile == "contract":
        card, deck, display = cat.contract_ids[card_id], state.contract_deck, \
            state.contract_display
    else:
        card, deck, display = cat.investment_ids[card_id], state.investment_deck, \
            state.investment_display
    if card in display:
        display[display.index(card)] = display[space]
    else:
        deck.remove(card)
        deck.append(display[space])
    display[space] = card
    state.touched()
    return card


def profession_on_display(state: StephensState, card_id: str, space: int) -> int:
    """Put profession ``card_id`` on profession display ``space`` (0-3, left to right);
    the card there goes to the bottom of its deck."""
    card = prof(state, card_id)
    colour = state.catalogue.professions[card].deck
    _take_profession(state, card)
    if state.profession_display[space] != EMPTY:
        state.profession_decks[colour].insert(0, state.profession_display[space])
    state.profession_display[space] = card
    state.touched()
    return card


def play(state: StephensState, *texts: str) -> list[str]:
    """Play moves given in words; returns the events' texts."""
    out = []
    for text in texts:
        out += [str(e) for e in state.apply_text(text)]
    return out


# -- the rulebook's example game ----------------------------------------------------------
#: The four players of the rulebook's examples, in seat order.
ANDRE, PEDRO, ANGELA, MARIA = range(4)


def pedros_reset() -> StephensState:
    """Pedro is about to take the last white cube of the lower right furnace while the
    upper left one is empty; the army is on 50 (L973-L979, L1054)."""
    state = turn_of(blank(4, seed=7), PEDRO)
    cat = state.catalogue
    state.army = 50
    state.furnaces = [0, 2, 3, 1]
    # E9: Andre and Maria have the +1 VP ability; Angela may gain up to 9 influence.
    attach(state, "stoker", "FN-UL", ANDRE)
    attach(state, "miller", "FN-UL", MARIA)
    attach(state, "woodcutter", "FN-UL", ANGELA)
    settle_disks(state, {ANDRE: ["V1"], MARIA: ["V1"], ANGELA: ["I5"]})
    # E10: Pedro's column of three investments (L1140-L1148).
    give_investment(state, PEDRO, "utensils-3", "orange")
    give_investment(state, PEDRO, "theatre", "pink")
    give_investment(state, PEDRO, "pottery-6", "black")
    # E12: Angela's column yields 2 orange and 2 black cubes.
    give_investment(state, ANGELA, "utensils-6", "orange")
    give_investment(state, ANGELA, "pottery-5", "black")
    # E13: Maria's two contracts and the cubes they need (L1273-L1284).
    maria = state.players[MARIA]
    maria.contracts = [contract(state, "crown-01"), contract(state, "uk-03")]
    maria.cubes = cubes(pink=1, white=1, black=1)
    # E11: two orange cubes left in the lower right small factory (L1157-L1159).
    state.factories[SMALL_FACTORIES.index("SF-LR")] = [2, 0, 0]
    on_display(state, "investment", "utensils-1", 0)
    assert cat.investments[state.investment_display[0]].id == "utensils-1"
    state.touched()
    return round_trip(state)
