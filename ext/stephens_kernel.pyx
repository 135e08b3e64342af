# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=True
"""Stephens' rules on a flat C struct: the compiled twin of ``engine.stephens`` for 1-4 players.

``KernelState`` reproduces :class:`engine.stephens.state.StephensState` move for move:
the same legal moves in the same order, the same automatic play of procedures and
single-option decisions (``engine.stephens.flow.advance``), the same successor
states -- including the SplitMix64 generator the state carries for its shuffles --
(checked by ``checks.kernel`` and ``tests/stephens/test_kernel.py``) and the
same random and guided playouts (SplitMix64 from :mod:`engine.playout_rng`).

Scope.  Every player count: the solo game against the Automa too (its deck, revealed
pile and bag, its turn and supply, the worker supply card and cap, both final-turn
sequences, the difficulty and the opponent cards), in ``stephens_solo.pxi``, which the
flow here calls where the reference's solo hooks (``engine.stephens.solo.SOLO``)
differ.  A hand-made position outside the struct's fixed bounds is refused
(``from_reference`` raises ValueError), so ``engine.stephens.fast.kernel_twin``
returns None and search runs on the reference rules.

Layout.  The whole position is one ``St`` struct, so a copy is a ``memcpy``: card
piles are byte arrays with a length, in the reference's list order (the top of a
pile is its last entry), ``-1`` for an empty space.  The decision stack is an array
of ``Fr`` frames whose context fields sit in ``ctx`` in the order of their sorted
names, as ``engine.stephens.frames.FRAME_KINDS`` lists them.  Catalogue numbers are
copied once per catalogue into a ``Cat`` struct.  Moves are the reference's 64-bit
integers, ``kind << 56 | payload``.

``apply`` returns no event texts (search does not read them); use the reference
state (``to_reference()``) for a commented game, and for the views and the parsing of
moves, which are delegated to it.  The words of a move come from the catalogue and
the few bytes of the position they read (``text_context``), so a search tree can
keep those bytes per node and name its moves later.
"""

from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy, memset

from random import Random

from engine.game import TERMINAL, IllegalMoveError, MoveParseError, Outcome, State, rank_groups
from engine.playout_rng import MASK64
from engine.stephens.activation import concrete_options
from engine.stephens import heuristic as stephens_heuristic
from engine.stephens.frames import FRAME_KINDS, Frame
from engine.stephens.moves import move_words
from engine.stephens.state import INFO, Player, StephensState
from engine.stephens.solo import FACTORY_CYCLE, FURNACE_CYCLE, result as solo_result
from engine.stephens.vocabulary import (
    ABILITY_EFFECTS,
    ANY,
    AUTOMA,
    AUTOMA_ACTIONS,
    BONUS_GAINS,
    DIRECTIONS,
    FURNACE_ACTIONS,
    FURNACES,
    INFLUENCE_DISK,
    NOBODY,
    SMALL_FACTORIES,
    WHITE,
    place_of_furnace,
)

include "splitmix64.pxi"
include "search_ops.pxi"

include "guided_choice.pxi"
include "record_set.pxi"
include "byte_sort.pxi"

ctypedef int64_t mv

cdef enum:
    MAXP = 4
    MAXPROF = 64        # professions (a card is a signed char: -1 is an empty space)
    MAXCON = 64         # contracts
    MAXINV = 64         # investments
    MAXDISK = 32        # ability and influence disks
    MAXACC = 6          # accessory types (a FULFIL payload has 6 fields for them)
    MAXBONUS = 16       # supply combinations
    MAXDISP = 8         # contract / investment display spaces
    MAXROWS = 4         # investment rows and contract rows of a player board
    MAXREQ = 4          # disks a disk requires
    MAXOPT = 4          # options of a profession's benefit
    MAXARMY = 127       # army spaces (the refill table is indexed by space)
    MAXFRAMES = 48      # decision stack
    # One seat's workers in one row (activation bitmasks): a seat has one worker a card
    # at most and a row takes the professions of one side (25; checked when the
    # catalogue is loaded).
    MAXW = 25
    # Investment columns: a row may hold every investment of its colour and every
    # cubeless one (9 + 5 in the catalogue; checked when it is loaded), and a columns
    # decision lists every affordable set of columns, so MAX_MOVES > 2 ** MAXCOLS.
    MAXCOLS = 14
    MAX_MOVES = 1 << 15
    # Room for the payments of a contract: a first try in little room (most positions
    # need a few hundred at most), a second in much more.  An activation's plan search
    # starts with SMALL_ROOM plans and grows its plans and nodes as it needs
    # (record_set.pxi): 13 workers in one row make tens of thousands of nodes.
    SMALL_ROOM = 512
    LARGE_ROOM = 32768
    MAX_PLACEMENTS = 256  # types of the "any" accessories placed on one contract
    SIZE = 9            # engine.stephens.activation's resource vector
    MAXSTEPS = MAXW * MAXOPT  # an activation's steps (worker, option), numbered
    STEP_WORDS = 2            # 64-bit words of a set of them
    NO_SEAT = -1        # vocabulary.NOBODY: no worker on a space
    ANY_COLOUR = -1     # vocabulary.ANY: an investment for any row

    # resource vector indices (engine.stephens.activation)
    R_COIN = 0
    R_INFLUENCE = 1
    R_VP = 2
    R_FOREST = 3
    R_DUNE = 4
    R_CUBES = 5
    R_CUBES_GAINED = 6
    R_ACC = 7
    R_ACC_GAINED = 8

    # move kinds (engine.stephens.moves.KINDS order)
    K_ACCESSORIES = 1
    K_CUBES = 2
    K_UNLOCK = 3
    K_DISCARD = 4
    K_GLASS = 5
    K_PRODUCTS = 6
    K_EFFECT = 7
    K_CREATE = 8
    K_REINFORCE = 9
    K_DISCARD_CHEAPEST = 10
    K_CONTRACT = 11
    K_INVESTMENT = 12
    K_SKIP = 13
    K_ACTIVATE = 14
    K_ACTIVATE_PART = 15
    K_COLUMNS = 16
    K_SUPPLY = 17
    K_FULFIL = 18
    K_REMOVE = 19
    SHIFT = 56
    PLAN_STEPS = 7
    # What a move's words read from the position (text_context): a flag, then the
    # (profession, option) of each step of an activation plan, one byte each.
    TEXT_CONTEXT = 1 + PLAN_STEPS
    EFFECT_ROW = 16
    ZERO = 128

    # frame kinds (engine.stephens.frames.FRAME_KINDS order)
    F_ACCESSORY = 0
    F_UNLOCK = 1
    F_TURN = 2
    F_ACTION = 3
    F_EFFECT = 4
    F_ACTIVATION = 5
    F_CUBES = 6
    F_ACCESSORIES = 7
    F_ACQUIRE = 8
    F_ASSIGN = 9
    F_RESET = 10
    F_COLUMNS = 11
    F_SUPPLY = 12
    F_INFLUENCE = 13
    F_FULFIL = 14
    F_AUTOMA = 15
    F_REMOVE = 16

    # context fields, by sorted name
    C_STAGE = 0                                   # turn
    C_DISCARDED = 0                               # action
    C_FACTORY = 0                                 # effect
    C_PLACE = 0                                   # activation
    C_USED = 1
    C_GAINED = 0                                  # cubes, accessories
    C_PAID = 1
    C_CHEAPEST = 0                                # acquire
    C_DISCOUNT = 1
    C_FIRST = 2
    C_LEFT = 3
    C_PILE = 4
    C_ROW = 5
    C_FINAL = 0                                   # reset
    C_STEP = 1
    C_S_ACC = 0                                   # supply
    C_S_ACQUIRE = 1
    C_S_ASSIGN = 2
    C_S_INFLUENCE = 3
    C_S_LAST = 4
    C_N = 0                                       # influence
    C_TYPE = 0                                    # fulfil

    # turn stages (engine.stephens.flow)
    BEGIN = 0
    END = 1
    PASS = 2
    # reset steps (engine.stephens.reset)
    ARMY = 1
    REFILL = 2
    RESET_VP = 3
    INVESTMENTS_STEP = 4
    EMPTY_FACTORIES = 5
    SUPPLY_STEP = 6
    FULFIL_STEP = 7
    DONE = 8
    # piles (engine.stephens.vocabulary, acquisition.EITHER)
    CONTRACTS = 0
    INVESTMENTS = 1
    EITHER = 2

    # ability effects: the influence disk, then vocabulary.ABILITY_EFFECTS in order
    E_INFLUENCE = 0
    E_RESET_VP = 1
    E_FINAL_CUBES = 2
    E_FINAL_COINS = 3
    E_FINAL_INFLUENCE = 4
    E_FINAL_ACC = 5
    E_DISCARD_PROF = 6
    E_EQUAL = 7
    E_CUBE_REPL = 8
    E_TWO_CARDS = 9
    E_DISCARD_CHEAPEST = 10
    E_DISCOUNT = 11
    E_PRODUCTS = 12
    NEFFECTS = 13

    # supply bonus gains (vocabulary.BONUS_GAINS order)
    G_INFLUENCE = 0
    G_COIN = 1
    G_ACCESSORY = 2
    G_ACQUIRE = 3
    G_ASSIGN = 4

    # furnace actions (vocabulary.FURNACE_ACTIONS order)
    A_ACTIVATE = 0
    A_CONTRACT = 1

# The solo game's numbers (its rules: stephens_solo.pxi).
cdef enum:
    AUTOMA_SEAT = -2        # vocabulary.AUTOMA: the Automa's workers on cards
    MAXAUTOMA = 16          # Automa cards
    MAXAUTOMA_COSTS = 4     # display costs a furnace card names
    MAXSUPPLYCARD = 16      # spaces of the worker supply card
    MAXREMOVE = 16          # cubes the Automa removes from a small factory at once
    MAXDIFF = 4             # difficulties
    MAXOPP = 8              # opponent cards
    SOLO_WORKER_LEAD = 3    # workers.SOLO_WORKER_LEAD
    # vocabulary.AUTOMA_ACTIONS
    AU_FURNACE = 0
    AU_FACTORY = 1
    AU_PROFESSION = 2
    # the automa frame's stages (solo.ACT, solo.FINISH)
    AUTOMA_ACT = 0
    AUTOMA_FINISH = 1
    # the opponent effects read during play (opponents.py); the others are set up
    OPP_OTHER = 0
    OPP_ACCESSORY_SETS = 1
    OPP_CLOSED_SPACE = 2
    # the remove frame's context, by sorted name
    C_R_FACTORY = 0
    C_R_N = 1


EFFECTS = (INFLUENCE_DISK, *ABILITY_EFFECTS)
#: The bytes text_context writes (KernelState.text_context_of returns).
TEXT_CONTEXT_BYTES = TEXT_CONTEXT
FRAME_NAMES = tuple(FRAME_KINDS)
# Frames of the solo game only.
SOLO_FRAMES = ("automa", "remove")
# The opponent cards' effects read during play, by catalogue name (the others are set up).
OPPONENT_EFFECTS = {"accessory-sets": OPP_ACCESSORY_SETS, "no-cost-5-spaces": OPP_CLOSED_SPACE}


# -- the board's geometry (engine.stephens.vocabulary, displays) ------------------------------
cdef inline int display_space(int colour, int k) noexcept nogil:
    """displays.DISPLAY_SPACES: red (0, 1), blue (3, 2), the one beside its deck first."""
    return k if colour == 0 else 3 - k


cdef inline int factory_place(int factory) noexcept nogil:
    """vocabulary.place_of_factory: SF-UL, SF-LL, SF-UR, SF-LR are places 0, 1, 3, 4."""
    return factory if factory < 2 else factory + 1


cdef inline int furnace_place(int furnace) noexcept nogil:
    """vocabulary.place_of_furnace for the upper furnaces, FN-UL and FN-UR (2, 5)."""
    return 2 if furnace == 0 else 5


cdef inline int wooden_colour(int k) noexcept nogil:
    """vocabulary.WOODEN: orange, pink, black are the colours 3, 4, 5."""
    return 3 + k


ctypedef struct Cat:
    int nprof, ncon, ninv, ndisk, nacc, nbonus, ncdisp, nidisp
    # professions
    signed char prof_side[MAXPROF]
    unsigned char prof_has_apprentice[MAXPROF]
    int prof_coins[MAXPROF][2]
    int prof_influence[MAXPROF][2]
    int prof_nopt[MAXPROF]
    int prof_pay[MAXPROF][MAXOPT][SIZE]
    int prof_gain[MAXPROF][MAXOPT][SIZE]
    int prof_class[MAXPROF]      # the first profession with the same concrete options
    # contracts
    int con_type[MAXCON]
    int con_cubes[MAXCON][6]
    int con_acc[MAXCON][MAXACC]
    int con_any[MAXCON]
    int con_cube_count[MAXCON]
    int con_row[MAXCON]          # the board's contract row of its type
    # investments
    int inv_colour[MAXINV]       # a colour, or ANY
    int inv_cubes[MAXINV]
    int inv_vp[MAXINV]
    int inv_forest[MAXINV]
    int inv_dune[MAXINV]
    # disks
    int disk_effect[MAXDISK]
    int disk_space[MAXDISK]
    int disk_nreq[MAXDISK]
    int disk_req[MAXDISK][MAXREQ]
    int disk_vp[MAXDISK]
    int disk_per[MAXDISK]
    int disk_n[MAXDISK]
    int effect_disk[NEFFECTS]    # catalogue.disk_with(effect); -1 where not single
    # supply combinations
    int bonus_factory[MAXBONUS]
    int bonus_deliver[MAXBONUS][3]
    int bonus_gain[MAXBONUS]
    int bonus_n[MAXBONUS]
    # board
    int furnace_colour[4]
    int furnace_action[4]
    int contract_costs[MAXDISP]
    int investment_costs[MAXDISP]
    int contract_slots
    int ninvrows
    int inv_rows[MAXROWS]        # the colour of each investment row
    int ncrows
    int influence_max
    int forest_top, dune_top
    int nforest, ndune
    int forest_from[8]
    int forest_vp[8]
    int dune_from[8]
    int dune_vp[8]
    int army_step
    int refill[MAXARMY + 1][3]   # cubes per empty furnace for 4/3/2 players; -1: none
    int master_vp[6]
    # the heuristic's weights (engine.stephens.heuristic) and what it reads per card
    double h_coin, h_influence, h_cube, h_accessory, h_reserved
    double h_contract_base, h_contract_held, h_column_share, h_track_progress
    double h_row_activations
    double prof_worth[MAXPROF]   # heuristic.benefit_value
    double disk_value[MAXDISK]   # heuristic.ABILITY_VALUE of the disk's effect
    # the solo game (engine.stephens.solo, catalogue.solo)
    int nautoma
    int au_kind[MAXAUTOMA]
    int au_start[MAXAUTOMA]
    int au_direction[MAXAUTOMA]
    int au_ncosts[MAXAUTOMA]
    int au_costs[MAXAUTOMA][MAXAUTOMA_COSTS]
    int au_position[MAXAUTOMA]
    int au_disk[MAXAUTOMA]
    int au_supply_cubes[MAXAUTOMA]
    int au_supply_start[MAXAUTOMA]
    int au_supply_direction[MAXAUTOMA]
    int nworker_supply
    int worker_supply[MAXSUPPLYCARD]
    int ndifficulties
    int diff_final[MAXDIFF]
    int diff_glassblower[MAXDIFF]   # the lowest Glassblower score
    int diff_target[MAXDIFF]        # an opponent card's target
    int nopponents
    int opp_effect[MAXOPP]
    int opp_n[MAXOPP]
    int opponent_final_reset
    int furnace_cycle[4]            # solo.FURNACE_CYCLE
    int factory_cycle[4]            # solo.FACTORY_CYCLE
    int factory_corner[4]           # the furnace on a small factory's corner
    int furnace_row[4]              # vocabulary.place_of_furnace; -1: none
    int dir_cw                      # vocabulary.DIRECTIONS.index("cw")
    int white
    double h_solo_bias, h_solo_early_resets, h_solo_early_vp


ctypedef struct Fr:
    int kind
    int seat
    int ctx[6]


ctypedef struct Pl:
    int coins, influence, vp, forest, dune
    int cubes[6]
    int accessories[MAXACC]
    unsigned char unlocked[MAXDISK]
    unsigned char contracts[MAXCON]
    int ncontracts
    unsigned char investments[MAXROWS][MAXINV]
    int ninvestments[MAXROWS]
    int reserved[3]
    unsigned char fulfilled[MAXROWS][MAXCON]
    int nfulfilled[MAXROWS]
    int placed[MAXACC]
    int influence_stack          # solo opponent cards: 0, or the space of the stack
    int lost_disk                # solo opponent cards: -1, or the disk never used


ctypedef struct St:
    uint64_t rng
    int nplayers, round, end_round, active, army
    int overflow             # a fixed bound was hit during play: the twin gives up
    int furnaces[4]
    int factories[4][3]
    unsigned char pdeck[2][MAXPROF]
    int npdeck[2]
    signed char pdisplay[4]
    unsigned char pdiscard[2][MAXPROF]
    int npdiscard[2]
    unsigned char box[MAXPROF]
    int nbox
    unsigned char places[6][MAXPROF]
    int nplaces[6]
    signed char master[MAXPROF]
    signed char apprentice[MAXPROF]
    unsigned char cdeck[MAXCON]
    int ncdeck
    signed char cdisplay[MAXDISP]
    unsigned char cdiscard[MAXCON]
    int ncdiscard
    unsigned char ideck[MAXINV]
    int nideck
    signed char idisplay[MAXDISP]
    unsigned char idiscard[MAXINV]
    int nidiscard
    Pl players[MAXP]
    Fr frames[MAXFRAMES]
    int nframes
    # the solo game: difficulty, opponent card (-1: none), the Automa's deck and
    # revealed pile (tops last), its bag, whether the final reset has begun
    int difficulty, opponent, final_reset
    int bag[3]
    unsigned char adeck[MAXAUTOMA]
    int nadeck
    unsigned char arevealed[MAXAUTOMA]
    int narevealed


# -- small helpers ----------------------------------------------------------------------------
cdef inline mv encode(int kind, mv payload) noexcept nogil:
    return (<mv>kind << SHIFT) | payload


cdef inline int rng_below(St* s, int n) noexcept nogil:
    return <int>(furnace_splitmix64(&s.rng) % <uint64_t>n)


cdef inline void shuffle(St* s, unsigned char* items, int n) noexcept nogil:
    """engine.stephens.randomness.shuffle: Fisher-Yates from the end."""
    cdef int i, j
    cdef unsigned char t
    for i in range(n - 1, 0, -1):
        j = rng_below(s, i + 1)
        t = items[i]
        items[i] = items[j]
        items[j] = t


cdef inline bint has_ability(const Cat* c, const Pl* p, int effect) noexcept nogil:
    cdef int d
    for d in range(c.ndisk):
        if p.unlocked[d] and c.disk_effect[d] == effect:
            return True
    return False


cdef inline int influence_cap(const Cat* c, const Pl* p) noexcept nogil:
    """abilities.influence_cap (a solo opponent card may stack the disks on one space)."""
    cdef int d
    cdef int low = -1
    for d in range(c.ndisk):
        if c.disk_effect[d] == E_INFLUENCE and not p.unlocked[d]:
            if low < 0 or c.disk_space[d] < low:
                low = c.disk_space[d]
    if low >= 0 and p.influence_stack:
        return p.influence_stack - 1
    return low - 1 if low >= 0 else c.influence_max


cdef inline void gain_influence(const Cat* c, Pl* p, int n) noexcept nogil:
    cdef int gained = influence_cap(c, p) - p.influence
    if gained > n:
        gained = n
    if gained > 0:
        p.influence += gained


cdef inline int products_limit(const Cat* c, const Pl* p) noexcept nogil:
    cdef int d
    cdef int best = 1
    for d in range(c.ndisk):
        if p.unlocked[d] and c.disk_effect[d] == E_PRODUCTS and c.disk_n[d] > best:
            best = c.disk_n[d]
    return best


cdef inline int max_vp(const St* s) noexcept nogil:
    cdef int p
    cdef int best = s.players[0].vp
    for p in range(1, s.nplayers):
        if s.players[p].vp > best:
            best = s.players[p].vp
    return best


cdef inline Fr* push(St* s, int kind, int seat) noexcept nogil:
    """A new frame on top (context zeroed); on overflow the position is given up."""
    cdef Fr* f
    if s.nframes >= MAXFRAMES:
        s.overflow = 1
        return &s.frames[MAXFRAMES - 1]
    f = &s.frames[s.nframes]
    s.nframes += 1
    f.kind = kind
    f.seat = seat
    memset(f.ctx, 0, sizeof(f.ctx))
    return f


cdef inline int next_multiset(int* idx, int r, int n) noexcept nogil:
    """The next non-decreasing index sequence, in ``itertools.combinations_with_replacement``
    order; 0 after the last."""
    cdef int i = r - 1
    cdef int j
    while i >= 0 and idx[i] == n - 1:
        i -= 1
    if i < 0:
        return 0
    idx[i] += 1
    for j in range(i + 1, r):
        idx[j] = idx[i]
    return 1


# -- displays (engine.stephens.displays) ------------------------------------------------------
cdef void renew_deck(St* s, int colour) noexcept nogil:
    """An empty profession deck is rebuilt from its discard pile, sorted then shuffled."""
    if s.npdeck[colour] or not s.npdiscard[colour]:
        return
    memcpy(s.pdeck[colour], s.pdiscard[colour], s.npdiscard[colour])
    s.npdeck[colour] = s.npdiscard[colour]
    s.npdiscard[colour] = 0
    sort_bytes(s.pdeck[colour], s.npdeck[colour])
    shuffle(s, s.pdeck[colour], s.npdeck[colour])


cdef int draw_top(St* s, int colour) noexcept nogil:
    cdef int card
    if not s.npdeck[colour]:
        return -1
    s.npdeck[colour] -= 1
    card = s.pdeck[colour][s.npdeck[colour]]
    renew_deck(s, colour)
    return card


cdef void take_profession(St* s, int card) noexcept nogil:
    cdef int colour, k, space
    for colour in range(2):
        if s.npdeck[colour] and s.pdeck[colour][s.npdeck[colour] - 1] == card:
            draw_top(s, colour)
            return
        for k in range(2):
            space = display_space(colour, k)
            if s.pdisplay[space] == card:
                s.pdisplay[space] = draw_top(s, colour)
                return


cdef void discard_professions(St* s, int colour) noexcept nogil:
    cdef int k, space
    for k in range(2):
        space = display_space(colour, k)
        s.pdiscard[colour][s.npdiscard[colour]] = s.pdisplay[space]
        s.npdiscard[colour] += 1
    for k in range(2):
        s.pdisplay[display_space(colour, k)] = -1
    renew_deck(s, colour)
    for k in range(2):
        space = display_space(colour, k)
        s.pdisplay[space] = draw_top(s, colour)


cdef inline int face_up(const St* s, int* row) noexcept nogil:
    """StephensState.face_up_professions: red deck top, the display, blue deck top."""
    cdef int k
    row[0] = s.pdeck[0][s.npdeck[0] - 1] if s.npdeck[0] else -1
    for k in range(4):
        row[1 + k] = s.pdisplay[k]
    row[5] = s.pdeck[1][s.npdeck[1] - 1] if s.npdeck[1] else -1
    return 6


cdef void slide_and_refill(St* s, const Cat* c, int pile) noexcept nogil:
    cdef signed char* spaces
    cdef unsigned char* deck
    cdef int* ndeck
    cdef int nspaces, k
    cdef int n = 0
    cdef signed char cards[MAXDISP]
    cdef int room
    if pile == CONTRACTS:
        spaces, deck, ndeck, nspaces = &s.cdisplay[0], &s.cdeck[0], &s.ncdeck, c.ncdisp
    else:
        spaces, deck, ndeck, nspaces = &s.idisplay[0], &s.ideck[0], &s.nideck, c.nidisp
    room = nspaces - (closed_space(s, c, pile) >= 0)  # a solo opponent card's
    for k in range(nspaces):
        if spaces[k] >= 0:
            cards[n] = spaces[k]
            n += 1
    while n < room and ndeck[0]:
        ndeck[0] -= 1
        cards[n] = deck[ndeck[0]]
        n += 1
    for k in range(nspaces):
        spaces[k] = cards[k] if k < n else -1


cdef void discard_cheapest(St* s, const Cat* c, int pile) noexcept nogil:
    cdef signed char* spaces = &s.cdisplay[0]
    cdef int nspaces = c.ncdisp
    cdef int k
    if pile == INVESTMENTS:
        spaces = &s.idisplay[0]
        nspaces = c.nidisp
    for k in range(nspaces):
        if spaces[k] >= 0:
            if pile == CONTRACTS:
                s.cdiscard[s.ncdiscard] = spaces[k]
                s.ncdiscard += 1
            else:
                s.idiscard[s.nidiscard] = spaces[k]
                s.nidiscard += 1
            spaces[k] = -1
            break
    slide_and_refill(s, c, pile)


# -- workers (engine.stephens.workers, placement) ---------------------------------------------
cdef inline int disks_left(const St* s, const Cat* c, int seat) noexcept nogil:
    """Disks still on the board; pending unlock decisions count as taken."""
    cdef int d, i
    cdef int n = c.ndisk - (s.players[seat].lost_disk >= 0)  # a solo opponent card's
    for d in range(c.ndisk):
        n -= s.players[seat].unlocked[d]
    for i in range(s.nframes):
        if s.frames[i].kind == F_UNLOCK and s.frames[i].seat == seat:
            n -= 1
    return n


cdef inline bint placement_ok(const St* s, const Cat* c, int seat, int card, int place) noexcept nogil:
    cdef int after, limit
    if place // 3 != c.prof_side[card]:
        return False
    if place % 3 == 2:
        return True
    after = s.nplaces[place] + 1
    limit = s.nplaces[place + 1]
    return after < limit or (after == limit and has_ability(c, &s.players[seat], E_EQUAL))


cdef int worker_moves(const St* s, const Cat* c, int seat, mv* moves, int n) noexcept nogil:
    """turn.worker_moves: the creations (face-up order, then place), then the
    reinforcements (by card)."""
    cdef int row[6]
    cdef int k, card, place, i
    cdef unsigned char playing[MAXPROF]
    cdef const Pl* p = &s.players[seat]
    if disks_left(s, c, seat) == 0 or solo_cap_reached(s, c, seat):
        return n
    face_up(s, row)
    for k in range(6):
        card = row[k]
        if card < 0 or p.coins < c.prof_coins[card][0] or p.influence < c.prof_influence[card][0]:
            continue
        for place in range(6):
            if placement_ok(s, c, seat, card, place):
                moves[n] = encode(K_CREATE, card | place << 8)
                n += 1
    # the cards in play (workers in some row), marked once
    memset(playing, 0, MAXPROF)
    for place in range(6):
        for i in range(s.nplaces[place]):
            playing[s.places[place][i]] = 1
    for card in range(c.nprof):
        if (playing[card] and c.prof_has_apprentice[card] and s.apprentice[card] == NO_SEAT
                and s.master[card] != seat and p.coins >= c.prof_coins[card][1]
                and p.influence >= c.prof_influence[card][1]):
            moves[n] = encode(K_REINFORCE, card)
            n += 1
    return n


cdef void worker_apply(St* s, const Cat* c, int seat, mv move) noexcept nogil:
    cdef int kind = <int>(move >> SHIFT)
    cdef int card = <int>(move & 0xFF)
    cdef int place = <int>(move >> 8 & 0xFF)
    cdef Pl* p = &s.players[seat]
    if kind == K_CREATE:
        take_profession(s, card)
        s.places[place][s.nplaces[place]] = card
        s.nplaces[place] += 1
        p.coins -= c.prof_coins[card][0]
        p.influence -= c.prof_influence[card][0]
        s.master[card] = seat
    else:
        p.coins -= c.prof_coins[card][1]
        p.influence -= c.prof_influence[card][1]
        s.apprentice[card] = seat
    push(s, F_UNLOCK, seat)


cdef int unlock_moves(const St* s, const Cat* c, int seat, mv* moves, int n) noexcept nogil:
    """abilities.unlockable_disks: only the influence disk on the lowest space."""
    cdef const Pl* p = &s.players[seat]
    cdef int d, k
    cdef int lowest = -1
    cdef bint ok[MAXDISK]
    for d in range(c.ndisk):
        ok[d] = not p.unlocked[d] and d != p.lost_disk
        for k in range(c.disk_nreq[d]):
            if not p.unlocked[c.disk_req[d][k]]:
                ok[d] = False
        if ok[d] and c.disk_effect[d] == E_INFLUENCE:
            if lowest < 0 or c.disk_space[d] < c.disk_space[lowest]:
                lowest = d
    for d in range(c.ndisk):
        if ok[d] and (c.disk_effect[d] != E_INFLUENCE or d == lowest):
            moves[n] = encode(K_UNLOCK, d)
            n += 1
    return n


# -- activation plans (engine.stephens.activation) --------------------------------------------
ctypedef struct Plan:
    int nsteps
    unsigned char w[MAXW]
    unsigned char o[MAXW]
    int out[SIZE]


# A set of steps (worker, option) by number (activation.activation_plans' bitmasks)
ctypedef struct StepSet:
    uint64_t bits[STEP_WORDS]


ctypedef struct Search:
    # the seat's workers in the row (activation.row_workers) and what they may take
    int nw
    int card[MAXW]
    int nopt[MAXW]
    int before[MAXW]
    int step0[MAXW]          # the number of the worker's first step (option 0)
    StepSet commutes[MAXSTEPS]   # the steps each step commutes with (activation._commute)
    int caps[SIZE]           # -1: no cap
    bint at_stake
    int army
    # The resources of the (workers used, resources) nodes kept, chained per set of
    # workers (``groups``: the sets met, ``heads``: each one's last node kept).  A node
    # met before is one kept or one a kept node dominates: ``dominated`` cuts it, so
    # the kernel needs no set of the nodes visited (activation.activation_plans' own).
    int* seen                # nseen * SIZE ints
    int nseen
    int seen_cap
    int* seen_next           # the node kept before it with the same workers, or -1
    int seen_next_cap
    RecordSet groups         # 1 int: used
    int* heads
    int heads_cap
    # outcomes in the order first reached (``outcomes``: their resources, indexed alike),
    # each with its first (smallest) steps
    RecordSet outcomes       # SIZE ints
    int nplans
    int room                 # plans the buffer holds
    Plan* plans
    int overflow
    Plan path


cdef inline int row_workers(const St* s, int seat, int place, int* cards) noexcept nogil:
    """How many workers the seat has in the row, by card then master before apprentice
    (activation.row_workers); ``cards`` gets the card of each of the first MAXW (the
    plans need no more: the space a worker stands on changes nothing)."""
    cdef unsigned char sorted_cards[MAXPROF]
    cdef int n = s.nplaces[place]
    cdef int i, card
    cdef int count = 0
    memcpy(sorted_cards, s.places[place], n)
    sort_bytes(sorted_cards, n)
    for i in range(n):
        card = sorted_cards[i]
        if s.master[card] == seat:
            if count < MAXW:
                cards[count] = card
            count += 1
        if s.apprentice[card] == seat:
            if count < MAXW:
                cards[count] = card
            count += 1
    return count


cdef inline void resources(const Pl* p, const Cat* c, int* r) noexcept nogil:
    cdef int k
    r[R_COIN] = p.coins
    r[R_INFLUENCE] = p.influence
    r[R_VP] = p.vp
    r[R_FOREST] = p.forest
    r[R_DUNE] = p.dune
    r[R_CUBES] = 0
    for k in range(6):
        r[R_CUBES] += p.cubes[k]
    r[R_CUBES_GAINED] = 0
    r[R_ACC] = 0
    for k in range(c.nacc):
        r[R_ACC] += p.accessories[k]
    r[R_ACC_GAINED] = 0


cdef inline void set_caps(const Cat* c, const Pl* p, int* caps) noexcept nogil:
    cdef int k
    for k in range(SIZE):
        caps[k] = -1
    caps[R_INFLUENCE] = influence_cap(c, p)
    caps[R_FOREST] = c.forest_top
    caps[R_DUNE] = c.dune_top


cdef inline bint take(const int* have, const int* pay, const int* gain, const int* caps,
                      int* out) noexcept nogil:
    """activation._take: ``have`` after paying and collecting; False if it cannot pay."""
    cdef int k, floor
    for k in range(SIZE):
        out[k] = have[k]
        if pay[k]:
            if pay[k] > out[k]:
                return False
            out[k] -= pay[k]
    for k in range(SIZE):
        if gain[k]:
            out[k] += gain[k]
            if caps[k] >= 0 and out[k] > caps[k]:
                floor = have[k] - pay[k]
                out[k] = caps[k] if caps[k] > floor else floor
    return True


cdef bint dominated(Search* q, int used, const int* have) noexcept nogil:
    """A node with the same workers used and at least as much of everything (the same VP
    while VP may end the game) was kept before; remembers this one otherwise."""
    cdef int i, k, group, index
    cdef int* e
    cdef bint ok, new_group
    group = records_put(&q.groups, &used, &new_group)
    if group < 0 or new_group and grow_ints(&q.heads, &q.heads_cap, group + 1) < 0:
        q.overflow = 1
        return True
    if new_group:
        q.heads[group] = -1
    i = q.heads[group]
    while i >= 0:
        e = q.seen + <size_t>i * SIZE
        ok = True
        for k in range(SIZE):
            if e[k] < have[k]:
                ok = False
                break
        if ok and (not q.at_stake or e[R_VP] == have[R_VP]):
            return True
        i = q.seen_next[i]
    index = q.nseen
    if grow_ints(&q.seen, &q.seen_cap, (index + 1) * SIZE) < 0 \
            or grow_ints(&q.seen_next, &q.seen_next_cap, index + 1) < 0:
        q.overflow = 1
        return True
    memcpy(q.seen + <size_t>index * SIZE, have, SIZE * sizeof(int))
    q.seen_next[index] = q.heads[group]
    q.heads[group] = index
    q.nseen += 1
    return False


cdef int grow_plans(Search* q) noexcept nogil:
    """Twice the room for plans; -1 when memory runs out (the plans are kept)."""
    cdef Plan* grown = <Plan*>realloc(q.plans, <size_t>2 * q.room * sizeof(Plan))
    if grown == NULL:
        return -1
    q.plans = grown
    q.room *= 2
    return 0


cdef inline bint commute(const int* pay_a, const int* gain_a, const int* pay_b,
                         const int* gain_b) noexcept nogil:
    """activation._commute: no resource paid by one step and gained by either."""
    cdef int k
    for k in range(SIZE):
        if (pay_a[k] or pay_b[k]) and (gain_a[k] or gain_b[k]):
            return False
    return True


cdef void visit(Search* q, const Cat* c, int used, const int* have,
                StepSet asleep) noexcept nogil:
    # Depth first with children in (worker, option) order meets sequences in
    # lexicographic order, so the first sequence reaching an outcome is the smallest.
    # A step tried at a node is not taken below a later sibling while the steps taken
    # since commute with it (``asleep``, activation.activation_plans).
    cdef int w, o, card, i, k
    cdef int after[SIZE]
    cdef bint added
    cdef StepSet below
    if q.overflow or dominated(q, used, have):
        return
    if records_put(&q.outcomes, have, &added) < 0 \
            or added and q.nplans == q.room and grow_plans(q) < 0:
        q.overflow = 1
        return
    if added:
        q.plans[q.nplans] = q.path
        memcpy(q.plans[q.nplans].out, have, SIZE * sizeof(int))
        q.nplans += 1
    for w in range(q.nw):
        if used >> w & 1 or (q.before[w] >= 0 and not used >> q.before[w] & 1):
            continue
        card = q.card[w]
        for o in range(q.nopt[w]):
            i = q.step0[w] + o
            if asleep.bits[i >> 6] >> (i & 63) & 1:
                continue
            asleep.bits[i >> 6] |= (<uint64_t>1) << (i & 63)
            if take(have, c.prof_pay[card][o], c.prof_gain[card][o], q.caps, after):
                for k in range(STEP_WORDS):
                    below.bits[k] = asleep.bits[k] & q.commutes[i].bits[k]
                q.path.w[q.path.nsteps] = w
                q.path.o[q.path.nsteps] = o
                q.path.nsteps += 1
                visit(q, c, used | 1 << w, after, below)
                q.path.nsteps -= 1


cdef inline int compare_steps(const Plan* a, const Plan* b) noexcept nogil:
    cdef int i
    for i in range(a.nsteps if a.nsteps < b.nsteps else b.nsteps):
        if a.w[i] != b.w[i]:
            return -1 if a.w[i] < b.w[i] else 1
        if a.o[i] != b.o[i]:
            return -1 if a.o[i] < b.o[i] else 1
    return a.nsteps - b.nsteps


cdef int compare_plan_steps(const void* a, const void* b) noexcept nogil:
    """qsort: plans by steps (distinct plans never have the same steps)."""
    return compare_steps(<const Plan*>a, <const Plan*>b)


cdef inline int outcome_sum(const Plan* p) noexcept nogil:
    cdef int k
    cdef int total = 0
    for k in range(SIZE):
        total += p.out[k]
    return total


cdef int compare_sums(const void* a, const void* b) noexcept nogil:
    """qsort: plans by the sum of their outcome, largest first (ties in any order)."""
    cdef int x = outcome_sum(<const Plan*>a)
    cdef int y = outcome_sum(<const Plan*>b)
    return (x < y) - (x > y)


cdef inline bint at_least(const int* b, const int* a) noexcept nogil:
    cdef int k
    for k in range(SIZE):
        if b[k] < a[k]:
            return False
    return True


cdef int activation_plans(const St* s, const Cat* c, int seat, int place, int exclude,
                          Plan** out, int room) noexcept nogil:
    """activation.activation_plans (pruned): one plan per undominated outcome, sorted by
    steps, into the buffer ``out[0]`` of ``room`` plans, grown as needed (the caller
    frees it); -1 when memory runs out."""
    cdef Search q
    cdef int w, v, i, j, n, o, x, y, nsteps
    cdef const Pl* p = &s.players[seat]
    cdef int start[SIZE]
    cdef bint keep, side
    cdef StepSet none
    cdef int step_card[MAXSTEPS]
    cdef int step_option[MAXSTEPS]
    q.nw = row_workers(s, seat, place, q.card)
    if q.nw > MAXW:
        return -1
    nsteps = 0
    for w in range(q.nw):
        q.nopt[w] = 0 if exclude >> w & 1 else c.prof_nopt[q.card[w]]
        # workers with the same options are interchangeable: one waits for the other
        q.before[w] = -1
        if q.nopt[w]:
            for v in range(w):
                if q.nopt[v] and c.prof_class[q.card[v]] == c.prof_class[q.card[w]]:
                    q.before[w] = v
        q.step0[w] = nsteps
        for o in range(q.nopt[w]):
            step_card[nsteps] = q.card[w]
            step_option[nsteps] = o
            nsteps += 1
    for x in range(nsteps):
        memset(&q.commutes[x], 0, sizeof(StepSet))
        for y in range(nsteps):
            if commute(c.prof_pay[step_card[x]][step_option[x]],
                       c.prof_gain[step_card[x]][step_option[x]],
                       c.prof_pay[step_card[y]][step_option[y]],
                       c.prof_gain[step_card[y]][step_option[y]]):
                q.commutes[x].bits[y >> 6] |= (<uint64_t>1) << (y & 63)
    memset(&none, 0, sizeof(StepSet))
    set_caps(c, p, q.caps)
    q.at_stake = max_vp(s) < s.army
    q.army = s.army
    q.nplans = q.overflow = 0
    q.path.nsteps = 0
    q.room = room
    q.plans = out[0]
    q.seen = q.seen_next = q.heads = NULL
    q.nseen = q.seen_cap = q.seen_next_cap = q.heads_cap = 0
    # the sets grow as the search needs: only memory bounds them
    if (records_init(&q.groups, 1, 64)
            | records_init(&q.outcomes, SIZE, 64)) < 0:
        q.overflow = 1
    else:
        resources(p, c, start)
        visit(&q, c, 0, start, none)
    records_free(&q.groups)
    records_free(&q.outcomes)
    free(q.seen)
    free(q.seen_next)
    free(q.heads)
    out[0] = q.plans
    if q.overflow:
        return -1
    # activation._undominated: by decreasing sums, each outcome against those kept on
    # its side of the army (a skyline), the kept ones moved to the front
    qsort(q.plans, q.nplans, sizeof(Plan), compare_sums)
    n = 0
    for i in range(q.nplans):
        side = q.at_stake and q.plans[i].out[R_VP] >= q.army
        keep = True
        for j in range(n):
            if (q.at_stake and q.plans[j].out[R_VP] >= q.army) == side and \
                    at_least(q.plans[j].out, q.plans[i].out):
                keep = False
                break
        if keep:
            q.plans[n] = q.plans[i]
            n += 1
    qsort(q.plans, n, sizeof(Plan), compare_plan_steps)
    return n


cdef int plans_of(const St* s, const Cat* c, const Fr* f, Plan** out) noexcept nogil:
    """The plans of an activation frame into a new buffer ``out[0]`` (the caller frees
    it, also when the count is -1: memory ran out)."""
    out[0] = <Plan*>malloc(SMALL_ROOM * sizeof(Plan))
    if out[0] == NULL:
        return -1
    return activation_plans(s, c, f.seat, f.ctx[C_PLACE], f.ctx[C_USED], out, SMALL_ROOM)


cdef inline int pair_index(const Cat* c, const int* cards, int w, int o) noexcept nogil:
    """moves.option_pairs: the index of (worker, option) among every worker's options."""
    cdef int k
    cdef int index = o
    for k in range(w):
        index += c.prof_nopt[cards[k]]
    return index


cdef int activation_moves(const St* s, const Cat* c, const Fr* f, mv* moves, int n) noexcept nogil:
    cdef Plan* plans
    cdef int cards[MAXW]
    cdef int count, i, k, j, steps
    cdef mv payload, move
    cdef bint known
    count = plans_of(s, c, f, &plans)
    row_workers(s, f.seat, f.ctx[C_PLACE], cards)
    for i in range(count):
        steps = plans[i].nsteps if plans[i].nsteps < PLAN_STEPS else PLAN_STEPS
        payload = 0
        for k in range(steps):
            payload |= <mv>(pair_index(c, cards, plans[i].w[k], plans[i].o[k]) + 1) << (8 * k)
        move = encode(K_ACTIVATE_PART if plans[i].nsteps > PLAN_STEPS else K_ACTIVATE, payload)
        known = False
        for j in range(n):
            if moves[j] == move:
                known = True
                break
        if not known:
            if n >= MAX_MOVES:
                count = -1
                break
            moves[n] = move
            n += 1
    free(plans)
    return -1 if count < 0 else n


cdef int text_context(const St* s, const Cat* c, mv move, unsigned char* out) noexcept nogil:
    """What the words of ``move`` read from the position beyond the move and the
    catalogue (moves.plan_cards), in TEXT_CONTEXT bytes: only an ACTIVATE move in the
    activation on top reads it, its steps' workers.  ``out[0]`` is 1 when the steps
    name pairs of the row, then ``out[1 + k]`` is step k's profession * MAXOPT + option
    (one byte: MAXPROF * MAXOPT = 256); zero elsewhere.  -1: ``move`` is no Stephens
    move."""
    cdef int kind = <int>(move >> SHIFT)
    cdef int cards[MAXW]
    cdef int codes[PLAN_STEPS]
    cdef int nw, npairs, length, k, w, code
    cdef const Fr* f
    memset(out, 0, TEXT_CONTEXT)
    if move < 0 or kind < K_ACCESSORIES or kind > K_REMOVE:
        return -1
    if kind != K_ACTIVATE and kind != K_ACTIVATE_PART or s.nframes == 0:
        return 0
    f = &s.frames[s.nframes - 1]
    if f.kind != F_ACTIVATION:
        return 0
    nw = row_workers(s, f.seat, f.ctx[C_PLACE], cards)
    npairs = 0
    for w in range(nw):
        npairs += c.prof_nopt[cards[w]]
    length = PLAN_STEPS
    for k in range(PLAN_STEPS):
        codes[k] = <int>(move >> (8 * k) & 0xFF)
        if codes[k] == 0 and length == PLAN_STEPS:
            length = k
        if codes[k] > npairs or (codes[k] and k > length):
            return 0
    for k in range(length):
        code = codes[k] - 1
        w = 0
        while code >= c.prof_nopt[cards[w]]:
            code -= c.prof_nopt[cards[w]]
            w += 1
        out[1 + k] = <unsigned char>(cards[w] * MAXOPT + code)
    out[0] = 1
    return 0


cdef void activate_row(St* s, int place, int first) noexcept nogil:
    """Every player with a worker in the row decides, in turn order from ``first``."""
    cdef int k, seat
    cdef int cards[MAXW]
    cdef Fr* f
    for k in range(s.nplayers - 1, -1, -1):
        seat = (first + k) % s.nplayers
        if row_workers(s, seat, place, cards):
            f = push(s, F_ACTIVATION, seat)
            f.ctx[C_PLACE] = place
            f.ctx[C_USED] = 0


cdef void apply_activation(St* s, const Cat* c, Fr* f, mv move) noexcept nogil:
    """turn.apply_activation_move: the plan's steps, then the colours of its "any" gains."""
    cdef int seat = f.seat
    cdef int place = f.ctx[C_PLACE]
    cdef int used = f.ctx[C_USED]
    cdef int cards[MAXW]
    cdef int nw = row_workers(s, seat, place, cards)
    cdef int nsteps = 0
    cdef int steps_w[PLAN_STEPS]
    cdef int steps_o[PLAN_STEPS]
    cdef int code, w, k, index
    cdef int have[SIZE]
    cdef int before[SIZE]
    cdef int after[SIZE]
    cdef int caps[SIZE]
    cdef int cube_paid, cube_gained, acc_paid, acc_gained
    cdef Pl* p = &s.players[seat]
    cdef Fr* g
    for k in range(PLAN_STEPS):
        code = <int>(move >> (8 * k) & 0xFF)
        if code == 0:
            break
        # the step's (worker, option) pair, from its index among every worker's options
        index = code - 1
        w = 0
        while index >= c.prof_nopt[cards[w]]:
            index -= c.prof_nopt[cards[w]]
            w += 1
        steps_w[nsteps] = w
        steps_o[nsteps] = index
        nsteps += 1
    resources(p, c, before)
    memcpy(have, before, sizeof(have))
    set_caps(c, p, caps)
    for k in range(nsteps):
        w = steps_w[k]
        # a legal plan can pay every step
        if take(have, c.prof_pay[cards[w]][steps_o[k]], c.prof_gain[cards[w]][steps_o[k]],
                caps, after):
            memcpy(have, after, sizeof(have))
    p.coins = have[R_COIN]
    p.influence = have[R_INFLUENCE]
    p.vp = have[R_VP]
    p.forest = have[R_FOREST]
    p.dune = have[R_DUNE]
    cube_gained = have[R_CUBES_GAINED]
    cube_paid = before[R_CUBES] + cube_gained - have[R_CUBES]
    acc_gained = have[R_ACC_GAINED]
    acc_paid = before[R_ACC] + acc_gained - have[R_ACC]
    if move >> SHIFT == K_ACTIVATE_PART:
        for k in range(nsteps):
            used |= 1 << steps_w[k]
        f.ctx[C_USED] = used
    else:
        s.nframes -= 1
    if acc_paid or acc_gained:
        g = push(s, F_ACCESSORIES, seat)
        g.ctx[C_GAINED] = acc_gained
        g.ctx[C_PAID] = acc_paid
    if cube_paid or cube_gained:
        g = push(s, F_CUBES, seat)
        g.ctx[C_GAINED] = cube_gained
        g.ctx[C_PAID] = cube_paid


# -- colours of "any" cubes and accessories (activation.exchanges) ----------------------------
cdef int exchange_moves(const int* held, int kinds, int paid, int gained, int kind,
                        mv* moves, int n) noexcept nogil:
    """Every distinct change of ``held``: ``paid`` items given up (from ``held``, or from
    the items gained when it runs out), ``gained`` of any colour, paying and gaining
    disjoint colours; in activation.exchanges' order."""
    cdef int total = 0
    cdef int paid_held, given, taken, k, nfree, i
    cdef int pay[64]
    cdef int counts[6]
    cdef int free_colours[6]
    cdef int gain[64]
    cdef int delta[6]
    cdef bint more, fits
    cdef mv payload
    for k in range(kinds):
        total += held[k]
    paid_held = paid if paid < total else total
    gained = gained - (paid - paid_held)
    for given in range(paid_held + 1):
        taken = gained - paid_held + given
        if taken < 0:
            continue
        if taken > 64 or given > 64:
            return -1
        # ``pay`` and ``gain`` walk the multisets of colours in
        # itertools.combinations_with_replacement's order, as the reference does
        for i in range(given):
            pay[i] = 0
        more = True
        while more:
            for k in range(kinds):
                counts[k] = 0
            for i in range(given):
                counts[pay[i]] += 1
            fits = True
            for k in range(kinds):
                if counts[k] > held[k]:
                    fits = False
            if fits:
                nfree = 0
                for k in range(kinds):
                    if not counts[k]:
                        free_colours[nfree] = k
                        nfree += 1
                # with every colour paid there is none left to gain in (no exchange),
                # unless nothing is gained
                if nfree or not taken:
                    for i in range(taken):
                        gain[i] = 0
                    while True:
                        for k in range(kinds):
                            delta[k] = -counts[k]
                        for i in range(taken):
                            delta[free_colours[gain[i]]] += 1
                        if n >= MAX_MOVES:
                            return -1
                        payload = 0
                        for k in range(kinds):
                            payload |= <mv>(ZERO + delta[k]) << (8 * k)
                        moves[n] = encode(kind, payload)
                        n += 1
                        if not next_multiset(gain, taken, nfree):
                            break
            more = next_multiset(pay, given, kinds) == 1
    return n


cdef void apply_exchange(int* held, int kinds, mv move) noexcept nogil:
    cdef int k
    for k in range(kinds):
        held[k] += <int>(move >> (8 * k) & 0xFF) - ZERO


# -- acquisition (engine.stephens.acquisition) ------------------------------------------------
cdef void open_acquisition(St* s, const Cat* c, int seat, int pile, bint white) noexcept nogil:
    cdef const Pl* p = &s.players[seat]
    cdef Fr* f
    cdef int left = 1
    if white and has_ability(c, p, E_TWO_CARDS):
        left = c.disk_n[c.effect_disk[E_TWO_CARDS]]
    f = push(s, F_ACQUIRE, seat)
    f.ctx[C_PILE] = pile
    f.ctx[C_LEFT] = left
    f.ctx[C_DISCOUNT] = has_ability(c, p, E_DISCOUNT)
    f.ctx[C_CHEAPEST] = has_ability(c, p, E_DISCARD_CHEAPEST)
    f.ctx[C_FIRST] = -1
    f.ctx[C_ROW] = -1


cdef inline int price(const Cat* c, const Fr* f, int pile, int space, bint* discounted) noexcept nogil:
    cdef int cost = c.contract_costs[space] if pile == CONTRACTS else c.investment_costs[space]
    cdef int cut
    discounted[0] = False
    if f.ctx[C_DISCOUNT] and cost > 1:
        cut = c.disk_n[c.effect_disk[E_DISCOUNT]]
        discounted[0] = True
        return cost - cut if cost - cut > 1 else 1
    return cost


cdef inline bint space_allowed(const Fr* f, int space, int row) noexcept nogil:
    return f.ctx[C_FIRST] < 0 or space > f.ctx[C_FIRST] or (row >= 0 and row == f.ctx[C_ROW])


cdef bint acquirable_after_discard(const St* s, const Cat* c, const Fr* f, int pile) noexcept nogil:
    """acquisition._acquirable_after_discard: C3 only when a card of ``pile`` could be
    acquired after the discard (displays.cards_after_discard; no closed space)."""
    cdef const Pl* p = &s.players[f.seat]
    cdef int nspaces = c.ncdisp if pile == CONTRACTS else c.nidisp
    cdef int budget = p.influence if pile == CONTRACTS else p.coins
    cdef int held = -1
    cdef int k, after
    cdef bint discounted
    if pile == CONTRACTS and p.ncontracts >= c.contract_slots:
        return False
    for k in range(nspaces):
        if (s.cdisplay[k] if pile == CONTRACTS else s.idisplay[k]) >= 0:
            held += 1
    if held < 0:
        return False
    after = held + (s.ncdeck if pile == CONTRACTS else s.nideck)
    if after > nspaces:
        after = nspaces
    for k in range(after):
        if price(c, f, pile, k, &discounted) <= budget:
            return True
    return False


cdef int acquire_moves(const St* s, const Cat* c, const Fr* f, mv* moves, int n) noexcept nogil:
    cdef int kind = f.ctx[C_PILE]
    cdef const Pl* p = &s.players[f.seat]
    cdef int pile, space, card, row
    cdef bint discounted
    if f.ctx[C_CHEAPEST] and f.ctx[C_FIRST] < 0:
        for pile in range(2):
            if (kind == pile or kind == EITHER) and acquirable_after_discard(s, c, f, pile):
                moves[n] = encode(K_DISCARD_CHEAPEST, pile)
                n += 1
    if (kind == CONTRACTS or kind == EITHER) and p.ncontracts < c.contract_slots:
        for space in range(c.ncdisp):
            card = s.cdisplay[space]
            if card >= 0 and space_allowed(f, space, -1) and \
                    price(c, f, CONTRACTS, space, &discounted) <= p.influence:
                moves[n] = encode(K_CONTRACT, card)
                n += 1
    if kind == INVESTMENTS or kind == EITHER:
        for space in range(c.nidisp):
            card = s.idisplay[space]
            if card < 0 or price(c, f, INVESTMENTS, space, &discounted) > p.coins:
                continue
            for row in range(c.ninvrows):
                if c.inv_colour[card] != ANY_COLOUR and c.inv_rows[row] != c.inv_colour[card]:
                    continue
                if space_allowed(f, space, row):
                    moves[n] = encode(K_INVESTMENT, card | row << 8)
                    n += 1
    moves[n] = encode(K_SKIP, 0)
    return n + 1


cdef void finish_acquisition(St* s, const Cat* c, int kind) noexcept nogil:
    """The acquisition ends: the displays slide and refill."""
    s.nframes -= 1
    if kind == CONTRACTS or kind == EITHER:
        slide_and_refill(s, c, CONTRACTS)
    if kind == INVESTMENTS or kind == EITHER:
        slide_and_refill(s, c, INVESTMENTS)


cdef void apply_acquire(St* s, const Cat* c, Fr* f, mv move) noexcept nogil:
    cdef int what = <int>(move >> SHIFT)
    cdef int card = <int>(move & 0xFF)
    cdef int row = -1
    cdef int pile, space, cost
    cdef bint discounted
    cdef signed char* spaces
    cdef Pl* p = &s.players[f.seat]
    if what == K_SKIP:
        finish_acquisition(s, c, f.ctx[C_PILE])
        return
    if what == K_DISCARD_CHEAPEST:
        discard_cheapest(s, c, card)
        f.ctx[C_CHEAPEST] = 0
        f.ctx[C_PILE] = card
        return
    pile = CONTRACTS if what == K_CONTRACT else INVESTMENTS
    spaces = &s.cdisplay[0] if pile == CONTRACTS else &s.idisplay[0]
    space = 0
    while spaces[space] != card:
        space += 1
    cost = price(c, f, pile, space, &discounted)
    spaces[space] = -1
    if pile == CONTRACTS:
        p.influence -= cost
        p.contracts[p.ncontracts] = card
        p.ncontracts += 1
    else:
        row = <int>(move >> 8 & 0xFF)
        p.coins -= cost
        p.investments[row][p.ninvestments[row]] = card
        p.ninvestments[row] += 1
    f.ctx[C_LEFT] -= 1
    f.ctx[C_FIRST] = space
    f.ctx[C_ROW] = row
    f.ctx[C_PILE] = pile
    f.ctx[C_CHEAPEST] = 0
    if discounted:
        f.ctx[C_DISCOUNT] = 0
    if f.ctx[C_LEFT] == 0:
        finish_acquisition(s, c, pile)


# -- the turn's action (engine.stephens.turn) -------------------------------------------------
cdef int action_moves(const St* s, const Cat* c, const Fr* f, mv* moves, int n) noexcept nogil:
    cdef int seat = f.seat
    cdef const Pl* p = &s.players[seat]
    cdef int colour, fur, factory, total, limit, k
    cdef int idx[4]
    cdef int counts[3]
    cdef bint fits
    for colour in range(2):
        if (not f.ctx[C_DISCARDED] and has_ability(c, p, E_DISCARD_PROF)
                and s.pdisplay[display_space(colour, 0)] >= 0
                and s.pdisplay[display_space(colour, 1)] >= 0):
            moves[n] = encode(K_DISCARD, colour)
            n += 1
    for fur in range(4):
        if s.furnaces[fur] > 0:
            moves[n] = encode(K_GLASS, fur)
            n += 1
    limit = products_limit(c, p)
    for factory in range(4):
        for total in range(1, limit + 1):
            for k in range(total):
                idx[k] = 0
            while True:
                counts[0] = counts[1] = counts[2] = 0
                for k in range(total):
                    counts[idx[k]] += 1
                fits = True
                for k in range(3):
                    if counts[k] > s.factories[factory][k]:
                        fits = False
                if fits:
                    moves[n] = encode(K_PRODUCTS, factory | counts[0] << 8 | counts[1] << 16
                                      | counts[2] << 24)
                    n += 1
                if not next_multiset(idx, total, 3):
                    break
    return worker_moves(s, c, seat, moves, n)


cdef void furnace_effect(St* s, const Cat* c, int seat, int furnace, bint white) noexcept nogil:
    if c.furnace_action[furnace] == A_ACTIVATE:
        activate_row(s, furnace_place(furnace), seat)
    else:
        open_acquisition(s, c, seat, CONTRACTS if c.furnace_action[furnace] == A_CONTRACT
                         else INVESTMENTS, white)


cdef void apply_action(St* s, const Cat* c, Fr* f, mv move) noexcept nogil:
    cdef int seat = f.seat
    cdef int kind = <int>(move >> SHIFT)
    cdef int arg = <int>(move & 0xFF)
    cdef Pl* p = &s.players[seat]
    cdef int k, n, total, fur
    if kind == K_DISCARD:
        discard_professions(s, arg)
        f.ctx[C_DISCARDED] = 1
        return
    s.nframes -= 1
    if kind == K_GLASS:
        s.furnaces[arg] -= 1
        p.cubes[c.furnace_colour[arg]] += 1
        furnace_effect(s, c, seat, arg, True)
    elif kind == K_PRODUCTS:
        total = 0
        for k in range(3):
            n = <int>(move >> (8 * (k + 1)) & 0xFF)
            s.factories[arg][k] -= n
            p.cubes[wooden_colour(k)] += n
            total += n
        for fur in range(4):
            if s.furnaces[fur] == 0 and total >= 3:
                push(s, F_EFFECT, seat).ctx[C_FACTORY] = arg
                return
        activate_row(s, factory_place(arg), seat)
    else:
        worker_apply(s, c, seat, move)


cdef int effect_moves(const St* s, const Fr* f, mv* moves, int n) noexcept nogil:
    cdef int fur
    moves[n] = encode(K_EFFECT, EFFECT_ROW + f.ctx[C_FACTORY])
    n += 1
    for fur in range(4):
        if s.furnaces[fur] == 0:
            moves[n] = encode(K_EFFECT, 1 + fur)
            n += 1
    return n


cdef void apply_effect(St* s, const Cat* c, const Fr* f, mv move) noexcept nogil:
    cdef int payload = <int>(move & 0xFF)
    cdef int seat = f.seat
    s.nframes -= 1
    if payload >= EFFECT_ROW:
        activate_row(s, factory_place(payload - EFFECT_ROW), seat)
    else:
        furnace_effect(s, c, seat, payload - 1, False)


# -- the reset phase (engine.stephens.reset, investments, contracts) ---------------------------
cdef int investment_columns(const St* s, const Cat* c, int seat, int* forest, int* dune,
                            int* vp, int* cubes) noexcept nogil:
    """investments.investment_columns: per column its costs, VP and cubes (3 per column)."""
    cdef const Pl* p = &s.players[seat]
    cdef int count = 0
    cdef int r, k, card, colour, i
    for r in range(c.ninvrows):
        if p.ninvestments[r] > count:
            count = p.ninvestments[r]
    if count > MAXCOLS:
        return -1
    for k in range(count):
        forest[k] = dune[k] = vp[k] = 0
        cubes[3 * k] = cubes[3 * k + 1] = cubes[3 * k + 2] = 0
        for r in range(c.ninvrows):
            if k >= p.ninvestments[r]:
                continue
            card = p.investments[r][k]
            forest[k] += c.inv_forest[card]
            dune[k] += c.inv_dune[card]
            vp[k] += c.inv_vp[card]
            colour = c.inv_colour[card]
            if colour != ANY_COLOUR:
                for i in range(3):
                    if wooden_colour(i) == colour:
                        cubes[3 * k + i] += c.inv_cubes[card]
    return count


cdef int columns_moves(const St* s, const Cat* c, int seat, mv* moves, int n) noexcept nogil:
    """investments.column_sets: every affordable set, by size then lexicographically."""
    cdef int forest[MAXCOLS]
    cdef int dune[MAXCOLS]
    cdef int vp[MAXCOLS]
    cdef int cubes[3 * MAXCOLS]
    cdef int idx[MAXCOLS]
    cdef int count = investment_columns(s, c, seat, forest, dune, vp, cubes)
    cdef int size, i, j, need_forest, need_dune
    cdef mv mask
    cdef const Pl* p = &s.players[seat]
    if count < 0:
        return -1
    for size in range(count + 1):
        for i in range(size):
            idx[i] = i
        while True:
            need_forest = need_dune = 0
            mask = 0
            for i in range(size):
                need_forest += forest[idx[i]]
                need_dune += dune[idx[i]]
                mask |= <mv>1 << idx[i]
            if need_forest <= p.forest and need_dune <= p.dune:
                if n >= MAX_MOVES:
                    return -1
                moves[n] = encode(K_COLUMNS, mask)
                n += 1
            # the next combination of ``size`` indices, as itertools.combinations
            i = size - 1
            while i >= 0 and idx[i] == i + count - size:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, size):
                idx[j] = idx[j - 1] + 1
    return n


cdef void apply_columns(St* s, const Cat* c, int seat, mv move) noexcept nogil:
    cdef int forest[MAXCOLS]
    cdef int dune[MAXCOLS]
    cdef int vp[MAXCOLS]
    cdef int cubes[3 * MAXCOLS]
    cdef int count = investment_columns(s, c, seat, forest, dune, vp, cubes)
    cdef int k, i
    cdef Pl* p = &s.players[seat]
    s.nframes -= 1
    for k in range(count):
        if move >> k & 1:
            p.forest -= forest[k]
            p.dune -= dune[k]
            p.vp += vp[k]
            for i in range(3):
                p.reserved[i] += cubes[3 * k + i]


cdef bint completable(const Cat* c, int start, int a, int b, int k) noexcept nogil:
    """supply.completable: ``(a, b, k)`` cubes can be supplied exactly from ``start`` on."""
    cdef int i
    if a == 0 and b == 0 and k == 0:
        return True
    for i in range(start, c.nbonus):
        if (c.bonus_deliver[i][0] <= a and c.bonus_deliver[i][1] <= b
                and c.bonus_deliver[i][2] <= k):
            if completable(c, i, a - c.bonus_deliver[i][0], b - c.bonus_deliver[i][1],
                           k - c.bonus_deliver[i][2]):
                return True
    return False


cdef int supply_moves(const St* s, const Cat* c, const Fr* f, mv* moves, int n) noexcept nogil:
    cdef const int* left = &s.players[f.seat].reserved[0]
    cdef int b
    for b in range(f.ctx[C_S_LAST] if f.ctx[C_S_LAST] > 0 else 0, c.nbonus):
        if (c.bonus_deliver[b][0] <= left[0] and c.bonus_deliver[b][1] <= left[1]
                and c.bonus_deliver[b][2] <= left[2]
                and completable(c, b, left[0] - c.bonus_deliver[b][0],
                                left[1] - c.bonus_deliver[b][1],
                                left[2] - c.bonus_deliver[b][2])):
            moves[n] = encode(K_SUPPLY, b)
            n += 1
    return n


cdef void apply_supply(St* s, const Cat* c, Fr* f, mv move) noexcept nogil:
    cdef int b = <int>(move & 0xFF)
    cdef int seat = f.seat
    cdef Pl* p = &s.players[seat]
    cdef int i, acquire, influence, assign, accessories
    cdef Fr* g
    for i in range(3):
        s.factories[c.bonus_factory[b]][i] += c.bonus_deliver[b][i]
        p.reserved[i] -= c.bonus_deliver[b][i]
    if c.bonus_gain[b] == G_COIN:
        p.coins += c.bonus_n[b]
    elif c.bonus_gain[b] == G_ACCESSORY:
        f.ctx[C_S_ACC] += c.bonus_n[b]
    elif c.bonus_gain[b] == G_INFLUENCE:
        f.ctx[C_S_INFLUENCE] += c.bonus_n[b]
    elif c.bonus_gain[b] == G_ACQUIRE:
        f.ctx[C_S_ACQUIRE] += c.bonus_n[b]
    else:
        f.ctx[C_S_ASSIGN] += c.bonus_n[b]
    if p.reserved[0] or p.reserved[1] or p.reserved[2]:
        f.ctx[C_S_LAST] = b
        return
    acquire = f.ctx[C_S_ACQUIRE]
    influence = f.ctx[C_S_INFLUENCE]
    assign = f.ctx[C_S_ASSIGN]
    accessories = f.ctx[C_S_ACC]
    s.nframes -= 1
    # Pushed bottom first: the acquisitions are made last, the accessory types first.
    for i in range(acquire):
        open_acquisition(s, c, seat, EITHER, False)
    if influence:
        push(s, F_INFLUENCE, seat).ctx[C_N] = influence
    for i in range(assign):
        push(s, F_ASSIGN, seat)
    if accessories:
        g = push(s, F_ACCESSORIES, seat)
        g.ctx[C_PAID] = 0
        g.ctx[C_GAINED] = accessories


ctypedef struct Payment:
    int cubes[6]
    int placed[MAXACC]


cdef inline int compare_payments(const Payment* a, const Payment* b, int nacc) noexcept nogil:
    cdef int k
    for k in range(6):
        if a.cubes[k] != b.cubes[k]:
            return a.cubes[k] - b.cubes[k]
    for k in range(nacc):
        if a.placed[k] != b.placed[k]:
            return a.placed[k] - b.placed[k]
    return 0


cdef int payments(const St* s, const Cat* c, int seat, int contract, Payment* out,
                  int room) noexcept nogil:
    """contracts.fulfilment_payments: the undominated ways to pay, sorted, into ``out``
    (``room`` payments); -1 when they or the cube vectors do not fit."""
    cdef const Pl* p = &s.players[seat]
    cdef int replace = 0
    cdef int* buffer = <int*>malloc(2 * room * 6 * sizeof(int))
    cdef int* vectors = buffer
    cdef int* grown
    cdef int* swap
    cdef int nvec = 1
    cdef int ngrown, colour, count, base, i, j, k, npayers, nplace, n
    cdef int payers[6]
    cdef int idx[32]
    cdef int vector[6]
    cdef int left[MAXACC]
    cdef int placements[MAX_PLACEMENTS][MAXACC]
    cdef bint dup, ok, covered
    cdef Payment tmp
    if buffer == NULL:
        return -1
    grown = vectors + room * 6
    if has_ability(c, p, E_CUBE_REPL):
        replace = c.disk_per[c.effect_disk[E_CUBE_REPL]]
    memset(vectors, 0, 6 * sizeof(int))
    # Every cube vector: each required cube itself or, with the replacement
    # ability, ``replace`` cubes of one other colour (a set: duplicates dropped).
    for colour in range(6):
        count = c.con_cubes[contract][colour]
        if count == 0:
            continue
        if count > 32:
            free(buffer)
            return -1
        payers[0] = colour
        npayers = 1
        if replace:
            for k in range(6):
                if k != colour:
                    payers[npayers] = k
                    npayers += 1
        ngrown = 0
        for base in range(nvec):
            for i in range(count):
                idx[i] = 0
            while True:
                memcpy(vector, vectors + 6 * base, sizeof(vector))
                for i in range(count):
                    vector[payers[idx[i]]] += 1 if payers[idx[i]] == colour else replace
                # Later colours only add cubes: a vector the seat cannot pay now never
                # becomes payable, so it is dropped here rather than grown (the set of
                # vectors grows combinatorially with the replacement ability).
                dup = False
                for k in range(6):
                    if vector[k] > p.cubes[k]:
                        dup = True
                        break
                for j in range(ngrown if not dup else 0):
                    if same_cubes(grown + 6 * j, vector):
                        dup = True
                        break
                if not dup:
                    if ngrown >= room:
                        free(buffer)
                        return -1
                    memcpy(grown + 6 * ngrown, vector, sizeof(vector))
                    ngrown += 1
                if not next_multiset(idx, count, npayers):
                    break
        swap = vectors
        vectors = grown
        grown = swap
        nvec = ngrown
    # the affordable vectors that no other affordable one undercuts
    n = 0
    for i in range(nvec):
        ok = True
        for k in range(6):
            if vectors[6 * i + k] > p.cubes[k]:
                ok = False
        if ok:
            memcpy(grown + 6 * n, vectors + 6 * i, 6 * sizeof(int))
            n += 1
    nvec = 0
    for i in range(n):
        covered = False
        for j in range(n):
            if j == i or same_cubes(grown + 6 * j, grown + 6 * i):
                continue
            covered = True
            for k in range(6):
                if grown[6 * j + k] > grown[6 * i + k]:
                    covered = False
                    break
            if covered:
                break
        if not covered:
            memcpy(vectors + 6 * nvec, grown + 6 * i, 6 * sizeof(int))
            nvec += 1
    for k in range(c.nacc):
        left[k] = p.accessories[k] - c.con_acc[contract][k]
        if left[k] < 0:
            free(buffer)
            return 0
    # the types of the "any" accessories placed on the card
    nplace = 0
    count = c.con_any[contract]
    if count > 32:
        free(buffer)
        return -1
    for i in range(count):
        idx[i] = 0
    while True:
        for k in range(c.nacc):
            placements[nplace][k] = 0
        for i in range(count):
            placements[nplace][idx[i]] += 1
        ok = True
        for k in range(c.nacc):
            if placements[nplace][k] > left[k]:
                ok = False
        if ok:
            nplace += 1
        if nplace >= MAX_PLACEMENTS or not next_multiset(idx, count, c.nacc):
            break
    if nvec * nplace > room:
        free(buffer)
        return -1
    n = 0
    for i in range(nvec):
        for j in range(nplace):
            memcpy(out[n].cubes, vectors + 6 * i, 6 * sizeof(int))
            memcpy(out[n].placed, placements[j], MAXACC * sizeof(int))
            n += 1
    free(buffer)
    for i in range(1, n):
        tmp = out[i]
        j = i - 1
        while j >= 0 and compare_payments(&out[j], &tmp, c.nacc) > 0:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = tmp
    return n


cdef inline bint same_cubes(const int* a, const int* b) noexcept nogil:
    """Whether two cube vectors are equal."""
    cdef int k
    for k in range(6):
        if a[k] != b[k]:
            return False
    return True


cdef int fulfil_moves(const St* s, const Cat* c, const Fr* f, mv* moves, int n) noexcept nogil:
    cdef const Pl* p = &s.players[f.seat]
    cdef unsigned char contracts[MAXCON]
    cdef Payment* pays = <Payment*>malloc(SMALL_ROOM * sizeof(Payment))
    cdef int room = SMALL_ROOM
    cdef int i, j, k, count, contract
    cdef mv payload
    if pays == NULL:
        return -1
    memcpy(contracts, p.contracts, p.ncontracts)
    sort_bytes(contracts, p.ncontracts)
    for i in range(p.ncontracts):
        contract = contracts[i]
        if c.con_type[contract] < f.ctx[C_TYPE]:
            continue
        count = payments(s, c, f.seat, contract, pays, room)
        if count < 0 and room == SMALL_ROOM:
            free(pays)
            room = LARGE_ROOM
            pays = <Payment*>malloc(room * sizeof(Payment))
            if pays == NULL:
                return -1
            count = payments(s, c, f.seat, contract, pays, room)
        if count < 0 or n + count >= MAX_MOVES:
            free(pays)
            return -1
        for j in range(count):
            payload = contract
            for k in range(6):
                payload |= <mv>pays[j].cubes[k] << (8 + 4 * k)
            for k in range(c.nacc):
                payload |= <mv>pays[j].placed[k] << (32 + 4 * k)
            moves[n] = encode(K_FULFIL, payload)
            n += 1
    free(pays)
    moves[n] = encode(K_SKIP, 0)
    return n + 1


cdef void apply_fulfil(St* s, const Cat* c, Fr* f, mv move) noexcept nogil:
    cdef int contract = <int>(move & 0xFF)
    cdef Pl* p = &s.players[f.seat]
    cdef int k, placed, row
    if move >> SHIFT == K_SKIP:
        s.nframes -= 1
        return
    for k in range(6):
        p.cubes[k] -= <int>(move >> (8 + 4 * k) & 0xF)
    for k in range(c.nacc):
        placed = <int>(move >> (32 + 4 * k) & 0xF)
        p.accessories[k] -= c.con_acc[contract][k] + placed
        p.placed[k] += placed
    remove_byte(p.contracts, &p.ncontracts, contract)
    row = c.con_row[contract]
    p.fulfilled[row][p.nfulfilled[row]] = contract
    p.nfulfilled[row] += 1
    f.ctx[C_TYPE] = c.con_type[contract]


cdef void start_reset(St* s, int trigger, bint final) noexcept nogil:
    cdef Fr* f = push(s, F_RESET, trigger)
    f.ctx[C_STEP] = RESET_VP if final else ARMY
    f.ctx[C_FINAL] = final


cdef void run_reset_step(St* s, const Cat* c, Fr* f) noexcept nogil:
    """Run the reset step the frame names; the decisions it asks for go above it."""
    cdef int step = f.ctx[C_STEP]
    cdef int first = f.seat
    cdef int k, seat, fur, refill, disk, count, i
    cdef int forest[MAXCOLS]
    cdef int dune[MAXCOLS]
    cdef int vp[MAXCOLS]
    cdef int cubes[3 * MAXCOLS]
    cdef Fr* g
    cdef Pl* p
    if step == DONE:
        s.nframes -= 1
        return
    f.ctx[C_STEP] = solo_next_reset_step(step) if is_solo(s) else step + 1
    if step == ARMY:
        s.army = s.army - c.army_step if s.army > c.army_step else 0
        if is_solo(s):
            note_final_reset(s, c)
    elif step == REFILL:
        refill = c.refill[s.army][0 if s.nplayers == 4 else 1 if s.nplayers == 3 else 2]
        for fur in range(4):
            if s.furnaces[fur] == 0:
                s.furnaces[fur] = refill
    elif step == RESET_VP:
        disk = c.effect_disk[E_RESET_VP]
        for k in range(s.nplayers):
            p = &s.players[(first + k) % s.nplayers]
            if p.unlocked[disk]:
                p.vp += c.disk_vp[disk]
    elif step == INVESTMENTS_STEP:
        for k in range(s.nplayers - 1, -1, -1):
            seat = (first + k) % s.nplayers
            count = investment_columns(s, c, seat, forest, dune, vp, cubes)
            if count < 0:
                s.overflow = 1
            elif count:
                push(s, F_COLUMNS, seat)
    elif step == EMPTY_FACTORIES:
        memset(s.factories, 0, sizeof(s.factories))
    elif step == SUPPLY_STEP:
        if is_solo(s):  # the Automa supplies first (L1589-L1596)
            automa_supply(s, c)
        for k in range(s.nplayers - 1, -1, -1):
            seat = (first + k) % s.nplayers
            p = &s.players[seat]
            if p.reserved[0] or p.reserved[1] or p.reserved[2]:
                g = push(s, F_SUPPLY, seat)
                g.ctx[C_S_LAST] = -1
    elif step == FULFIL_STEP:
        for k in range(s.nplayers - 1, -1, -1):
            seat = (first + k) % s.nplayers
            if s.players[seat].ncontracts:
                push(s, F_FULFIL, seat)


include "stephens_solo.pxi"


# -- the flow (engine.stephens.flow) ----------------------------------------------------------
cdef inline void check_end(St* s) noexcept nogil:
    if is_solo(s):  # no score ends the solo game (A-12)
        return
    if s.end_round == 0 and max_vp(s) >= s.army:
        s.end_round = s.round


cdef void run_turn(St* s, Fr* f) noexcept nogil:
    cdef int stage = f.ctx[C_STAGE]
    cdef int fur, empty
    cdef Fr* g
    if stage == BEGIN:
        f.ctx[C_STAGE] = END
        push(s, F_ACTION, s.active)
        return
    if stage == END:
        s.nframes -= 1
        if is_solo(s) and s.final_reset:  # solo.last_turn_over
            return
        if (s.end_round > 0 and s.round == s.end_round + 1
                and s.active == s.nplayers - 1):
            start_reset(s, s.active, True)
            return
        push(s, F_TURN, s.active).ctx[C_STAGE] = PASS
        empty = 0
        for fur in range(4):
            empty += s.furnaces[fur] == 0
        if empty >= 2:
            start_reset(s, s.active, False)
        return
    s.nframes -= 1
    if is_solo(s):  # solo.automa_turn
        push(s, F_AUTOMA, 0).ctx[C_STAGE] = AUTOMA_ACT
        return
    s.active = (s.active + 1) % s.nplayers
    if s.active == 0:
        s.round += 1
    push(s, F_TURN, s.active).ctx[C_STAGE] = BEGIN


cdef int gen_moves(const St* s, const Cat* c, mv* moves) noexcept nogil:
    """The legal moves of the decision on top, in the reference's order; -1 when a
    fixed bound is hit."""
    cdef const Fr* f
    cdef const Pl* p
    cdef int n
    if s.nframes == 0 or s.overflow:
        return 0 if not s.overflow else -1
    f = &s.frames[s.nframes - 1]
    p = &s.players[f.seat]
    if f.kind == F_ACCESSORY:
        return accessory_sets(s, c, p.accessories, moves, exchange_moves(
            p.accessories, c.nacc, 0, 1, K_ACCESSORIES, moves, 0))
    if f.kind == F_ACCESSORIES:
        return accessory_sets(s, c, p.accessories, moves, exchange_moves(
            p.accessories, c.nacc, f.ctx[C_PAID], f.ctx[C_GAINED], K_ACCESSORIES, moves, 0))
    if f.kind == F_CUBES:
        return exchange_moves(p.cubes, 6, f.ctx[C_PAID], f.ctx[C_GAINED], K_CUBES, moves, 0)
    if f.kind == F_UNLOCK:
        return unlock_moves(s, c, f.seat, moves, 0)
    if f.kind == F_ACTION:
        return action_moves(s, c, f, moves, 0)
    if f.kind == F_EFFECT:
        return effect_moves(s, f, moves, 0)
    if f.kind == F_ACTIVATION:
        return activation_moves(s, c, f, moves, 0)
    if f.kind == F_ACQUIRE:
        return acquire_moves(s, c, f, moves, 0)
    if f.kind == F_ASSIGN:
        n = worker_moves(s, c, f.seat, moves, 0)
        moves[n] = encode(K_SKIP, 0)
        return n + 1
    if f.kind == F_COLUMNS:
        return columns_moves(s, c, f.seat, moves, 0)
    if f.kind == F_SUPPLY:
        return supply_moves(s, c, f, moves, 0)
    if f.kind == F_FULFIL:
        return fulfil_moves(s, c, f, moves, 0)
    if f.kind == F_REMOVE:
        return remove_moves(s, f, moves, 0)
    return -1


cdef void apply_decision(St* s, const Cat* c, mv move) noexcept nogil:
    """Play a legal move of the decision on top (the handlers of engine.stephens.flow)."""
    cdef Fr* f = &s.frames[s.nframes - 1]
    cdef int kind = f.kind
    cdef int seat = f.seat
    cdef Pl* p = &s.players[seat]
    if kind == F_ACCESSORY or kind == F_ACCESSORIES:
        s.nframes -= 1
        apply_exchange(p.accessories, c.nacc, move)
    elif kind == F_CUBES:
        s.nframes -= 1
        apply_exchange(p.cubes, 6, move)
    elif kind == F_UNLOCK:
        s.nframes -= 1
        p.unlocked[move & 0xFF] = 1
    elif kind == F_ACTION:
        apply_action(s, c, f, move)
    elif kind == F_EFFECT:
        apply_effect(s, c, f, move)
    elif kind == F_ACTIVATION:
        apply_activation(s, c, f, move)
    elif kind == F_ACQUIRE:
        apply_acquire(s, c, f, move)
    elif kind == F_ASSIGN:
        s.nframes -= 1
        if move >> SHIFT != K_SKIP:
            worker_apply(s, c, seat, move)
    elif kind == F_COLUMNS:
        apply_columns(s, c, seat, move)
    elif kind == F_SUPPLY:
        apply_supply(s, c, f, move)
    elif kind == F_FULFIL:
        apply_fulfil(s, c, f, move)
    elif kind == F_REMOVE:
        apply_remove(s, move)


cdef int advance(St* s, const Cat* c, mv* moves) noexcept nogil:
    """flow.advance: run procedures and single-option decisions until a real choice or
    the end; returns the legal moves of that choice in ``moves`` (-1: a bound was hit)."""
    cdef Fr* f
    cdef int n
    while True:
        check_end(s)
        if s.overflow:
            return -1
        if s.nframes == 0:
            return 0
        f = &s.frames[s.nframes - 1]
        if f.kind == F_TURN:
            run_turn(s, f)
            continue
        if f.kind == F_RESET:
            run_reset_step(s, c, f)
            continue
        if f.kind == F_INFLUENCE:
            s.nframes -= 1
            gain_influence(c, &s.players[f.seat], f.ctx[C_N])
            continue
        if f.kind == F_AUTOMA:
            run_automa(s, c, f)
            continue
        n = gen_moves(s, c, moves)
        if n != 1:
            return n
        apply_decision(s, c, moves[0])


cdef long c_rollout(St* s, const Cat* c, uint64_t* rng, long max_moves,
                    int* err) noexcept nogil:
    """Random moves to the end, as ``StephensState.rollout``, or at most ``max_moves``
    of them (0: no bound), as ``engine.game.play_random_moves``; returns the moves chosen."""
    cdef mv* moves = <mv*>malloc(MAX_MOVES * sizeof(mv))
    cdef long steps
    err[0] = 0
    if moves == NULL:
        err[0] = 1
        return 0
    steps = c_rollout_from(s, c, rng, max_moves, err, moves, gen_moves(s, c, moves))
    free(moves)
    return steps


cdef long c_rollout_from(St* s, const Cat* c, uint64_t* rng, long max_moves, int* err,
                         mv* moves, int n) noexcept nogil:
    """c_rollout from a position whose ``n`` legal moves are already in ``moves`` (room
    for MAX_MOVES), as the search has them after playing into it."""
    cdef long steps = 0
    err[0] = 0
    while n > 0 and (max_moves == 0 or steps < max_moves):
        apply_decision(s, c, moves[furnace_splitmix64(rng) % <uint64_t>n])
        n = advance(s, c, moves)
        steps += 1
    if n < 0:
        err[0] = 1
    return steps


cdef long c_guided_rollout(St* s, const Cat* c, uint64_t* rng, const double* values,
                           double epsilon, int* trace, long capacity, long max_moves,
                           int* err) noexcept nogil:
    """Epsilon-greedy moves over ``values``, as ``engine.guided_playout``, with the moves
    on the heap (too many for the stack); returns the decisions recorded in ``trace``."""
    cdef mv* moves = <mv*>malloc(MAX_MOVES * sizeof(mv))
    cdef int n, seat, index
    cdef long played = 0
    cdef long recorded = 0
    err[0] = 0
    if moves == NULL:
        err[0] = 1
        return 0
    n = gen_moves(s, c, moves)
    while n > 0 and (max_moves == 0 or played < max_moves):
        seat = s.frames[s.nframes - 1].seat
        index = guided_choice(moves, n, seat, values, epsilon, rng)
        if recorded < capacity:
            trace[recorded] = (seat << MOVE_SLOT_BITS) + move_slot(moves[index])
            recorded += 1
        apply_decision(s, c, moves[index])
        n = advance(s, c, moves)
        played += 1
    if n < 0:
        err[0] = 1
    free(moves)
    return recorded


# -- catalogue ----------------------------------------------------------------------------
cdef int fill_catalogue(Cat* c, object catalogue) except -1:
    """Stephens' board, cards, bonuses and solo Automa into ``c``."""
    cdef int i, j, k
    board = catalogue.board
    bounds = ((catalogue.professions, MAXPROF, "professions"),
              (catalogue.contracts, MAXCON, "contracts"),
              (catalogue.investments, MAXINV, "investments"),
              (catalogue.disks, MAXDISK, "disks"),
              (catalogue.accessories, MAXACC + 1, "accessory types"),
              (catalogue.bonuses, MAXBONUS + 1, "supply combinations"),
              (catalogue.contract_costs, MAXDISP + 1, "contract display spaces"),
              (catalogue.investment_costs, MAXDISP + 1, "investment display spaces"),
              (board.investment_rows, MAXROWS + 1, "investment rows"),
              (board.contract_rows, MAXROWS + 1, "contract rows"))
    for items, bound, what in bounds:
        if len(items) >= bound:
            raise ValueError(f"the Stephens kernel supports fewer than {bound} {what}")
    for side in range(2):
        if sum(prof.side == side for prof in catalogue.professions) > MAXW:
            raise ValueError(f"the Stephens kernel supports {MAXW} professions a side "
                             "at most")
    for colour in board.investment_rows:
        if sum(inv.colour in (colour, ANY) for inv in catalogue.investments) > MAXCOLS:
            raise ValueError(f"the Stephens kernel supports rows of {MAXCOLS} "
                             "investments at most")
    if ANY != ANY_COLOUR or NOBODY != NO_SEAT:
        raise ValueError("the kernel's empty-space codes differ from the vocabulary's")
    if len(catalogue.furnaces) != 4:
        raise ValueError("the Stephens kernel supports 4 furnaces")
    c.nprof = len(catalogue.professions)
    c.ncon = len(catalogue.contracts)
    c.ninv = len(catalogue.investments)
    c.ndisk = len(catalogue.disks)
    c.nacc = len(catalogue.accessories)
    c.nbonus = len(catalogue.bonuses)
    c.ncdisp = len(catalogue.contract_costs)
    c.nidisp = len(catalogue.investment_costs)
    classes = {}
    for i, prof in enumerate(catalogue.professions):
        c.prof_side[i] = prof.side
        c.prof_has_apprentice[i] = prof.has_apprentice_space
        for k, space in enumerate(prof.spaces[:2]):
            c.prof_coins[i][k] = space.coins
            c.prof_influence[i][k] = space.influence
        options = concrete_options(prof.benefit)
        if len(options) > MAXOPT:
            raise ValueError(f"{prof.id}: too many benefit options for the kernel")
        c.prof_nopt[i] = len(options)
        for k, choice in enumerate(options):
            for j in range(SIZE):
                c.prof_pay[i][k][j] = choice.pay[j]
                c.prof_gain[i][k][j] = choice.gain[j]
        c.prof_class[i] = classes.setdefault(options, i)
    for i, con in enumerate(catalogue.contracts):
        c.con_type[i] = con.type
        c.con_row[i] = board.contract_rows.index(con.type)
        for k in range(6):
            c.con_cubes[i][k] = con.cubes[k]
        for k in range(c.nacc):
            c.con_acc[i][k] = con.accessories[k]
        c.con_any[i] = con.any_accessories
        c.con_cube_count[i] = con.cube_count
    for i, inv in enumerate(catalogue.investments):
        c.inv_colour[i] = inv.colour
        c.inv_cubes[i] = inv.cubes
        c.inv_vp[i] = inv.vp
        c.inv_forest[i] = inv.forest
        c.inv_dune[i] = inv.dune
    for i, disk in enumerate(catalogue.disks):
        c.disk_effect[i] = EFFECTS.index(disk.effect)
        c.disk_space[i] = disk.space
        if len(disk.requires) > MAXREQ:
            raise ValueError(f"{disk.id}: too many required disks for the kernel")
        c.disk_nreq[i] = len(disk.requires)
        for k, r in enumerate(disk.requires):
            c.disk_req[i][k] = r
        c.disk_vp[i] = disk.vp
        c.disk_per[i] = disk.per
        c.disk_n[i] = disk.n
    for k, effect in enumerate(EFFECTS):
        found = catalogue.disks_with(effect)
        c.effect_disk[k] = found[0] if len(found) == 1 else -1
    for k in (E_RESET_VP, E_FINAL_CUBES, E_FINAL_COINS, E_FINAL_INFLUENCE, E_FINAL_ACC,
              E_CUBE_REPL, E_TWO_CARDS, E_DISCOUNT):
        if c.effect_disk[k] < 0:
            raise ValueError(f"the kernel needs exactly one disk with {EFFECTS[k]}")
    for i, bonus in enumerate(catalogue.bonuses):
        c.bonus_factory[i] = bonus.factory
        for k in range(3):
            c.bonus_deliver[i][k] = bonus.deliver[k]
        c.bonus_gain[i] = BONUS_GAINS.index(bonus.gain)
        c.bonus_n[i] = bonus.n
    for i, furnace in enumerate(catalogue.furnaces):
        c.furnace_colour[i] = furnace.colour
        c.furnace_action[i] = FURNACE_ACTIONS.index(furnace.action)
    for i, cost in enumerate(catalogue.contract_costs):
        c.contract_costs[i] = cost
    for i, cost in enumerate(catalogue.investment_costs):
        c.investment_costs[i] = cost
    c.contract_slots = board.contract_slots
    c.ninvrows = len(board.investment_rows)
    for i, colour in enumerate(board.investment_rows):
        c.inv_rows[i] = colour
    c.ncrows = len(board.contract_rows)
    c.influence_max = board.influence_max
    for track in (catalogue.forest, catalogue.dune):
        if len(track.sector_from) > 8:
            raise ValueError("the kernel supports at most 8 track sectors")
    c.forest_top = catalogue.forest.top
    c.nforest = len(catalogue.forest.sector_from)
    for k, (first, vp) in enumerate(zip(catalogue.forest.sector_from,
                                        catalogue.forest.sector_vp)):
        c.forest_from[k] = first
        c.forest_vp[k] = vp
    c.dune_top = catalogue.dune.top
    c.ndune = len(catalogue.dune.sector_from)
    for k, (first, vp) in enumerate(zip(catalogue.dune.sector_from,
                                        catalogue.dune.sector_vp)):
        c.dune_from[k] = first
        c.dune_vp[k] = vp
    c.army_step = catalogue.army.step
    if catalogue.army.start > MAXARMY or c.army_step <= 0:
        raise ValueError(f"the kernel supports an army from space {MAXARMY} at most")
    for i in range(MAXARMY + 1):
        c.refill[i][0] = c.refill[i][1] = c.refill[i][2] = -1
    for space, cubes in catalogue.army.refills:
        if 0 <= space <= MAXARMY:
            for k in range(3):
                c.refill[space][k] = cubes[k]
    for i, vp in enumerate(catalogue.master_vp):
        c.master_vp[i] = vp
    h = stephens_heuristic
    c.h_coin, c.h_influence, c.h_cube = h.COIN, h.INFLUENCE, h.CUBE
    c.h_accessory, c.h_reserved = h.ACCESSORY, h.RESERVED
    c.h_contract_base, c.h_contract_held = h.CONTRACT_BASE, h.CONTRACT_HELD
    c.h_column_share, c.h_track_progress = h.COLUMN_SHARE, h.TRACK_PROGRESS
    c.h_row_activations = h.ROW_ACTIVATIONS
    for i, prof in enumerate(catalogue.professions):
        c.prof_worth[i] = h._benefit_worth(prof.benefit)
    for i, disk in enumerate(catalogue.disks):
        c.disk_value[i] = h.ABILITY_VALUE.get(disk.effect, 0.0)
    _fill_solo(c, catalogue)
    return 0


cdef int _fill_solo(Cat* c, object catalogue) except -1:
    """The solo game's numbers: the Automa's cards, the worker supply card, the
    difficulties and the opponent cards' standing rules."""
    cdef int i, k
    solo = catalogue.solo
    if (len(solo.automa_cards) > MAXAUTOMA or len(solo.worker_supply) > MAXSUPPLYCARD
            or len(solo.difficulties) > MAXDIFF or len(solo.opponents) > MAXOPP
            or any(len(card.action.costs) > MAXAUTOMA_COSTS for card in solo.automa_cards)
            or max(solo.worker_supply, default=0) > MAXREMOVE):
        raise ValueError("the solo game's cards exceed the Stephens kernel's bounds")
    c.nautoma = len(solo.automa_cards)
    for i, card in enumerate(solo.automa_cards):
        action = card.action
        c.au_kind[i] = AUTOMA_ACTIONS.index(action.kind)
        c.au_start[i] = action.start
        c.au_direction[i] = action.direction
        c.au_ncosts[i] = len(action.costs)
        for k, cost in enumerate(action.costs):
            c.au_costs[i][k] = cost
        c.au_position[i] = action.position
        c.au_disk[i] = card.disk
        c.au_supply_cubes[i] = card.supply_cubes
        c.au_supply_start[i] = card.supply_start
        c.au_supply_direction[i] = card.supply_direction
    c.nworker_supply = len(solo.worker_supply)
    for i, number in enumerate(solo.worker_supply):
        c.worker_supply[i] = number
    c.ndifficulties = len(solo.difficulties)
    for i, level in enumerate(solo.difficulties):
        c.diff_final[i] = level.final_reset
        c.diff_glassblower[i] = level.ranks[1]
        c.diff_target[i] = level.opponent_target
    c.nopponents = len(solo.opponents)
    for i, opponent in enumerate(solo.opponents):
        c.opp_effect[i] = OPPONENT_EFFECTS.get(opponent.effect, OPP_OTHER)
        c.opp_n[i] = opponent.n
    c.opponent_final_reset = solo.opponent_final_reset
    for i in range(4):
        c.furnace_cycle[i] = FURNACE_CYCLE[i]
        c.factory_cycle[i] = FACTORY_CYCLE[i]
        c.factory_corner[i] = FURNACES.index("FN-" + SMALL_FACTORIES[i][3:])
        row = place_of_furnace(i)
        c.furnace_row[i] = -1 if row is None else row
    c.dir_cw = DIRECTIONS.index("cw")
    c.white = WHITE
    h = stephens_heuristic
    c.h_solo_bias, c.h_solo_early_vp = h.SOLO_BIAS, h.SOLO_EARLY_VP
    c.h_solo_early_resets = h.SOLO_EARLY_RESETS
    return 0


include "kernel_catalogue.pxi"


include "catalogue_cache.pxi"
include "reference_checks.pxi"


cdef void _fill_spaces(signed char* dest, object cards, int nspaces, unsigned char* placed,
                       int ncards, str where) except *:
    """A display of ``nspaces`` spaces, -1 where empty."""
    cdef int i, card
    if len(cards) != nspaces:
        raise ValueError(f"{where} must have {nspaces} spaces")
    for i, value in enumerate(cards):
        if value == -1:
            dest[i] = -1
            continue
        card = _within(value, 0, ncards - 1, f"{where}[{i}]")
        if placed[card]:
            raise ValueError(f"{where}[{i}]: card {card} is in two places")
        placed[card] = 1
        dest[i] = card


cdef inline int track_vp(const int* starts, const int* vps, int count, int position) noexcept nogil:
    """components.Track.vp_at."""
    cdef int k
    cdef int vp = 0
    for k in range(count):
        if position >= starts[k]:
            vp = vps[k]
    return vp


cdef int final_score(const St* s, const Cat* c, int seat) noexcept nogil:
    """scoring.final_score(...).total: every category of the final scoring."""
    cdef const Pl* p = &s.players[seat]
    cdef int total = p.vp
    cdef int place, i, card, k, r, count, cubes, longest, sets, d
    total += track_vp(c.forest_from, c.forest_vp, c.nforest, p.forest)
    total += track_vp(c.dune_from, c.dune_vp, c.ndune, p.dune)
    for place in range(6):
        for i in range(s.nplaces[place]):
            card = s.places[place][i]
            if s.master[card] == seat:
                total += c.master_vp[place]
                if s.apprentice[card] != NO_SEAT:
                    total += 1
    longest = 0
    for r in range(c.ncrows):
        if p.nfulfilled[r] > longest:
            longest = p.nfulfilled[r]
    for k in range(longest):
        count = cubes = 0
        for r in range(c.ncrows):
            if k < p.nfulfilled[r]:
                count += 1
                cubes += c.con_cube_count[p.fulfilled[r][k]]
        total += count * cubes
    if has_ability(c, p, E_FINAL_CUBES):
        d = c.effect_disk[E_FINAL_CUBES]
        cubes = 0
        for k in range(6):
            cubes += p.cubes[k]
        total += cubes // c.disk_per[d] * c.disk_vp[d]
    if has_ability(c, p, E_FINAL_COINS):
        d = c.effect_disk[E_FINAL_COINS]
        total += p.coins // c.disk_per[d] * c.disk_vp[d]
    if has_ability(c, p, E_FINAL_INFLUENCE):
        d = c.effect_disk[E_FINAL_INFLUENCE]
        total += p.influence // c.disk_per[d] * c.disk_vp[d]
    if has_ability(c, p, E_FINAL_ACC):
        sets = p.accessories[0] + p.placed[0]
        for k in range(1, c.nacc):
            if p.accessories[k] + p.placed[k] < sets:
                sets = p.accessories[k] + p.placed[k]
        total += c.disk_vp[c.effect_disk[E_FINAL_ACC]] * sets
    return total


# -- the heuristic (engine.stephens.heuristic) ------------------------------------------------
# Every sum is added in the reference's order, so the values are equal to the last bit.
cdef inline double track_progress(const int* starts, const int* vps, int count,
                                  double weight, int position) noexcept nogil:
    """heuristic.track_progress: the credit for the spaces climbed towards the next
    sector (``weight``: heuristic.TRACK_PROGRESS)."""
    cdef int k
    for k in range(1, count):
        if position < starts[k]:
            return (weight * (vps[k] - vps[k - 1]) * (position - starts[k - 1])
                    / (starts[k] - starts[k - 1]))
    return 0.0


cdef inline double forest_progress(const Cat* c, int position) noexcept nogil:
    return track_progress(c.forest_from, c.forest_vp, c.nforest, c.h_track_progress, position)


cdef inline double dune_progress(const Cat* c, int position) noexcept nogil:
    return track_progress(c.dune_from, c.dune_vp, c.ndune, c.h_track_progress, position)


cdef inline double resource_value(const Cat* c, const int* r) noexcept nogil:
    """heuristic._resource_value of an activation resource vector."""
    return (r[R_VP] + c.h_coin * r[R_COIN] + c.h_influence * r[R_INFLUENCE]
            + c.h_cube * r[R_CUBES] + c.h_accessory * r[R_ACC]
            + track_vp(c.forest_from, c.forest_vp, c.nforest, r[R_FOREST])
            + forest_progress(c, r[R_FOREST])
            + track_vp(c.dune_from, c.dune_vp, c.ndune, r[R_DUNE])
            + dune_progress(c, r[R_DUNE]))


cdef int pending_activations(const St* s, const Cat* c, double* gains) noexcept nogil:
    """heuristic.pending_activations: per seat, the best plan's gain of each activation
    on the stack; -1 when a plan search outgrows its room."""
    cdef Plan* plans
    cdef int i, j, count
    cdef int r[SIZE]
    cdef double now, best, value
    cdef const Fr* f
    for i in range(s.nframes):
        f = &s.frames[i]
        if f.kind != F_ACTIVATION:
            continue
        resources(&s.players[f.seat], c, r)
        now = resource_value(c, r)
        count = plans_of(s, c, f, &plans)
        if count < 0:
            free(plans)
            return -1
        best = now
        for j in range(count):
            value = resource_value(c, plans[j].out)
            if j == 0 or value > best:
                best = value
        free(plans)
        gains[f.seat] += best - now if best - now > 0.0 else 0.0
    return 0


cdef double resets_left(const St* s, const Cat* c) noexcept nogil:
    """heuristic.resets_left: a rough count of the reset phases still to come."""
    cdef double resets
    if is_solo(s):  # the army's steps to the final space
        if s.final_reset:
            return 0.0
        resets = (<double>(s.army - final_space(s, c))) / c.army_step
        return resets if resets > 1.0 else 1.0
    if s.end_round:
        return 1.0
    resets = (<double>(s.army - max_vp(s))) / (2 * c.army_step) + 1
    return resets if resets > 1.0 else 1.0


cdef int heuristic(const St* s, const Cat* c, double* out) noexcept nogil:
    """heuristic.heuristic into ``out``; -1 when a bound is hit."""
    cdef double pending[MAXP]
    cdef double income[MAXP]
    cdef double resets = resets_left(s, c)
    cdef double value
    cdef int seat, place, i, card, owner, k, held, need, total, count, contract
    cdef int forest[MAXCOLS]
    cdef int dune[MAXCOLS]
    cdef int vp[MAXCOLS]
    cdef int cubes[3 * MAXCOLS]
    cdef const Pl* p
    for seat in range(s.nplayers):
        pending[seat] = income[seat] = 0.0
    if pending_activations(s, c, pending) < 0:
        return -1
    for place in range(6):
        for i in range(s.nplaces[place]):
            card = s.places[place][i]
            for k in range(2):
                owner = s.master[card] if k == 0 else s.apprentice[card]
                if 0 <= owner < s.nplayers:
                    income[owner] += c.h_row_activations * resets * c.prof_worth[card]
    for seat in range(s.nplayers):
        p = &s.players[seat]
        value = <double>final_score(s, c, seat) + pending[seat] + income[seat]
        value += forest_progress(c, p.forest) + dune_progress(c, p.dune)
        total = 0
        for k in range(c.nacc):
            total += p.accessories[k]
        value += c.h_coin * p.coins + c.h_accessory * total
        k = influence_cap(c, p)
        value += c.h_influence * (p.influence if p.influence < k else k)
        total = 0
        for k in range(6):
            total += p.cubes[k]
        value += c.h_cube * total + c.h_reserved * (p.reserved[0] + p.reserved[1]
                                                    + p.reserved[2])
        for i in range(p.ncontracts):
            contract = p.contracts[i]
            held = 0
            for k in range(6):
                held += c.con_cubes[contract][k] if c.con_cubes[contract][k] < p.cubes[k] \
                    else p.cubes[k]
            need = c.con_cube_count[contract] if c.con_cube_count[contract] > 1 else 1
            value += c.con_cube_count[contract] * (c.h_contract_base
                                                   + c.h_contract_held * held / need)
        count = investment_columns(s, c, seat, forest, dune, vp, cubes)
        if count < 0:
            return -1
        for k in range(count):
            value += c.h_column_share * resets * (
                vp[k] + c.h_reserved * (cubes[3 * k] + cubes[3 * k + 1] + cubes[3 * k + 2]))
        if has_ability(c, p, E_RESET_VP):
            value += c.disk_vp[c.effect_disk[E_RESET_VP]] * resets
        for k in range(c.ndisk):
            if p.unlocked[k]:
                value += c.disk_value[k]
        if is_solo(s):  # heuristic.SOLO_*: a forecast of the final score
            value += (c.h_solo_early_vp * (resets - c.h_solo_early_resets
                                           if resets - c.h_solo_early_resets > 0.0 else 0.0)
                      - c.h_solo_bias)
        out[seat] = value
    return 0


# -- the features (engine.stephens.features) ---------------------------------------------------
#: len(engine.stephens.features.FEATURES)
cdef enum:
    NFEATURES = 20


cdef int features(const St* s, const Cat* c, int seat, double* out) noexcept nogil:
    """features.features of ``seat`` into ``out`` (NFEATURES values); -1 when a bound
    is hit."""
    cdef const Pl* p = &s.players[seat]
    cdef double judged[MAXP]
    cdef int forest[MAXCOLS]
    cdef int dune[MAXCOLS]
    cdef int vp[MAXCOLS]
    cdef int cubes[3 * MAXCOLS]
    cdef int k, i, r, contract, asked = 0, held = 0, total, count, column_vp = 0, workers = 0
    if heuristic(s, c, judged) < 0:
        return -1
    count = investment_columns(s, c, seat, forest, dune, vp, cubes)
    if count < 0:
        return -1
    for k in range(count):
        column_vp += vp[k]
    for i in range(p.ncontracts):
        contract = p.contracts[i]
        asked += c.con_cube_count[contract]
        for k in range(6):
            held += c.con_cubes[contract][k] if c.con_cubes[contract][k] < p.cubes[k] \
                else p.cubes[k]
    for k in range(c.nprof):
        workers += (s.master[k] == seat) + (s.apprentice[k] == seat)
    out[0] = p.coins
    out[1] = p.influence
    out[2] = p.vp
    out[3] = p.forest
    out[4] = p.dune
    total = 0
    for k in range(6):
        total += p.cubes[k]
    out[5] = total
    out[6] = p.reserved[0] + p.reserved[1] + p.reserved[2]
    total = 0
    for k in range(c.nacc):
        total += p.accessories[k]
    out[7] = total
    out[8] = p.ncontracts
    out[9] = asked
    out[10] = held
    total = 0
    for r in range(c.ncrows):
        total += p.nfulfilled[r]
    out[11] = total
    total = 0
    for r in range(c.ninvrows):
        total += p.ninvestments[r]
    out[12] = total
    out[13] = column_vp
    total = 0
    for k in range(c.ndisk):
        total += p.unlocked[k]
    out[14] = total
    out[15] = workers
    out[16] = final_score(s, c, seat)
    out[17] = judged[seat]
    out[18] = resets_left(s, c)
    out[19] = s.army
    return 0


# -- the state ------------------------------------------------------------------------------
#: What a playout that outgrows the struct says.
PLAYOUT_ERROR = "the position outgrew the Stephens kernel's fixed bounds"

include "kernel_state.pxi"


cdef class KernelState(StructState):
    """A Stephens position (1-4 players) on the C struct; behaves like ``StephensState``."""

    info = INFO
    moves_known_to = State.moves_known_to
    move_seen_by = State.move_seen_by
    outcome = State.outcome
    is_move_code = StephensState.is_move_code

    # The legal moves (a list never changed in place), worked out once per position:
    # search asks for them, then checks its move against them in apply.  Every method
    # that changes the struct forgets or replaces them.
    cdef list _legal

    cdef _struct_changes(self):
        self._legal = None

    # -- construction -------------------------------------------------------------
    @staticmethod
    def from_reference(state) -> KernelState:
        """The kernel twin of a reference state (ValueError if it does not fit the struct).

        The solo game is mirrored too (the Automa's deck, revealed pile and bag, the
        difficulty and the opponent card).  Every
        number that indexes an array during play is checked here, once: card numbers
        (each card in one place), seats, the decision stack's kinds and the context
        fields that index something (places, factories, piles, rows, display spaces,
        workers), and the army's space (its refill must be printed for every space it
        can still reach).  A state from ``Game.state_from_json`` always fits.

        A few bounds can only be checked in play, and no game reached them in the
        checks (``furnace check-kernel``): more than MAX_MOVES legal moves, a decision
        stack deeper than MAXFRAMES, a contract with more than LARGE_ROOM ways to pay.
        Past one the twin raises ValueError rather than play out of bounds.  (A row's
        investment columns and a seat's workers in a row are bounded by the catalogue,
        checked when it is loaded; an activation's plans only by memory.)
        """
        cdef KernelState k = KernelState.__new__(KernelState)
        cdef St* s = &k.s
        cdef Pl* pl
        cdef Fr* f
        cdef int i, p, r, space, army
        cdef unsigned char placed[MAXPROF]
        cdef unsigned char con_placed[MAXCON]
        cdef unsigned char inv_placed[MAXINV]
        cdef int workers[MAXW]
        catalogue = state.catalogue
        k.kc = kernel_catalogue(catalogue)
        k.cat = &k.kc.c
        cdef const Cat* c = k.cat
        n = state.num_players
        if not (isinstance(n, int) and 1 <= n <= MAXP and len(state.players) == n):
            raise ValueError(f"the Stephens kernel plays 1..{MAXP} players (solo included)")
        k.num_players = n
        memset(placed, 0, MAXPROF)
        memset(con_placed, 0, MAXCON)
        memset(inv_placed, 0, MAXINV)
        s.rng = state.rng[0] & MASK64
        s.nplayers = n
        s.round = _within(state.round, 1, 1 << 20, "round")
        s.end_round = _within(state.end_round, 0, s.round, "end_round")
        s.active = _within(state.active, 0, n - 1, "active")
        army = _within(state.army, 0, MAXARMY, "army")
        s.army = army
        # every space the army can still stop on has its refill printed
        while army > 0:
            army = army - c.army_step if army > c.army_step else 0
            if c.refill[army][0] < 0:
                raise ValueError(f"army: no furnace refill printed for space {army}")
        if len(state.furnaces) != 4 or len(state.factories) != 4:
            raise ValueError("4 furnaces and 4 small factories expected")
        for i in range(4):
            s.furnaces[i] = _within(state.furnaces[i], 0, 1 << 20, "furnaces")
            if len(state.factories[i]) != 3:
                raise ValueError("a small factory holds 3 counts")
            for r in range(3):
                s.factories[i][r] = _within(state.factories[i][r], 0, 1 << 20,
                                            "small factories")
        for i in range(2):
            s.npdeck[i] = _fill_cards(s.pdeck[i], state.profession_decks[i], placed, c.nprof,
                                      "profession deck")
        _fill_spaces(s.pdisplay, state.profession_display, 4, placed, c.nprof,
                     "profession display")
        for i in range(2):
            s.npdiscard[i] = _fill_cards(s.pdiscard[i], state.profession_discards[i], placed,
                                         c.nprof, "profession discard")
        s.nbox = _fill_cards(s.box, state.box, placed, c.nprof, "box")
        if len(state.places) != 6:
            raise ValueError("6 places expected")
        for i in range(6):
            s.nplaces[i] = _fill_cards(s.places[i], state.places[i], placed, c.nprof, "places")
        if len(state.master) != c.nprof or len(state.apprentice) != c.nprof:
            raise ValueError("a master and an apprentice per profession expected")
        lowest_seat = AUTOMA if n == 1 else NOBODY  # the Automa's workers: solo only
        for i in range(c.nprof):
            s.master[i] = _within(state.master[i], lowest_seat, n - 1, "master")
            s.apprentice[i] = _within(state.apprentice[i], lowest_seat, n - 1, "apprentice")
        s.ncdeck = _fill_cards(s.cdeck, state.contract_deck, con_placed, c.ncon, "contract deck")
        _fill_spaces(s.cdisplay, state.contract_display, c.ncdisp, con_placed, c.ncon,
                     "contract display")
        s.ncdiscard = _fill_cards(s.cdiscard, state.contract_discard, con_placed, c.ncon,
                                  "contract discard")
        s.nideck = _fill_cards(s.ideck, state.investment_deck, inv_placed, c.ninv,
                               "investment deck")
        _fill_spaces(s.idisplay, state.investment_display, c.nidisp, inv_placed, c.ninv,
                     "investment display")
        s.nidiscard = _fill_cards(s.idiscard, state.investment_discard, inv_placed, c.ninv,
                                  "investment discard")
        for p, player in enumerate(state.players):
            pl = &s.players[p]
            if n != 1 and (player.influence_stack or player.lost_disk != -1):
                raise ValueError("opponent cards belong to the solo game")
            pl.influence_stack = _within(player.influence_stack, 0, 1 << 20, "influence_stack")
            pl.lost_disk = _within(player.lost_disk, -1, c.ndisk - 1, "lost_disk")
            pl.coins = _within(player.coins, 0, 1 << 20, "coins")
            pl.influence = _within(player.influence, 0, 1 << 20, "influence")
            pl.vp = _within(player.vp, 0, 1 << 20, "vp")
            pl.forest = _within(player.forest, 0, c.forest_top, "forest")
            pl.dune = _within(player.dune, 0, c.dune_top, "dune")
            if (len(player.cubes) != 6 or len(player.accessories) != c.nacc
                    or len(player.unlocked) != c.ndisk or len(player.reserved) != 3
                    or len(player.placed_accessories) != c.nacc
                    or len(player.investments) != c.ninvrows
                    or len(player.fulfilled) != c.ncrows):
                raise ValueError(f"player {p}: counts of the wrong length")
            for i in range(6):
                pl.cubes[i] = _within(player.cubes[i], 0, 1 << 20, "cubes")
            for i in range(c.nacc):
                pl.accessories[i] = _within(player.accessories[i], 0, 1 << 20, "accessories")
                pl.placed[i] = _within(player.placed_accessories[i], 0, 1 << 20,
                                       "placed accessories")
            for i in range(c.ndisk):
                pl.unlocked[i] = _within(player.unlocked[i], 0, 1, "unlocked")
            for i in range(3):
                pl.reserved[i] = _within(player.reserved[i], 0, 1 << 20, "reserved")
            pl.ncontracts = _fill_cards(pl.contracts, player.contracts, con_placed, c.ncon,
                                        "contracts")
            for r in range(c.ninvrows):
                pl.ninvestments[r] = _fill_cards(pl.investments[r], player.investments[r],
                                                 inv_placed, c.ninv, "investments")
                if pl.ninvestments[r] > MAXCOLS:
                    raise ValueError(f"player {p}: more than {MAXCOLS} investment columns")
            for r in range(c.ncrows):
                pl.nfulfilled[r] = _fill_cards(pl.fulfilled[r], player.fulfilled[r], con_placed,
                                               c.ncon, "fulfilled")
        if len(state.decisions) > MAXFRAMES - 16:
            raise ValueError("the decision stack is too deep for the kernel")
        s.nframes = 0
        for frame in state.decisions:
            if frame.kind not in FRAME_NAMES or (n != 1 and frame.kind in SOLO_FRAMES):
                raise ValueError(f"no {frame.kind!r} decision outside the solo game")
            f = push(s, FRAME_NAMES.index(frame.kind), _within(frame.seat, 0, n - 1, "seat"))
            fields = FRAME_KINDS[frame.kind]
            values = dict(frame.context)
            if sorted(values) != list(fields):
                raise ValueError(f"a {frame.kind!r} frame holds {', '.join(fields)}")
            for i, name in enumerate(fields):
                f.ctx[i] = _within(values[name], -1, 1 << 20, f"{frame.kind}.{name}")
            if f.kind == F_ACTIVATION:
                _within(f.ctx[C_PLACE], 0, 5, "activation.place")
                _within(f.ctx[C_USED], 0, (1 << MAXW) - 1, "activation.used")
            elif f.kind == F_EFFECT:
                _within(f.ctx[C_FACTORY], 0, 3, "effect.factory")
            elif f.kind == F_ACQUIRE:
                _within(f.ctx[C_PILE], 0, 2, "acquire.pile")
                _within(f.ctx[C_ROW], -1, c.ninvrows - 1, "acquire.row")
                _within(f.ctx[C_FIRST], -1, MAXDISP - 1, "acquire.first")
            elif f.kind == F_SUPPLY:
                _within(f.ctx[C_S_LAST], -1, c.nbonus - 1, "supply.last")
            elif f.kind == F_TURN:
                _within(f.ctx[C_STAGE], 0, 2, "turn.stage")
            elif f.kind == F_RESET:
                _within(f.ctx[C_STEP], 1, DONE, "reset.step")
            elif f.kind == F_AUTOMA:
                _within(f.ctx[C_STAGE], AUTOMA_ACT, AUTOMA_FINISH, "automa.stage")
            elif f.kind == F_REMOVE:
                _within(f.ctx[C_R_FACTORY], 0, 3, "remove.factory")
                _within(f.ctx[C_R_N], 0, MAXREMOVE, "remove.n")
        _solo_from_reference(s, c, state)
        for p in range(n):
            for place in range(6):
                if row_workers(s, p, place, workers) > MAXW:
                    raise ValueError("too many workers of one seat in one row for the kernel")
        return k

    def to_reference(self) -> StephensState:
        """The equivalent reference state (``to_json()`` equal to the oracle's)."""
        cdef St* s = &self.s
        cdef const Cat* c = self.cat
        cdef Pl* pl
        cdef Fr* f
        cdef int i, p, r
        ref = StephensState(self.kc.catalogue, s.nplayers)
        ref.rng = [s.rng]
        ref.round = s.round
        ref.end_round = s.end_round
        ref.active = s.active
        ref.army = s.army
        ref.furnaces = [s.furnaces[i] for i in range(4)]
        ref.factories = [[s.factories[i][r] for r in range(3)] for i in range(4)]
        ref.profession_decks = [[s.pdeck[i][j] for j in range(s.npdeck[i])] for i in range(2)]
        ref.profession_display = [s.pdisplay[i] for i in range(4)]
        ref.profession_discards = [[s.pdiscard[i][j] for j in range(s.npdiscard[i])]
                                   for i in range(2)]
        ref.box = [s.box[i] for i in range(s.nbox)]
        ref.places = [[s.places[i][j] for j in range(s.nplaces[i])] for i in range(6)]
        ref.master = [s.master[i] for i in range(c.nprof)]
        ref.apprentice = [s.apprentice[i] for i in range(c.nprof)]
        ref.contract_deck = [s.cdeck[i] for i in range(s.ncdeck)]
        ref.contract_display = [s.cdisplay[i] for i in range(c.ncdisp)]
        ref.contract_discard = [s.cdiscard[i] for i in range(s.ncdiscard)]
        ref.investment_deck = [s.ideck[i] for i in range(s.nideck)]
        ref.investment_display = [s.idisplay[i] for i in range(c.nidisp)]
        ref.investment_discard = [s.idiscard[i] for i in range(s.nidiscard)]
        players = []
        for p in range(s.nplayers):
            pl = &s.players[p]
            players.append(Player(
                pl.coins, pl.influence, pl.vp, pl.forest, pl.dune,
                [pl.cubes[i] for i in range(6)], [pl.accessories[i] for i in range(c.nacc)],
                [pl.unlocked[i] for i in range(c.ndisk)],
                [pl.contracts[i] for i in range(pl.ncontracts)],
                [[pl.investments[r][i] for i in range(pl.ninvestments[r])]
                 for r in range(c.ninvrows)],
                [pl.reserved[i] for i in range(3)],
                [[pl.fulfilled[r][i] for i in range(pl.nfulfilled[r])] for r in range(c.ncrows)],
                [pl.placed[i] for i in range(c.nacc)], pl.influence_stack, pl.lost_disk))
        ref.players = players
        ref.difficulty = s.difficulty
        ref.opponent = s.opponent
        ref.automa_deck = [s.adeck[i] for i in range(s.nadeck)]
        ref.automa_revealed = [s.arevealed[i] for i in range(s.narevealed)]
        ref.bag = [s.bag[i] for i in range(3)]
        ref.final_reset = s.final_reset
        decisions = []
        for i in range(s.nframes):
            f = &s.frames[i]
            kind = FRAME_NAMES[f.kind]
            decisions.append(Frame.make(kind, f.seat, **{
                name: f.ctx[j] for j, name in enumerate(FRAME_KINDS[kind])}))
        ref.decisions = decisions
        return ref

    # -- protocol ------------------------------------------------------------------
    def current_player(self) -> int:
        if self.s.nframes == 0:
            return TERMINAL
        return self.s.frames[self.s.nframes - 1].seat

    def is_terminal(self) -> bool:
        return self.s.nframes == 0

    cdef list _legal_moves(self):
        cdef mv* moves
        cdef int n
        if self._legal is None:
            moves = <mv*>malloc(MAX_MOVES * sizeof(mv))
            if moves == NULL:
                raise MemoryError()
            n = gen_moves(&self.s, self.cat, moves)
            if n >= 0:
                self._legal = [moves[i] for i in range(n)]
            free(moves)
            if n < 0:
                raise ValueError("the position outgrew the Stephens kernel's fixed bounds")
        return self._legal

    def legal_moves(self) -> list:
        return list(self._legal_moves())

    cdef bint _is_legal(self, move) except -1:
        # bools are ints, but no move of Stephens (the reference refuses them too)
        return isinstance(move, int) and not isinstance(move, bool) \
            and move in self._legal_moves()

    cdef _play(self, mv move):
        """Play a legal move and what runs by itself after it, keeping the next moves."""
        cdef mv* moves = <mv*>malloc(MAX_MOVES * sizeof(mv))
        cdef int n
        if moves == NULL:
            raise MemoryError()
        apply_decision(&self.s, self.cat, move)
        n = advance(&self.s, self.cat, moves)
        self._legal = [moves[i] for i in range(n)] if n >= 0 else None
        free(moves)
        if n < 0:
            raise ValueError("the position outgrew the Stephens kernel's fixed bounds")

    def apply(self, move) -> list:
        """Play ``move`` (IllegalMoveError if it is not legal).  Returns no event texts."""
        if not self._is_legal(move):
            reason = self.to_reference().why_illegal(move)
            if reason is None:  # pragma: no cover - the kernel and the oracle disagree
                reason = "the kernel does not generate it"
            raise IllegalMoveError(reason)
        self._play(move)
        return []

    def play_legal(self, move) -> None:
        """Play a move of :meth:`legal_moves` without checking it again."""
        self._play(move)

    def clone(self) -> KernelState:
        cdef KernelState twin = KernelState.__new__(KernelState)
        self._copy_into(twin)
        twin._legal = self._legal
        return twin

    def scores(self) -> list:
        return [float(final_score(&self.s, self.cat, p)) for p in range(self.num_players)]

    def ranking(self) -> list:
        return rank_groups([(final_score(&self.s, self.cat, p), self.s.players[p].influence,
                             self.s.players[p].coins) for p in range(self.num_players)])

    def solo_target(self):
        """solo.target_score: the opponent card's target, else the Glassblower bar."""
        if self.num_players != 1:
            return None
        if self.s.opponent >= 0:
            return float(self.cat.diff_target[self.s.difficulty])
        return float(self.cat.diff_glassblower[self.s.difficulty])

    def solo_rank(self):
        if self.num_players != 1:
            return None
        return solo_result(self.to_reference())

    def rollout(self, seed) -> Outcome:
        """Random moves to the end in C (in place), exactly as ``StephensState.rollout``."""
        self.last_rollout_steps = self.random_playout(seed)
        return self.outcome()

    def random_playout(self, seed, long max_moves=0) -> int:
        """Up to ``max_moves`` uniformly random moves in C (in place; 0: to the end),
        exactly as ``engine.game.play_random_moves`` on the reference (the truncated
        playouts of ``engine.search.evaluate``); returns the moves played."""
        check_playout(seed, max_moves)
        cdef uint64_t rng = <uint64_t>(seed & MASK64)
        cdef int err = 0
        cdef long steps
        self._legal = None
        with nogil:
            steps = c_rollout(&self.s, self.cat, &rng, max_moves, &err)
        if err:
            raise ValueError("the position outgrew the Stephens kernel's fixed bounds")
        return steps

    # -- determinization, on the struct -------------------------------------------
    def determinize(self, observer, rng) -> KernelState:
        """The reference's ``determinize``, drawing the same numbers from ``rng``.

        Nothing is private in Stephens: the face-down decks (the Automa's too) and the
        profession decks below their tops are sorted and reshuffled, and the generator is redrawn,
        whoever observes.  The shuffles replay ``random.Random.shuffle`` through
        ``getrandbits``; another generator class goes through the reference rules.
        """
        return self._determinized(observer, rng)

    def heuristic(self) -> list:
        cdef double values[MAXP]
        if heuristic(&self.s, self.cat, values) < 0:
            raise ValueError("the position outgrew the Stephens kernel's fixed bounds")
        return [values[p] for p in range(self.num_players)]

    def features(self) -> list:
        """features.features: one vector of NFEATURES per seat."""
        cdef double values[NFEATURES]
        cdef int seat, k
        out = []
        for seat in range(self.num_players):
            if features(&self.s, self.cat, seat, values) < 0:
                raise ValueError("the position outgrew the Stephens kernel's fixed bounds")
            out.append([values[k] for k in range(NFEATURES)])
        return out

    # -- delegated to the reference rules ------------------------------------------

    def to_json(self) -> dict:
        return self.to_reference().to_json()

    def text_context_of(self, move) -> bytes:
        """What the words of ``move`` read from this position, TEXT_CONTEXT_BYTES bytes
        for :meth:`move_text_in_context`; MoveParseError for no Stephens move."""
        cdef unsigned char out[TEXT_CONTEXT]
        if not isinstance(move, int) or not 0 <= move < 1 << 63 \
                or text_context(&self.s, self.cat, <mv>move, out) < 0:
            move_words(self.kc.catalogue, move, None)  # raises the reference's error
            raise MoveParseError(f"{move!r} is not a Stephens move")  # pragma: no cover
        return out[:TEXT_CONTEXT]

    def move_text_in_context(self, move, context) -> str:
        """The words of ``move`` in the position ``context`` was taken from
        (:meth:`text_context_of`, on any position of this catalogue)."""
        return move_text(self.kc.catalogue, move, context)

    def move_to_text(self, move) -> str:
        return move_text(self.kc.catalogue, move, self.text_context_of(move))

    def parse_move(self, text) -> int:
        return self.to_reference().parse_move(text)

    def why_illegal(self, move):
        if self._is_legal(move):
            return None
        return self.to_reference().why_illegal(move)

    # -- extras ------------------------------------------------------------------------
    @property
    def round(self) -> int:
        return self.s.round

    def __repr__(self) -> str:
        return (f"<KernelState stephens {self.num_players}p round={self.s.round} "
                f"army={self.s.army} decisions={self.s.nframes}>")


include "random_draws.pxi"


def move_text(catalogue, move, context) -> str:
    """The words of ``move`` from the catalogue and a context of ``text_context``."""
    cdef const unsigned char[:] steps
    if len(context) != TEXT_CONTEXT:
        raise ValueError(f"a move's text context is {TEXT_CONTEXT} bytes, not {len(context)}")
    plan = None
    if context[0] and isinstance(move, int) and (move >> SHIFT == K_ACTIVATE
                                                 or move >> SHIFT == K_ACTIVATE_PART):
        steps = context
        plan = [(steps[1 + k] // MAXOPT, steps[1 + k] % MAXOPT)
                for k in range(PLAN_STEPS) if move >> (8 * k) & 0xFF]
    return move_words(catalogue, move, plan)


cdef int _solo_from_reference(St* s, const Cat* c, object state) except -1:
    """The solo part of ``from_reference``: difficulty, opponent card, the Automa's deck
    and revealed pile (every card once), its bag and the final reset flag."""
    cdef unsigned char seen[MAXAUTOMA]
    cdef int i
    s.difficulty = _within(state.difficulty, 0, c.ndifficulties - 1, "difficulty")
    s.opponent = _within(state.opponent, -1, c.nopponents - 1, "opponent")
    s.final_reset = _within(state.final_reset, 0, 1, "final_reset")
    if len(state.bag) != 3:
        raise ValueError("the bag holds 3 counts")
    for i in range(3):
        s.bag[i] = _within(state.bag[i], 0, 1 << 20, "bag")
    memset(seen, 0, MAXAUTOMA)
    s.nadeck = _fill_cards(s.adeck, state.automa_deck, seen, c.nautoma, "automa_deck")
    s.narevealed = _fill_cards(s.arevealed, state.automa_revealed, seen, c.nautoma,
                               "automa_revealed")
    return 0


cdef int _reshuffle(unsigned char* cards, int n, Words* words) except -1:
    """information._reshuffle: sort, then ``random.Random.shuffle``."""
    cdef int i, j
    cdef unsigned char t
    sort_bytes(cards, n)
    for i in range(n - 1, 0, -1):
        j = words_below(words, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    return 0


cdef int c_determinize(St* s, const Cat* c, int observer, Words* words) except -1:
    """The reference's ``determinize`` in place (the same for every observer: nothing is
    private), drawing the words ``random.Random`` draws."""
    cdef int colour
    _reshuffle(s.cdeck, s.ncdeck, words)
    _reshuffle(s.ideck, s.nideck, words)
    _reshuffle(s.adeck, s.nadeck, words)  # the Automa's (solo; else empty)
    for colour in range(2):
        if s.npdeck[colour]:
            _reshuffle(s.pdeck[colour], s.npdeck[colour] - 1, words)
    words_bits64(words, &s.rng)
    return 0


# -- the compiled search's view -----------------------------------------------------------------

cdef enum:
    SEARCH_MAX_PLAYERS = MAXP
    SEARCH_TRUNCATES = 1
    SEARCH_NFEATURES = NFEATURES


cdef int search_current_player(const St* s) noexcept nogil:
    if s.nframes == 0:
        return C_TERMINAL
    return s.frames[s.nframes - 1].seat


cdef int search_legal(const St* s, const Cat* c, int64_t* out) noexcept nogil:
    return gen_moves(s, c, out)


cdef int search_play(St* s, const Cat* c, int64_t move, int64_t* out,
                     bint want_moves) noexcept nogil:
    # advance lists the next moves as it finds what runs by itself
    apply_decision(s, c, move)
    return advance(s, c, out)


cdef long search_playout(St* s, const Cat* c, uint64_t* rng, long max_moves, int* err,
                         int64_t* moves, int nmoves) noexcept nogil:
    if nmoves >= 0:
        return c_rollout_from(s, c, rng, max_moves, err, moves, nmoves)
    return c_rollout(s, c, rng, max_moves, err)


cdef int c_outcome(const St* st, const Cat* c, double* scores, double* shares) noexcept nogil:
    """``State.outcome``: final scores, the win shared by the seats ranked first (most
    points, then influence, then coins)."""
    cdef int p, winners = 0, best = 0
    cdef int keys[MAXP][3]
    for p in range(st.nplayers):
        keys[p][0] = final_score(st, c, p)
        keys[p][1] = st.players[p].influence
        keys[p][2] = st.players[p].coins
        scores[p] = <double>keys[p][0]
        if winners == 0 or _key_above(keys[p], keys[best]):
            best = p
            winners = 1
        elif not _key_above(keys[best], keys[p]):
            winners += 1
    for p in range(st.nplayers):
        shares[p] = (1.0 / winners if not _key_above(keys[best], keys[p]) else 0.0)
    return 0


cdef inline bint _key_above(const int* a, const int* b) noexcept nogil:
    if a[0] != b[0]:
        return a[0] > b[0]
    if a[1] != b[1]:
        return a[1] > b[1]
    return a[2] > b[2]


cdef int c_heuristic(const St* s, const Cat* c, double* out) noexcept nogil:
    return heuristic(s, c, out)


cdef int search_text_context(const St* s, const Cat* c, int64_t move,
                             unsigned char* out) noexcept nogil:
    return text_context(s, c, move, out)


include "kernel_search_ops.pxi"


State.register(KernelState)

