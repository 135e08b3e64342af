# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=True
"""Oh My Goods!'s rules on a flat C struct: the compiled twin of ``engine.oh_my_goods.state``.

``KernelState`` reproduces :class:`engine.oh_my_goods.state.OhMyGoodsState` move for
move: the same legal moves in the same order, the same automatic play of forced moves,
the same successor states -- including the SplitMix64 generator the state carries for
its shuffles and draws -- (checked by ``checks.kernel`` and
``tests/oh_my_goods/test_kernel.py``) and the same random playouts (SplitMix64 from
:mod:`engine.playout_rng`, ``moves[next() % n]``).

Layout.  The whole position is one ``St`` struct, so a copy is a ``memcpy``: card
piles (deck, discard, display, hands, goods stacks) are byte arrays with a length,
in the reference's list order (the top of a pile is its last entry); "None" fields
are -1.  Catalogue numbers are copied once per catalogue into a ``Cat`` struct.
Moves are the reference's integers, ``kind << 10 | arg``.

``apply`` returns no event texts (search does not read them); use the reference
state (``to_reference()``) for a commented game.  ``determinize`` runs on the struct and
draws from the caller's ``random.Random`` exactly as the reference does.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

from random import Random

from engine.game import TERMINAL, IllegalMoveError, Outcome, State, rank_groups
from engine.oh_my_goods.catalogue import ANY, COLOURS, EXTRA_CARD, RESOURCES
from engine.oh_my_goods.moves import is_move_code
from engine.oh_my_goods.state import OhMyGoodsState, Player
from engine.oh_my_goods.vocabulary import INFO, PHASES, STEPS

include "splitmix64.pxi"
include "search_ops.pxi"

include "guided_choice.pxi"
include "byte_sort.pxi"


cdef enum:
    MAXC = 128          # deck cards (a card is an unsigned char)
    MAXP = 4
    MAX_SLOTS = 12      # charburner + buildings; see from_reference for the bound
    MAX_BUILDINGS = 32  # building types
    MAX_ASSISTANTS = 16  # a SHIFT move names the assistant in arg // 64 (< 16)
    MAX_CHARBURNERS = 16
    MAX_INPUTS = 6
    MAX_NEEDS = 6
    MAX_HANDLED = 64
    MAX_MOVES = 512

    # move kinds (vocabulary.py order)
    KEEP = 0
    REDRAW = 1
    SHIFT = 2
    WORK_ORDERLY = 3
    WORK_SLOPPY = 4
    IDLE = 5
    PLAN = 6
    PLAN_NONE = 7
    PRODUCE = 8
    SUPPLY = 9
    CHAIN = 10
    STOP = 11
    CHAIN_ONLY = 12
    DONE = 13
    BUILD = 14
    SCRAP = 15
    PAY = 16
    HIRE = 17
    PLACE = 18
    PASS = 19
    NO_CARD = 1023
    NO_CHAIN = -2       # chain_need: no chain can run from the slot

    # phases (vocabulary.PHASES order)
    PH_REDRAW = 0
    PH_SHIFT = 1
    PH_CHOOSE = 2
    PH_ACT = 3
    PH_OVER = 4

    # steps (vocabulary.STEPS order)
    ST_RUN = 0
    ST_SUPPLY = 1
    ST_CHAIN = 2
    ST_BUILD = 3
    ST_HIRE = 4
    ST_PLACE = 5

    # pay purposes
    PU_SHIFT = 0
    PU_BUILD = 1
    PU_HIRE = 2

    ORDERLY = 0
    SLOPPY = 1
    ANY_KEY = 5          # inputs key for "any"
    MARKET_NONE = -1
    MARKET_CARD = 5      # Market Office giving an extra card

    START_HAND = 5
    DEAL = 2
    BUILDINGS_TO_END = 8
    MAX_ROUNDS = 100     # vocabulary.MAX_ROUNDS
    COINS_PER_VP = 5
    SHIFT_COST = 2


ctypedef struct Cat:
    int ncards
    int nbuildings
    int ncharburners
    int nassistants
    int charburner_building
    # buildings
    int b_colour[MAX_BUILDINGS]
    int b_value[MAX_BUILDINGS]
    int b_production[MAX_BUILDINGS]
    int b_nchain[MAX_BUILDINGS]
    int b_chain_res[MAX_BUILDINGS][2]    # resource index, or -1 for a good
    int b_chain_maker[MAX_BUILDINGS][2]  # building making the good (when not a resource)
    # cards
    int c_building[MAXC]
    int c_cost[MAXC]
    int c_vp[MAXC]
    int c_resource[MAXC]
    int c_half_sun[MAXC]
    int c_market[MAXC]
    int c_ninputs[MAXC]
    int c_in_key[MAXC][MAX_INPUTS]
    int c_in_n[MAXC][MAX_INPUTS]
    # charburners
    int cb_ninputs[MAX_CHARBURNERS]
    int cb_in_key[MAX_CHARBURNERS][MAX_INPUTS]
    int cb_in_n[MAX_CHARBURNERS][MAX_INPUTS]
    # assistants
    int a_cost[MAX_ASSISTANTS][2]
    int a_vp[MAX_ASSISTANTS][2]
    int a_nneeds[MAX_ASSISTANTS][2]
    int a_need_colour[MAX_ASSISTANTS][2][MAX_NEEDS]
    int a_need_n[MAX_ASSISTANTS][2][MAX_NEEDS]


ctypedef struct Pl:
    int charburner
    int worker
    int nhand
    int nb
    int nasst
    int has_work
    int work_slot
    int work_mode
    int plan             # -1: none
    int chosen
    int ngoods[MAX_SLOTS]
    int asst[2][3]       # assistant, face, slot
    unsigned char buildings[MAX_SLOTS]
    unsigned char hand[MAXC]
    unsigned char goods[MAX_SLOTS][MAXC]


ctypedef struct St:
    uint64_t rng
    int nplayers
    int second_edition
    int round
    int active
    int final_round      # -1: none
    int phase
    int turn
    int ndeck
    int ndiscard
    int ndisplay
    int sunset_at
    int npool
    int pool[MAX_ASSISTANTS][2]
    int nstarting
    int starting[MAXP]
    int step
    int nhandled
    int handled[MAX_HANDLED]
    int running
    int need[6]
    int slack
    int produce_count
    int chain_slot
    int hired
    int nshifted
    int shifted[MAX_ASSISTANTS]
    int has_pay
    int pay_due
    int pay_paid
    int pay_last
    int pay_purpose
    int pay_arg
    int nreshuffled
    unsigned char deck[MAXC]
    unsigned char discard[MAXC]
    unsigned char display[MAXC]
    unsigned char shown[MAXC]        # per card: a good every seat saw (rules ``shown``)
    unsigned char reshuffled[MAXC]   # the last reshuffled pile, ascending (rules ``reshuffled``)
    Pl players[MAXP]


MASK64 = (1 << 64) - 1
PURPOSES = ("shift", "build", "hire")


# -- catalogue helpers ------------------------------------------------------------------

cdef inline int slot_building(const St* s, const Cat* c, int seat, int slot) noexcept nogil:
    if slot == 0:
        return c.charburner_building
    return c.c_building[s.players[seat].buildings[slot - 1]]


cdef inline int num_slots(const St* s, int seat) noexcept nogil:
    return 1 + s.players[seat].nb


cdef inline bint is_production(const St* s, const Cat* c, int seat, int slot) noexcept nogil:
    return 0 <= slot < num_slots(s, seat) and c.b_production[slot_building(s, c, seat, slot)]


cdef inline int coins(const St* s, const Cat* c, int seat) noexcept nogil:
    cdef int total = 0
    cdef int k
    for k in range(num_slots(s, seat)):
        total += s.players[seat].ngoods[k] * c.b_value[slot_building(s, c, seat, k)]
    return total


cdef inline void market_counts(const St* s, const Cat* c, int seat, int* counts) noexcept nogil:
    cdef int i, m
    cdef const Pl* p = &s.players[seat]
    for i in range(5):
        counts[i] = 0
    for i in range(s.ndisplay):
        counts[c.c_resource[s.display[i]]] += 1
    for i in range(p.nb):
        m = c.c_market[p.buildings[i]]
        if 0 <= m < 5:
            counts[m] += 1


cdef inline int assistant_at(const St* s, int seat, int slot) noexcept nogil:
    cdef int i
    cdef const Pl* p = &s.players[seat]
    for i in range(p.nasst):
        if p.asst[i][2] == slot:
            return p.asst[i][0]
    return -1


cdef inline int colour_count(const St* s, const Cat* c, int seat, int colour) noexcept nogil:
    cdef int n = 0
    cdef int k
    for k in range(num_slots(s, seat)):
        if c.b_colour[slot_building(s, c, seat, k)] == colour:
            n += 1
    return n


cdef inline int vp_of(const St* s, const Cat* c, int seat) noexcept nogil:
    cdef int total = 0
    cdef int i
    cdef const Pl* p = &s.players[seat]
    for i in range(p.nb):
        total += c.c_vp[p.buildings[i]]
    for i in range(p.nasst):
        total += c.a_vp[p.asst[i][0]][p.asst[i][1]]
    return total


cdef inline void hand_counts(const St* s, const Cat* c, int seat, int* counts) noexcept nogil:
    cdef int i
    cdef const Pl* p = &s.players[seat]
    for i in range(5):
        counts[i] = 0
    for i in range(p.nhand):
        counts[c.c_resource[p.hand[i]]] += 1


cdef inline bint in_hand(const Pl* p, int card) noexcept nogil:
    cdef int i
    for i in range(p.nhand):
        if p.hand[i] == card:
            return True
    return False


cdef inline void hand_remove(Pl* p, int card) noexcept nogil:
    cdef int i, j
    for i in range(p.nhand):
        if p.hand[i] == card:
            for j in range(i, p.nhand - 1):
                p.hand[j] = p.hand[j + 1]
            p.nhand -= 1
            return


cdef inline int sorted_hand(const Pl* p, const Cat* c, int* out) noexcept nogil:
    """The distinct hand cards in increasing order."""
    cdef unsigned char present[MAXC]
    cdef int i
    cdef int n = 0
    memset(present, 0, MAXC)
    for i in range(p.nhand):
        present[p.hand[i]] = 1
    for i in range(c.ncards):
        if present[i]:
            out[n] = i
            n += 1
    return n


# -- randomness ----------------------------------------------------------------------------

cdef inline int rng_below(St* s, int n) noexcept nogil:
    return <int>(furnace_splitmix64(&s.rng) % <uint64_t>n)


cdef inline void shuffle(St* s, unsigned char* cards, int n) noexcept nogil:
    cdef int i, j
    cdef unsigned char t
    i = n - 1
    while i > 0:
        j = rng_below(s, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
        i -= 1


cdef inline int draw(St* s, const Cat* c) noexcept nogil:
    """The top card of the deck (reshuffling the discard pile), -1 when there is none."""
    cdef int p, k, count, j, i
    cdef Pl* pl
    cdef unsigned char present[MAXC]
    if s.ndeck == 0:
        if s.ndiscard == 0:
            for p in range(s.nplayers):
                pl = &s.players[p]
                count = pl.nhand // 2
                for k in range(count):
                    j = rng_below(s, pl.nhand)
                    s.discard[s.ndiscard] = pl.hand[j]
                    s.ndiscard += 1
                    for i in range(j, pl.nhand - 1):
                        pl.hand[i] = pl.hand[i + 1]
                    pl.nhand -= 1
        if s.ndiscard == 0:
            return -1
        # deck = sorted(discard): cards are distinct
        memset(present, 0, MAXC)
        for i in range(s.ndiscard):
            present[s.discard[i]] = 1
        for i in range(c.ncards):
            if present[i]:
                s.deck[s.ndeck] = i
                s.ndeck += 1
        memcpy(s.reshuffled, s.deck, s.ndeck)
        s.nreshuffled = s.ndeck
        s.ndiscard = 0
        shuffle(s, s.deck, s.ndeck)
    s.ndeck -= 1
    return s.deck[s.ndeck]


# -- turn structure ------------------------------------------------------------------------

cdef inline int seat_of(const St* s) noexcept nogil:
    return (s.active + s.turn) % s.nplayers


cdef inline void market_row(St* s, const Cat* c) noexcept nogil:
    cdef int suns = 0
    cdef int card
    while suns < 2:
        card = draw(s, c)
        if card < 0:
            break
        s.display[s.ndisplay] = card
        s.ndisplay += 1
        suns += c.c_half_sun[card]


cdef inline void draw_into_hand(St* s, const Cat* c, Pl* p, int count) noexcept nogil:
    """Draw ``count`` cards and add them to ``p``'s hand together, like the reference
    (``hand.extend([...])``): when the piles run out on the way, everyone discards
    half a hand that does not hold them yet."""
    cdef unsigned char drawn[MAXC]
    cdef int i, card
    cdef int n = 0
    for i in range(count):
        card = draw(s, c)
        if card >= 0:
            drawn[n] = card
            n += 1
    memcpy(&p.hand[p.nhand], drawn, n)
    p.nhand += n


cdef inline void deal(St* s, const Cat* c) noexcept nogil:
    cdef int k, seat, count, i
    cdef Pl* p
    for k in range(s.nplayers):
        seat = (s.active + k) % s.nplayers
        p = &s.players[seat]
        count = DEAL
        if s.starting[seat] <= 3:
            for i in range(p.nb):
                if c.c_market[p.buildings[i]] == MARKET_CARD:
                    count += 1
        draw_into_hand(s, c, p, count)
    market_row(s, c)
    s.phase = PH_SHIFT
    s.turn = 0
    s.nshifted = 0


cdef inline void start_round(St* s, const Cat* c) noexcept nogil:
    cdef int p
    s.turn = 0
    s.nstarting = s.nplayers
    for p in range(s.nplayers):
        s.starting[p] = s.players[p].nhand
    if s.second_edition:
        s.phase = PH_REDRAW
    else:
        deal(s, c)


cdef inline void reset_act(St* s) noexcept nogil:
    cdef int r
    s.step = ST_RUN
    s.nhandled = 0
    s.running = -1
    for r in range(6):
        s.need[r] = 0
    s.slack = 0
    s.produce_count = 0
    s.chain_slot = -1
    s.hired = -1
    s.has_pay = 0


cdef inline void end_round(St* s, const Cat* c) noexcept nogil:
    cdef int i, p
    for i in range(s.ndisplay):
        s.discard[s.ndiscard] = s.display[i]
        s.ndiscard += 1
    s.ndisplay = 0
    s.sunset_at = -1
    for p in range(s.nplayers):
        s.players[p].has_work = 0
        if s.final_round < 0 and 1 + s.players[p].nb >= BUILDINGS_TO_END:
            s.final_round = s.round + 1
    if s.final_round < 0 and s.round + 1 >= MAX_ROUNDS:
        s.final_round = MAX_ROUNDS
    if s.final_round >= 0 and s.round >= s.final_round:
        s.phase = PH_OVER
        return
    s.round += 1
    s.active = (s.active + 1) % s.nplayers
    start_round(s, c)


cdef inline void next_seat(St* s, const Cat* c) noexcept nogil:
    cdef int p
    s.turn += 1
    s.nshifted = 0
    if s.turn < s.nplayers:
        return
    s.turn = 0
    if s.phase == PH_REDRAW:
        deal(s, c)
    elif s.phase == PH_SHIFT:
        s.phase = PH_CHOOSE
    elif s.phase == PH_CHOOSE:
        s.sunset_at = s.ndisplay
        market_row(s, c)
        for p in range(s.nplayers):
            s.players[p].chosen = 0
        s.phase = PH_ACT
        reset_act(s)
    elif s.phase == PH_ACT:
        end_round(s, c)


cdef inline bint last_round(const St* s) noexcept nogil:
    return s.final_round >= 0 and s.round >= s.final_round


# -- production helpers --------------------------------------------------------------------

cdef inline int occupant_mode(const St* s, int seat, int slot) noexcept nogil:
    """ORDERLY/SLOPPY for the worker, 2 for an assistant, -1 when nobody works there."""
    cdef const Pl* p = &s.players[seat]
    if p.has_work and p.work_slot == slot:
        return p.work_mode
    if assistant_at(s, seat, slot) >= 0:
        return 2
    return -1


cdef inline void requirement(const St* s, const Cat* c, int seat, int slot,
                             int* need) noexcept nogil:
    cdef int avail[5]
    cdef int i, key, n, total, v
    cdef int ninputs
    cdef const int* keys
    cdef const int* ns
    market_counts(s, c, seat, avail)
    for i in range(6):
        need[i] = 0
    if slot == 0:
        ninputs = c.cb_ninputs[s.players[seat].charburner]
        keys = c.cb_in_key[s.players[seat].charburner]
        ns = c.cb_in_n[s.players[seat].charburner]
    else:
        ninputs = c.c_ninputs[s.players[seat].buildings[slot - 1]]
        keys = c.c_in_key[s.players[seat].buildings[slot - 1]]
        ns = c.c_in_n[s.players[seat].buildings[slot - 1]]
    for i in range(ninputs):
        key = keys[i]
        n = ns[i]
        if key == ANY_KEY:
            total = avail[0] + avail[1] + avail[2] + avail[3] + avail[4]
            v = n - total
            need[5] = v if v > 0 else 0
        else:
            v = n - avail[key]
            need[key] = v if v > 0 else 0


cdef inline int shortfall(const St* s, const Cat* c, int seat, const int* need) noexcept nogil:
    cdef int hand[5]
    cdef int r, v, total = 0
    cdef int short = 0
    hand_counts(s, c, seat, hand)
    for r in range(5):
        v = need[r] - hand[r]
        if v > 0:
            short += v
        total += hand[r]
    v = need[5] - total
    if v > 0:
        short += v
    return short


cdef inline int chain_sources(const St* s, const Cat* c, int seat, int slot, int* resource,
                              int* sources) noexcept nogil:
    """The chain's hand resource (-1: none) and per goods item a slot holding it (or -1)."""
    cdef int b = slot_building(s, c, seat, slot)
    cdef int i, k, found, maker
    cdef int n = 0
    resource[0] = -1
    for i in range(c.b_nchain[b]):
        if c.b_chain_res[b][i] >= 0:
            resource[0] = c.b_chain_res[b][i]
            continue
        maker = c.b_chain_maker[b][i]
        found = -1
        for k in range(num_slots(s, seat)):
            if k != slot and slot_building(s, c, seat, k) == maker and \
                    s.players[seat].ngoods[k]:
                found = k
                break
        sources[n] = found
        n += 1
    return n


cdef inline int chain_need(const St* s, const Cat* c, int seat, int slot) noexcept nogil:
    """What a chain from ``slot`` needs from the hand: NO_CHAIN when the building has no
    chain or a source it needs is missing, -1 for no card, else the resource."""
    cdef int resource
    cdef int sources[2]
    cdef int n, i
    if c.b_nchain[slot_building(s, c, seat, slot)] == 0:
        return NO_CHAIN
    n = chain_sources(s, c, seat, slot, &resource, sources)
    for i in range(n):
        if sources[i] < 0:
            return NO_CHAIN
    return resource


cdef inline bint chain_ok(const St* s, const Cat* c, int seat, int slot, int card) noexcept nogil:
    """``_chain_reason(seat, slot, card) is None``."""
    if slot < 0:
        return False
    cdef int resource = chain_need(s, c, seat, slot)
    if resource == NO_CHAIN:
        return False
    if resource < 0:
        return card == NO_CARD
    if card == NO_CARD:
        return False
    if not in_hand(&s.players[seat], card):
        return False
    return c.c_resource[card] == resource


cdef inline bint can_chain(const St* s, const Cat* c, int seat, int slot) noexcept nogil:
    cdef int i
    cdef const Pl* p = &s.players[seat]
    cdef int resource = chain_need(s, c, seat, slot)
    if resource == NO_CHAIN:
        return False
    if resource < 0:
        return True
    for i in range(p.nhand):
        if c.c_resource[p.hand[i]] == resource:
            return True
    return False


cdef inline bint has_free_work_slot(const St* s, const Cat* c, int seat) noexcept nogil:
    cdef int k
    for k in range(num_slots(s, seat)):
        if is_production(s, c, seat, k) and assistant_at(s, seat, k) < 0:
            return True
    return False


cdef inline bint in_handled(const St* s, int slot) noexcept nogil:
    cdef int i
    for i in range(s.nhandled):
        if s.handled[i] == slot:
            return True
    return False


# -- legality --------------------------------------------------------------------------------

cdef inline bint pay_ok(const St* s, const Cat* c, int seat, int slot) noexcept nogil:
    cdef int reach, k
    cdef const Pl* p = &s.players[seat]
    if not 0 <= slot < num_slots(s, seat):
        return False
    if p.ngoods[slot] == 0:
        return False
    if slot < s.pay_last:
        return False
    reach = s.pay_paid
    for k in range(slot, num_slots(s, seat)):
        reach += p.ngoods[k] * c.b_value[slot_building(s, c, seat, k)]
    return reach >= s.pay_due


cdef inline int pool_face(const St* s, int a) noexcept nogil:
    cdef int i
    for i in range(s.npool):
        if s.pool[i][0] == a:
            return s.pool[i][1]
    return -1


cdef inline bint hire_ok(const St* s, const Cat* c, int seat, int a) noexcept nogil:
    cdef int face = pool_face(s, a)
    cdef int i
    if face < 0:
        return False
    if s.players[seat].nasst >= 2:
        return False
    for i in range(c.a_nneeds[a][face]):
        if colour_count(s, c, seat, c.a_need_colour[a][face][i]) < c.a_need_n[a][face][i]:
            return False
    if coins(s, c, seat) < c.a_cost[a][face]:
        return False
    return has_free_work_slot(s, c, seat)


cdef inline bint produce_ok(const St* s, const Cat* c, int seat, int slot) noexcept nogil:
    cdef int need[6]
    cdef int mode, slack
    if in_handled(s, slot):
        return False
    mode = occupant_mode(s, seat, slot)
    if mode < 0:
        return False
    requirement(s, c, seat, slot, need)
    slack = 1 if mode == SLOPPY else 0
    return shortfall(s, c, seat, need) <= slack


cdef inline bint shift_ok(const St* s, const Cat* c, int seat, int ai, int slot) noexcept nogil:
    cdef const Pl* p = &s.players[seat]
    cdef int a = p.asst[ai][0]
    cdef int i
    # ``mine[0]`` is the first of the player's entries for this assistant
    for i in range(ai):
        if p.asst[i][0] == a:
            ai = i
            break
    for i in range(s.nshifted):
        if s.shifted[i] == a:
            return False
    if not is_production(s, c, seat, slot):
        return False
    if p.asst[ai][2] == slot:
        return False
    if assistant_at(s, seat, slot) >= 0:
        return False
    return coins(s, c, seat) >= SHIFT_COST


cdef int gen_moves(const St* s, const Cat* c, int* moves) noexcept nogil:
    """The reference's candidates in order, kept when ``why_illegal`` is None."""
    cdef int n = 0
    cdef int seat, ns, k, i, nc, r
    cdef const Pl* p
    cdef int cards[MAXC]
    if s.phase == PH_OVER:
        return 0
    seat = seat_of(s)
    p = &s.players[seat]
    ns = num_slots(s, seat)
    if s.has_pay:
        for k in range(ns):
            if pay_ok(s, c, seat, k):
                moves[n] = PAY << 10 | k
                n += 1
        return n
    if s.phase == PH_REDRAW:
        moves[n] = KEEP << 10
        n += 1
        if p.nhand:
            moves[n] = REDRAW << 10
            n += 1
        return n
    if s.phase == PH_SHIFT:
        for i in range(p.nasst):
            for k in range(ns):
                if shift_ok(s, c, seat, i, k):
                    moves[n] = SHIFT << 10 | (p.asst[i][0] * 64 + k)
                    n += 1
        moves[n] = PASS << 10
        n += 1
        return n
    if s.phase == PH_CHOOSE:
        if p.chosen == 0:
            for k in range(ns):
                if is_production(s, c, seat, k) and assistant_at(s, seat, k) < 0:
                    moves[n] = WORK_ORDERLY << 10 | k
                    moves[n + 1] = WORK_SLOPPY << 10 | k
                    n += 2
            if n == 0:  # idle only when no production building is free
                moves[n] = IDLE << 10
                n += 1
            return n
        nc = sorted_hand(p, c, cards)
        for i in range(nc):
            moves[n] = PLAN << 10 | cards[i]
            n += 1
        moves[n] = PLAN_NONE << 10
        n += 1
        return n
    if s.step == ST_RUN:
        for k in range(ns):
            if produce_ok(s, c, seat, k):
                moves[n] = PRODUCE << 10 | k
                n += 1
        if s.second_edition and last_round(s):
            for k in range(ns):
                if is_production(s, c, seat, k) and not in_handled(s, k) and \
                        can_chain(s, c, seat, k):
                    moves[n] = CHAIN_ONLY << 10 | k
                    n += 1
        moves[n] = DONE << 10
        n += 1
        return n
    if s.step == ST_SUPPLY:
        nc = sorted_hand(p, c, cards)
        for i in range(nc):
            r = c.c_resource[cards[i]]
            if s.need[5] != 0 or s.need[r] != 0:
                moves[n] = SUPPLY << 10 | cards[i]
                n += 1
        return n
    if s.step == ST_CHAIN:
        nc = sorted_hand(p, c, cards)
        for i in range(nc):
            if chain_ok(s, c, seat, s.chain_slot, cards[i]):
                moves[n] = CHAIN << 10 | cards[i]
                n += 1
        if chain_ok(s, c, seat, s.chain_slot, NO_CARD):
            moves[n] = CHAIN << 10 | NO_CARD
            n += 1
        moves[n] = STOP << 10
        n += 1
        return n
    if s.step == ST_BUILD:
        if coins(s, c, seat) >= c.c_cost[p.plan]:
            moves[n] = BUILD << 10
            n += 1
        moves[n] = SCRAP << 10
        n += 1
        return n
    if s.step == ST_HIRE:
        for i in range(s.npool):
            if hire_ok(s, c, seat, s.pool[i][0]):
                moves[n] = HIRE << 10 | s.pool[i][0]
                n += 1
        moves[n] = PASS << 10
        n += 1
        return n
    for k in range(ns):  # place
        if is_production(s, c, seat, k) and assistant_at(s, seat, k) < 0:
            moves[n] = PLACE << 10 | k
            n += 1
    return n


# -- applying moves ----------------------------------------------------------------------------

cdef inline void produce(St* s, const Cat* c, int seat) noexcept nogil:
    cdef int slot = s.running
    cdef int made = 0
    cdef int i, card, r
    cdef Pl* p = &s.players[seat]
    for i in range(s.produce_count):
        card = draw(s, c)
        if card < 0:
            break
        p.goods[slot][p.ngoods[slot]] = card
        p.ngoods[slot] += 1
        made += 1
    s.running = -1
    for r in range(6):
        s.need[r] = 0
    if made and can_chain(s, c, seat, slot):
        s.step = ST_CHAIN
        s.chain_slot = slot
    else:
        s.step = ST_RUN


cdef inline void do_chain(St* s, const Cat* c, int seat, int card) noexcept nogil:
    """Every item the chain takes becomes a good here: the hand card (shown to every
    seat) first, then one good from each source building, in source order."""
    cdef int slot = s.chain_slot
    cdef Pl* p = &s.players[seat]
    cdef int resource
    cdef int sources[2]
    cdef int nsrc, i, src
    nsrc = chain_sources(s, c, seat, slot, &resource, sources)
    if card != NO_CARD:
        hand_remove(p, card)
        s.shown[card] = 1
        p.goods[slot][p.ngoods[slot]] = card
        p.ngoods[slot] += 1
    for i in range(nsrc):
        src = sources[i]
        if src >= 0 and p.ngoods[src] > 0:
            p.ngoods[src] -= 1
            p.goods[slot][p.ngoods[slot]] = p.goods[src][p.ngoods[src]]
            p.ngoods[slot] += 1
    if not can_chain(s, c, seat, slot):
        s.step = ST_RUN
        s.chain_slot = -1


cdef inline void paid(St* s, const Cat* c, int seat) noexcept nogil:
    cdef Pl* p = &s.players[seat]
    cdef int a, slot, i
    s.has_pay = 0
    if s.pay_purpose == PU_SHIFT:
        a = s.pay_arg // 64
        slot = s.pay_arg % 64
        for i in range(p.nasst):
            if p.asst[i][0] == a:
                p.asst[i][2] = slot
        s.shifted[s.nshifted] = a
        s.nshifted += 1
    elif s.pay_purpose == PU_BUILD:
        p.buildings[p.nb] = s.pay_arg
        p.nb += 1
        p.ngoods[p.nb] = 0
        p.plan = -1
        s.step = ST_HIRE
    else:
        s.hired = s.pay_arg
        s.step = ST_PLACE


cdef inline void set_pay(St* s, int due, int purpose, int arg) noexcept nogil:
    s.has_pay = 1
    s.pay_due = due
    s.pay_paid = 0
    s.pay_last = 0
    s.pay_purpose = purpose
    s.pay_arg = arg


cdef inline void finish_act(St* s, const Cat* c) noexcept nogil:
    reset_act(s)
    next_seat(s, c)
    if s.phase == PH_ACT:
        reset_act(s)


cdef void apply_legal(St* s, const Cat* c, int move) noexcept nogil:
    cdef int kind = move >> 10
    cdef int arg = move & 1023
    cdef int seat = seat_of(s)
    cdef Pl* p = &s.players[seat]
    cdef int i, count, card, mode, r, total, face, cost
    if kind == KEEP:
        next_seat(s, c)
    elif kind == REDRAW:
        count = p.nhand
        for i in range(count):
            s.discard[s.ndiscard] = p.hand[i]
            s.ndiscard += 1
        p.nhand = 0
        draw_into_hand(s, c, p, count)
        next_seat(s, c)
    elif kind == SHIFT:
        set_pay(s, SHIFT_COST, PU_SHIFT, arg)
    elif kind == PASS:
        if s.phase == PH_ACT:
            finish_act(s, c)
        else:
            next_seat(s, c)
    elif kind == WORK_ORDERLY or kind == WORK_SLOPPY or kind == IDLE:
        p.has_work = 1
        if kind == IDLE:
            p.work_slot = -1
            p.work_mode = ORDERLY
        else:
            p.work_slot = arg
            p.work_mode = kind - WORK_ORDERLY
        p.chosen = 1
    elif kind == PLAN or kind == PLAN_NONE:
        if kind == PLAN:
            hand_remove(p, arg)
            p.plan = arg
        p.chosen = 2
        next_seat(s, c)
    elif kind == PAY:
        p.ngoods[arg] -= 1
        card = p.goods[arg][p.ngoods[arg]]
        s.shown[card] = 0
        s.discard[s.ndiscard] = card
        s.ndiscard += 1
        s.pay_paid += c.b_value[slot_building(s, c, seat, arg)]
        s.pay_last = arg
        if s.pay_paid >= s.pay_due:
            paid(s, c, seat)
    elif kind == PRODUCE:
        mode = occupant_mode(s, seat, arg)
        s.running = arg
        requirement(s, c, seat, arg, s.need)
        s.slack = 1 if mode == SLOPPY else 0
        s.produce_count = 2 if mode == ORDERLY else 1
        s.handled[s.nhandled] = arg
        s.nhandled += 1
        total = 0
        for r in range(6):
            total += s.need[r]
        if total <= s.slack:
            produce(s, c, seat)
        else:
            s.step = ST_SUPPLY
    elif kind == SUPPLY:
        hand_remove(p, arg)
        s.discard[s.ndiscard] = arg
        s.ndiscard += 1
        r = c.c_resource[arg]
        if s.need[r] > 0:
            s.need[r] -= 1
        else:
            s.need[5] -= 1
        total = 0
        for r in range(6):
            total += s.need[r]
        if total <= s.slack:
            produce(s, c, seat)
    elif kind == CHAIN_ONLY:
        s.handled[s.nhandled] = arg
        s.nhandled += 1
        s.chain_slot = arg
        s.step = ST_CHAIN
    elif kind == CHAIN:
        do_chain(s, c, seat, arg)
    elif kind == STOP:
        s.step = ST_RUN
        s.chain_slot = -1
    elif kind == DONE:
        p.has_work = 0
        s.step = ST_BUILD if p.plan >= 0 else ST_HIRE
    elif kind == BUILD:
        cost = c.c_cost[p.plan]
        set_pay(s, cost, PU_BUILD, p.plan)
        if cost == 0:
            paid(s, c, seat)
    elif kind == SCRAP:
        s.discard[s.ndiscard] = p.plan
        s.ndiscard += 1
        p.plan = -1
        s.step = ST_HIRE
    elif kind == HIRE:
        face = pool_face(s, arg)
        cost = c.a_cost[arg][face]
        set_pay(s, cost, PU_HIRE, arg)
        if cost == 0:
            paid(s, c, seat)
    elif kind == PLACE:
        face = pool_face(s, s.hired)
        r = 0
        for i in range(s.npool):
            if s.pool[i][0] != s.hired:
                s.pool[r][0] = s.pool[i][0]
                s.pool[r][1] = s.pool[i][1]
                r += 1
        s.npool = r
        p.asst[p.nasst][0] = s.hired
        p.asst[p.nasst][1] = face
        p.asst[p.nasst][2] = arg
        p.nasst += 1
        s.hired = -1
        finish_act(s, c)


cdef int autoplay(St* s, const Cat* c) noexcept nogil:
    """Play forced moves (a single legal option) at once; returns the count."""
    cdef int moves[MAX_MOVES]
    cdef int n
    cdef int played = 0
    while s.phase != PH_OVER:
        n = gen_moves(s, c, moves)
        if n != 1:
            break
        apply_legal(s, c, moves[0])
        played += 1
    return played


cdef long c_rollout(St* s, const Cat* c, uint64_t* rng, long max_moves,
                     int* err) noexcept nogil:
    """Random moves to the end, as ``OhMyGoodsState.rollout``; returns the moves chosen.
    At most ``max_moves`` of them (0: no limit): a truncated playout."""
    cdef int moves[MAX_MOVES]
    cdef int n
    cdef long steps = 0
    err[0] = 0
    while s.phase != PH_OVER and (max_moves == 0 or steps < max_moves):
        n = gen_moves(s, c, moves)
        if n == 0:
            err[0] = 1
            break
        apply_legal(s, c, moves[furnace_splitmix64(rng) % <uint64_t>n])
        autoplay(s, c)
        steps += 1
    return steps


cdef long c_guided_rollout(St* s, const Cat* c, uint64_t* rng, const double* values,
                           double epsilon, int* trace, long capacity, long max_moves,
                           int* err) noexcept nogil:
    """Epsilon-greedy moves over ``values``, as ``engine.guided_playout`` (forced moves
    auto-played, as ``apply`` does); returns the decisions recorded in ``trace``."""
    cdef int moves[MAX_MOVES]
    cdef int n, seat, index
    cdef long played = 0
    cdef long recorded = 0
    err[0] = 0
    while s.phase != PH_OVER and (max_moves == 0 or played < max_moves):
        n = gen_moves(s, c, moves)
        if n == 0:
            err[0] = 1
            break
        seat = seat_of(s)
        index = guided_choice(moves, n, seat, values, epsilon, rng)
        if recorded < capacity:
            trace[recorded] = (seat << MOVE_SLOT_BITS) + move_slot(moves[index])
            recorded += 1
        apply_legal(s, c, moves[index])
        autoplay(s, c)
        played += 1
    return recorded


# -- catalogue ----------------------------------------------------------------------------

cdef int fill_catalogue(Cat* c, object catalogue) except -1:
    """Oh My Goods!' cards, buildings, charburners and assistants into ``c``."""
    cdef int i, j, k
    if len(catalogue.cards) >= MAXC:
        raise ValueError(f"the Oh My Goods! kernel supports fewer than {MAXC} deck cards")
    if len(catalogue.buildings) > MAX_BUILDINGS:
        raise ValueError(f"the kernel supports at most {MAX_BUILDINGS} building types")
    if len(catalogue.assistants) > MAX_ASSISTANTS:
        raise ValueError(f"the kernel supports at most {MAX_ASSISTANTS} assistants")
    if len(catalogue.charburners) > MAX_CHARBURNERS:
        raise ValueError(f"the kernel supports at most {MAX_CHARBURNERS} charburners")
    c.ncards = len(catalogue.cards)
    c.nbuildings = len(catalogue.buildings)
    c.ncharburners = len(catalogue.charburners)
    c.nassistants = len(catalogue.assistants)
    c.charburner_building = catalogue.charburner_building
    makers = {b.good: i for i, b in enumerate(catalogue.buildings) if b.good}
    for i, b in enumerate(catalogue.buildings):
        c.b_colour[i] = COLOURS.index(b.colour)
        c.b_value[i] = b.value
        c.b_production[i] = bool(b.production)
        if len(b.chain) > 2:
            raise ValueError(f"{b.id}: the kernel supports chains of at most 2 items")
        c.b_nchain[i] = len(b.chain)
        for j, item in enumerate(b.chain):
            if item in RESOURCES:
                c.b_chain_res[i][j] = RESOURCES.index(item)
                c.b_chain_maker[i][j] = -1
            else:
                c.b_chain_res[i][j] = -1
                c.b_chain_maker[i][j] = makers[item]
    for i, card in enumerate(catalogue.cards):
        c.c_building[i] = card.building
        c.c_cost[i] = card.cost
        c.c_vp[i] = card.vp
        c.c_resource[i] = RESOURCES.index(card.resource)
        c.c_half_sun[i] = bool(card.half_sun)
        if card.market is None:
            c.c_market[i] = MARKET_NONE
        elif card.market == EXTRA_CARD:
            c.c_market[i] = MARKET_CARD
        else:
            c.c_market[i] = RESOURCES.index(card.market)
        if len(card.inputs) > MAX_INPUTS:
            raise ValueError(f"{card.id}: too many inputs for the kernel")
        c.c_ninputs[i] = len(card.inputs)
        for j, (key, n) in enumerate(card.inputs):
            c.c_in_key[i][j] = ANY_KEY if key == ANY else RESOURCES.index(key)
            c.c_in_n[i][j] = n
    for i, burner in enumerate(catalogue.charburners):
        if len(burner.inputs) > MAX_INPUTS:
            raise ValueError(f"{burner.id}: too many inputs for the kernel")
        c.cb_ninputs[i] = len(burner.inputs)
        for j, (key, n) in enumerate(burner.inputs):
            c.cb_in_key[i][j] = ANY_KEY if key == ANY else RESOURCES.index(key)
            c.cb_in_n[i][j] = n
    for i, assistant in enumerate(catalogue.assistants):
        for k, face in enumerate(assistant.faces):
            c.a_cost[i][k] = face.cost
            c.a_vp[i][k] = face.vp
            if len(face.needs) > MAX_NEEDS:
                raise ValueError(f"{assistant.id}: too many needs for the kernel")
            c.a_nneeds[i][k] = len(face.needs)
            for j, (colour, n) in enumerate(face.needs):
                c.a_need_colour[i][k][j] = COLOURS.index(colour)
                c.a_need_n[i][k][j] = n
    return 0


include "kernel_catalogue.pxi"


include "catalogue_cache.pxi"
include "reference_checks.pxi"


# -- heuristic terms (state.OhMyGoodsState._plan_promise / _work_promise) -------------------

cdef inline double plan_promise(const St* s, const Cat* c, int seat, int money) noexcept nogil:
    cdef int plan = s.players[seat].plan
    cdef double gain
    if plan < 0:
        return 0.0
    if c.c_cost[plan] > money:
        return 0.3
    gain = c.c_vp[plan] + 0.1 * c.b_value[c.c_building[plan]] - (<double>c.c_cost[plan]) / COINS_PER_VP
    return 0.3 + 0.5 * (gain if gain > 0.0 else 0.0)


cdef inline double work_promise(const St* s, const Cat* c, int seat) noexcept nogil:
    cdef const Pl* pl = &s.players[seat]
    cdef int need[6]
    cdef int short
    cdef double goods
    if s.phase != PH_CHOOSE or not pl.has_work or pl.work_slot < 0:
        return 0.0
    requirement(s, c, seat, pl.work_slot, need)
    short = shortfall(s, c, seat, need)
    if pl.work_mode == ORDERLY:
        goods = 2.0 if short == 0 else 0.8
    else:
        goods = 1.0 if short <= 1 else 0.4
    return 0.8 * goods * c.b_value[slot_building(s, c, seat, pl.work_slot)] / COINS_PER_VP


# -- determinization helpers -----------------------------------------------------------------

include "random_draws.pxi"


cdef int supply_cards(const St* s, const Cat* c, const unsigned char* unseen, int n,
                      const unsigned char* in_pile, unsigned char* kept) noexcept nogil:
    """``OhMyGoodsState._supply_cards``: the unseen cards the seat to move keeps while
    it supplies out of sight, into ``kept`` (returns how many).

    In ``unseen``'s order: per resource as many as still needed from outside the
    reshuffled pile (``in_pile``), trimmed from the last resource to the mover's hand
    size; then pile cards for what is missing, as far as the draw pile can spare them.
    """
    cdef int outside[5]
    cdef int inside[5]
    cdef int take[5]
    cdef int r, i, total, got, card, room, spare, extra
    cdef int nkept = 0
    for r in range(5):
        outside[r] = 0
        inside[r] = 0
    for i in range(n):
        card = unseen[i]
        if in_pile[card]:
            inside[c.c_resource[card]] += 1
        else:
            outside[c.c_resource[card]] += 1
    room = s.players[seat_of(s)].nhand
    total = 0
    for r in range(5):
        take[r] = s.need[r] if s.need[r] < outside[r] else outside[r]
        total += take[r]
    r = 4
    while total > room:
        if take[r]:
            take[r] -= 1
            total -= 1
        else:
            r -= 1
    for r in range(5):
        got = 0
        for i in range(n):
            if got >= take[r]:
                break
            card = unseen[i]
            if c.c_resource[card] == r and not in_pile[card]:
                kept[nkept] = card
                nkept += 1
                got += 1
    spare = -s.ndeck
    for r in range(5):
        spare += inside[r]
    for r in range(5):
        extra = s.need[r] - take[r]
        if inside[r] < extra:
            extra = inside[r]
        if spare < extra:
            extra = spare
        if room - nkept < extra:
            extra = room - nkept
        if extra <= 0:
            continue
        got = 0
        for i in range(n):
            if got >= extra:
                break
            card = unseen[i]
            if c.c_resource[card] == r and in_pile[card]:
                kept[nkept] = card
                nkept += 1
                got += 1
        spare -= extra
    return nkept


cdef int c_determinize(St* s, const Cat* c, int obs, Words* words) except -1:
    """The reference's ``determinize`` in place, for seat ``obs`` (-1: the host),
    drawing the words ``random.Random`` draws (``shuffle`` and ``randrange`` go
    through ``_randbelow``)."""
    cdef Pl* pl
    cdef int p, k, i, j, n, size, has_plan, tmp, nopt, pick, card, ndeck, nrest, nkept
    cdef bint host = obs < 0
    cdef int plan_seat = -1
    cdef unsigned char unseen[MAXC]
    cdef unsigned char rest[MAXC]
    cdef unsigned char flag[MAXC]
    cdef unsigned char kept[MAXC]
    cdef unsigned char taken[MAXC]
    cdef int level[MAXP]
    cdef int options[2 * MAX_SLOTS]
    cdef unsigned char sorted_hand[MAXC]
    if s.phase == PH_ACT and s.has_pay and s.pay_purpose == PU_BUILD:
        plan_seat = seat_of(s)
    # Every unseen card, in ascending order (cards are distinct numbers): the deck,
    # goods no chain showed, and for a seat the other hands and secret plans.
    memset(flag, 0, MAXC)
    for i in range(s.ndeck):
        flag[s.deck[i]] = 1
    for p in range(s.nplayers):
        pl = &s.players[p]
        for k in range(num_slots(s, p)):
            for i in range(pl.ngoods[k]):
                card = pl.goods[k][i]
                if not s.shown[card]:
                    flag[card] = 1
        if not host and p != obs:
            for i in range(pl.nhand):
                flag[pl.hand[i]] = 1
            if pl.plan >= 0 and p != plan_seat:
                flag[pl.plan] = 1
    n = 0
    for i in range(MAXC):
        if flag[i]:
            unseen[n] = i
            n += 1
    for i in range(n - 1, 0, -1):
        j = words_below(words, i + 1)
        tmp = unseen[i]
        unseen[i] = unseen[j]
        unseen[j] = tmp
    # ``flag``: the cards of the last reshuffle (none before the first one).
    memset(flag, 0, MAXC)
    for i in range(s.nreshuffled):
        flag[s.reshuffled[i]] = 1
    # A seat supplying resources out of sight keeps cards that cover them.
    nkept = 0
    if not host and s.phase == PH_ACT and s.step == ST_SUPPLY and obs != seat_of(s):
        nkept = supply_cards(s, c, unseen, n, flag, kept)
        if nkept:
            memset(taken, 0, MAXC)
            for i in range(nkept):
                taken[kept[i]] = 1
            j = 0
            for i in range(n):
                if not taken[unseen[i]]:
                    unseen[j] = unseen[i]
                    j += 1
            n = j
    # The draw pile takes the first shuffled cards that may be there (after a
    # reshuffle only cards of that pile); the rest keep their shuffled order.
    ndeck = 0
    nrest = 0
    for i in range(n):
        card = unseen[i]
        if ndeck < s.ndeck and (s.nreshuffled == 0 or flag[card]):
            s.deck[ndeck] = card
            ndeck += 1
        else:
            rest[nrest] = card
            nrest += 1
    if ndeck != s.ndeck:
        raise AssertionError("determinize: too few unseen cards fit the draw pile")
    # Deal the rest back where they were hidden, popping from the end like the reference.
    for p in range(s.nplayers):
        level[p] = 0
    for p in range(s.nplayers):
        if host or p == obs:
            continue
        pl = &s.players[p]
        size = pl.nhand
        has_plan = pl.plan >= 0 and p != plan_seat
        if s.phase == PH_CHOOSE and pl.chosen > 0:
            level[p] = pl.chosen
            pl.chosen = 0
            pl.has_work = 0
            size += has_plan
            has_plan = 0
            pl.plan = -1
        i = 0
        if p == seat_of(s):
            memcpy(pl.hand, kept, nkept)
            i = nkept
        while i < size:
            nrest -= 1
            pl.hand[i] = rest[nrest]
            i += 1
        pl.nhand = size
        if has_plan:
            nrest -= 1
            pl.plan = rest[nrest]
    for p in range(s.nplayers):
        pl = &s.players[p]
        for k in range(num_slots(s, p)):
            for i in range(pl.ngoods[k]):
                if not s.shown[pl.goods[k][i]]:
                    nrest -= 1
                    pl.goods[k][i] = rest[nrest]
    if nrest:
        raise AssertionError("determinize: the draw pile holds cards outside the "
                             "last reshuffle")
    words_bits64(words, &s.rng)
    # Hidden phase II choices are drawn again, uniformly, for the new hands.
    for p in range(s.nplayers):
        if level[p] == 0:
            continue
        pl = &s.players[p]
        nopt = 0
        for k in range(num_slots(s, p)):
            if is_production(s, c, p, k) and assistant_at(s, p, k) < 0:
                options[nopt] = 2 * k + ORDERLY
                options[nopt + 1] = 2 * k + SLOPPY
                nopt += 2
        pl.has_work = 1
        if nopt:
            pick = options[words_below(words, nopt)]
            pl.work_slot = pick // 2
            pl.work_mode = pick % 2
        else:
            pl.work_slot = -1
            pl.work_mode = 0
        pl.chosen = 1
        if level[p] >= 2:
            # choices = [None, *sorted(hand)]
            memcpy(sorted_hand, pl.hand, pl.nhand)
            sort_bytes(sorted_hand, pl.nhand)
            pick = words_below(words, pl.nhand + 1)
            if pick > 0:
                pl.plan = sorted_hand[pick - 1]
                remove_byte(pl.hand, &pl.nhand, pl.plan)
            pl.chosen = 2
    return 0


cdef int search_current_player(const St* s) noexcept nogil:
    if s.phase == PH_OVER:
        return C_TERMINAL
    return seat_of(s)


cdef int c_heuristic(const St* s, const Cat* c, double* out) noexcept nogil:
    """Points, coins, cards in hand, production, assistants and the promise of the plan
    and the work in hand, per seat (the reference's ``heuristic``)."""
    cdef int p, k, production, money
    for p in range(s.nplayers):
        production = 0
        for k in range(num_slots(s, p)):
            production += c.b_value[slot_building(s, c, p, k)]
        money = coins(s, c, p)
        out[p] = (vp_of(s, c, p) + (<double>money) / COINS_PER_VP
                  + 0.3 * s.players[p].nhand + 0.1 * production
                  + 0.5 * s.players[p].nasst
                  + plan_promise(s, c, p, money) + work_promise(s, c, p))
    return 0


# -- the features (engine.oh_my_goods.features) -------------------------------------------------
cdef enum:
    NFEATURES = 11        # len(engine.oh_my_goods.features.FEATURES)


cdef int features(const St* s, const Cat* c, int seat, double* out) noexcept nogil:
    """features.features of ``seat`` into ``out`` (NFEATURES values)."""
    cdef const Pl* p = &s.players[seat]
    cdef double judged[MAXP]
    cdef int k, b, money, production = 0, chains = 0, capacity = 0, goods = 0
    c_heuristic(s, c, judged)
    for k in range(p.nb):
        b = c.c_building[p.buildings[k]]
        production += c.b_production[b] != 0
        chains += c.b_nchain[b] > 0
    for k in range(num_slots(s, seat)):
        capacity += c.b_value[slot_building(s, c, seat, k)]
        goods += p.ngoods[k]
    money = coins(s, c, seat)
    out[0] = vp_of(s, c, seat)
    out[1] = money
    out[2] = vp_of(s, c, seat) + money // COINS_PER_VP
    out[3] = p.nb
    out[4] = production
    out[5] = chains
    out[6] = capacity
    out[7] = goods
    out[8] = p.nhand
    out[9] = p.nasst
    out[10] = judged[seat]
    return 0


cdef int c_outcome(const St* s, const Cat* c, double* scores, double* shares) noexcept nogil:
    """Points (coins count a point per COINS_PER_VP), and the win shared by the seats
    ranked first: most points, then most coins left over (``State.outcome``)."""
    cdef int p, money, points, spare, winners = 0
    cdef int best_points = 0, best_spare = 0
    cdef int keys[MAXP][2]
    for p in range(s.nplayers):
        money = coins(s, c, p)
        points = vp_of(s, c, p) + money // COINS_PER_VP
        spare = money % COINS_PER_VP
        keys[p][0] = points
        keys[p][1] = spare
        scores[p] = <double>points
        if (winners == 0 or points > best_points
                or (points == best_points and spare > best_spare)):
            best_points = points
            best_spare = spare
            winners = 1
        elif points == best_points and spare == best_spare:
            winners += 1
    for p in range(s.nplayers):
        shares[p] = (1.0 / winners if keys[p][0] == best_points and keys[p][1] == best_spare
                     else 0.0)
    return 0


# -- the state ------------------------------------------------------------------------------

#: What a playout that reaches a position without legal moves says.
PLAYOUT_ERROR = "playout reached a position without legal moves"

include "kernel_state.pxi"
include "move_list.pxi"


cdef class KernelState(FreshMovesState):
    """An Oh My Goods! position on the C struct; behaves like ``OhMyGoodsState``."""

    info = INFO


    # -- construction -------------------------------------------------------------
    @staticmethod
    def from_reference(state) -> KernelState:
        """The kernel twin of a reference state (ValueError if it does not fit the struct).

        Every number that indexes an array during play is checked here, once: card
        numbers (each card in one place), seats, building slots, assistants and faces,
        and what phase IV's step reads (the building being run or chained, the plan
        being built, the assistant being hired or placed, the payment's argument).  A
        state from ``Game.state_from_json`` always fits; anything else is refused with
        ValueError rather than played out of bounds.
        """
        cdef KernelState k = KernelState.__new__(KernelState)
        cdef St* s = &k.s
        cdef Pl* pl
        cdef int i, j, p, seat, slots
        cdef unsigned char placed[MAXC]
        catalogue = state.catalogue
        k.kc = kernel_catalogue(catalogue)
        k.cat = &k.kc.c
        cdef const Cat* c = k.cat
        n = state.num_players
        if not isinstance(n, int) or not 1 <= n <= MAXP or len(state.players) != n:
            raise ValueError(f"the Oh My Goods! kernel supports 1..{MAXP} players")
        k.num_players = n
        memset(placed, 0, MAXC)
        s.rng = state.rng[0] & MASK64
        s.nplayers = n
        s.second_edition = bool(state.second_edition)
        s.round = _within(state.round, 0, 1 << 20, "round")
        s.active = _within(state.active, 0, n - 1, "active")
        s.turn = _within(state.turn, 0, n - 1, "turn")
        # Buildings grow by at most one per round: these bounds keep every slot in the
        # struct until the game ends.
        if state.final_round is None:
            s.final_round = -1
        else:
            s.final_round = _within(state.final_round, 0, s.round + 1,
                                    "final_round (at most one round ahead)")
        s.phase = PHASES.index(state.phase)
        s.step = STEPS.index(state.step)
        _fill_cards(s.deck, state.deck, placed, c.ncards, "deck")
        s.ndeck = len(state.deck)
        _fill_cards(s.discard, state.discard, placed, c.ncards, "discard")
        s.ndiscard = len(state.discard)
        _fill_cards(s.display, state.display, placed, c.ncards, "display")
        s.ndisplay = len(state.display)
        s.sunset_at = _within(state.sunset_at, -1, MAXC, "sunset_at")
        for card in state.shown:
            s.shown[_within(card, 0, c.ncards - 1, "shown goods")] = 1
        if len(state.reshuffled) > c.ncards:
            raise ValueError("reshuffled: more than the cards of the game")
        for i, card in enumerate(state.reshuffled):
            s.reshuffled[i] = _within(card, 0, c.ncards - 1, "reshuffled")
        s.nreshuffled = len(state.reshuffled)
        if len(state.pool) > c.nassistants:
            raise ValueError("pool: more than the assistants of the game")
        s.npool = len(state.pool)
        for i, (a, f) in enumerate(state.pool):
            s.pool[i][0] = _within(a, 0, c.nassistants - 1, "pool assistant")
            s.pool[i][1] = _within(f, 0, 1, "pool face")
            for j in range(i):
                if s.pool[j][0] == a:
                    raise ValueError(f"pool: assistant {a} is listed twice")
        if len(state._starting_sizes) != n:
            raise ValueError("starting hand sizes must name every seat")
        s.nstarting = n
        for i, v in enumerate(state._starting_sizes):
            s.starting[i] = _within(v, 0, MAXC, "starting hand size")
        for p, player in enumerate(state.players):
            pl = &s.players[p]
            pl.charburner = _within(player.charburner, 0, c.ncharburners - 1,
                                    f"player {p} charburner")
            pl.worker = _within(player.worker, 0, 1 << 20, f"player {p} worker")
            _fill_cards(pl.hand, player.hand, placed, c.ncards, f"player {p} hand")
            pl.nhand = len(player.hand)
            if 1 + len(player.buildings) > MAX_SLOTS - 3:
                raise ValueError(f"player {p}: too many buildings for the kernel")
            _fill_cards(pl.buildings, player.buildings, placed, c.ncards,
                        f"player {p} buildings")
            pl.nb = len(player.buildings)
            slots = 1 + pl.nb
            if len(player.goods) != slots:
                raise ValueError(f"player {p}: one goods list per building expected")
            for j, goods in enumerate(player.goods):
                _fill_cards(pl.goods[j], goods, placed, c.ncards, f"player {p} goods")
                pl.ngoods[j] = len(goods)
            if len(player.assistants) > 2:
                raise ValueError(f"player {p}: more than 2 assistants")
            pl.nasst = len(player.assistants)
            for i, (a, f, slot) in enumerate(player.assistants):
                pl.asst[i][0] = _within(a, 0, c.nassistants - 1, f"player {p} assistant")
                pl.asst[i][1] = _within(f, 0, 1, f"player {p} assistant face")
                pl.asst[i][2] = _within(slot, 0, slots - 1, f"player {p} assistant slot")
            pl.has_work = player.work is not None
            if player.work is not None:
                pl.work_slot = _within(player.work[0], -1, slots - 1, f"player {p} work slot")
                pl.work_mode = _within(player.work[1], 0, 1, f"player {p} work mode")
            if player.plan is None:
                pl.plan = -1
            else:
                pl.plan = _within(player.plan, 0, c.ncards - 1, f"player {p} plan")
                if placed[pl.plan]:
                    raise ValueError(f"player {p} plan: card {pl.plan} is in two places")
                placed[pl.plan] = 1
            pl.chosen = _within(player.chosen, 0, 2, f"player {p} chosen")
        seat = seat_of(s)
        pl = &s.players[seat]
        slots = 1 + pl.nb
        if len(state.handled) > MAX_HANDLED - MAX_SLOTS:
            raise ValueError("act.handled too long")
        s.nhandled = len(state.handled)
        for i, v in enumerate(state.handled):
            s.handled[i] = _within(v, 0, MAX_SLOTS - 1, "act.handled")
        s.running = _within(state.running, 0 if s.step == ST_SUPPLY else -1, slots - 1,
                            "act.running (a building of the seat to move)")
        if len(state.need) != 6:
            raise ValueError("act.need must hold 6 counts")
        for i in range(6):
            s.need[i] = _within(state.need[i], 0, MAXC, "act.need")
        s.slack = _within(state.slack, 0, 1, "act.slack")
        s.produce_count = _within(state.produce_count, 0, 2, "act.produce_count")
        s.chain_slot = _within(state.chain_slot, 0 if s.step == ST_CHAIN else -1, slots - 1,
                               "act.chain_slot (a building of the seat to move)")
        s.hired = _within(state.hired, -1, c.nassistants - 1, "act.hired")
        if s.step == ST_BUILD and pl.plan < 0:
            raise ValueError("act.step: building without a planned card")
        if s.step == ST_PLACE and (pool_face(s, s.hired) < 0 or pl.nasst >= 2):
            raise ValueError("act.hired: no assistant of the pool to place, or no room for it")
        if len(state.shifted) > 2:
            raise ValueError("act.shifted too long")
        s.nshifted = len(state.shifted)
        for i, a in enumerate(state.shifted):
            s.shifted[i] = _within(a, 0, c.nassistants - 1, "act.shifted")
        pay = state.pay
        s.has_pay = pay is not None
        if pay is not None:
            s.pay_due = _within(pay["due"], 0, 1 << 20, "act.pay.due")
            s.pay_paid = _within(pay["paid"], 0, 1 << 20, "act.pay.paid")
            s.pay_last = _within(pay["last"], 0, slots - 1, "act.pay.last")
            s.pay_purpose = PURPOSES.index(pay["purpose"])
            s.pay_arg = _within(pay["arg"], 0, 1023, "act.pay.arg")
            if s.pay_purpose == PU_SHIFT and not (s.pay_arg // 64 < c.nassistants
                                                  and s.pay_arg % 64 < slots):
                raise ValueError("act.pay.arg: no such assistant or building to shift to")
            if s.pay_purpose == PU_BUILD and s.pay_arg != pl.plan:
                raise ValueError("act.pay.arg: not the planned card")
            if s.pay_purpose == PU_HIRE and (pool_face(s, s.pay_arg) < 0 or pl.nasst >= 2):
                raise ValueError("act.pay.arg: no assistant of the pool to hire, or no room")
        return k

    def moves_known_to(self, observer):
        # Asked once per call, not in search: the reference rules' reading of what
        # the mover's moves depend on serves as it is.
        return self.to_reference().moves_known_to(observer)

    def to_reference(self) -> OhMyGoodsState:
        """The equivalent reference state (``to_json()`` equal to the oracle's)."""
        cdef St* s = &self.s
        cdef Pl* pl
        cdef int i, j, p
        ref = OhMyGoodsState(self.kc.catalogue, self.num_players, bool(s.second_edition))
        ref.rng = [int(s.rng)]
        ref.round = s.round
        ref.active = s.active
        ref.final_round = None if s.final_round < 0 else s.final_round
        ref.phase = PHASES[s.phase]
        ref.turn = s.turn
        ref.deck = [s.deck[i] for i in range(s.ndeck)]
        ref.discard = [s.discard[i] for i in range(s.ndiscard)]
        ref.display = [s.display[i] for i in range(s.ndisplay)]
        ref.sunset_at = s.sunset_at
        ref.pool = [[s.pool[i][0], s.pool[i][1]] for i in range(s.npool)]
        players = []
        for p in range(self.num_players):
            pl = &s.players[p]
            player = Player(pl.charburner, pl.worker)
            player.hand = [pl.hand[i] for i in range(pl.nhand)]
            player.buildings = [pl.buildings[i] for i in range(pl.nb)]
            player.goods = [[pl.goods[j][i] for i in range(pl.ngoods[j])]
                            for j in range(1 + pl.nb)]
            player.assistants = [[pl.asst[i][0], pl.asst[i][1], pl.asst[i][2]]
                                 for i in range(pl.nasst)]
            player.work = (pl.work_slot, pl.work_mode) if pl.has_work else None
            player.plan = None if pl.plan < 0 else pl.plan
            player.chosen = pl.chosen
            players.append(player)
        ref.players = players
        ref.step = STEPS[s.step]
        ref.handled = [s.handled[i] for i in range(s.nhandled)]
        ref.running = s.running
        ref.need = [s.need[i] for i in range(6)]
        ref.slack = s.slack
        ref.produce_count = s.produce_count
        ref.chain_slot = s.chain_slot
        ref.hired = s.hired
        ref.shifted = [s.shifted[i] for i in range(s.nshifted)]
        ref.pay = None if not s.has_pay else {
            "due": s.pay_due, "paid": s.pay_paid, "last": s.pay_last,
            "purpose": PURPOSES[s.pay_purpose], "arg": s.pay_arg}
        ref._starting_sizes = [s.starting[i] for i in range(s.nstarting)]
        ref.shown = {i for i in range(MAXC) if s.shown[i]}
        ref.reshuffled = [s.reshuffled[i] for i in range(s.nreshuffled)]
        return ref

    # -- protocol ------------------------------------------------------------------
    def current_player(self) -> int:
        return search_current_player(&self.s)

    def is_terminal(self) -> bool:
        return self.s.phase == PH_OVER

    def apply(self, move) -> list:
        """Play ``move`` (IllegalMoveError if it is not legal).  Returns no event texts."""
        # bools are ints to the reference rules too (False is move 0, "keep")
        if isinstance(move, int) and 0 <= move < (1 << 20) and self._is_legal(move):
            apply_legal(&self.s, self.cat, move)
            autoplay(&self.s, self.cat)
            return []
        reason = self.to_reference().why_illegal(move)
        if reason is None:  # pragma: no cover - the kernel and the oracle disagree
            reason = "the kernel does not generate it"
        raise IllegalMoveError(reason)

    def clone(self) -> KernelState:
        cdef KernelState twin = KernelState.__new__(KernelState)
        self._copy_into(twin)
        return twin

    def coins(self, seat) -> int:
        return coins(&self.s, self.cat, _within(seat, 0, self.num_players - 1, "seat"))

    def vp(self, seat) -> int:
        return vp_of(&self.s, self.cat, _within(seat, 0, self.num_players - 1, "seat"))

    def scores(self) -> list:
        return [float(vp_of(&self.s, self.cat, p) + coins(&self.s, self.cat, p) // COINS_PER_VP)
                for p in range(self.num_players)]

    def ranking(self) -> list:
        keys = []
        for p in range(self.num_players):
            money = coins(&self.s, self.cat, p)
            keys.append((vp_of(&self.s, self.cat, p) + money // COINS_PER_VP,
                         money % COINS_PER_VP))
        return rank_groups(keys)

    def heuristic(self) -> list:
        cdef double values[MAXP]
        c_heuristic(&self.s, self.cat, values)
        return [values[p] for p in range(self.num_players)]

    def outcome(self) -> Outcome:
        cdef double scores[MAXP]
        cdef double shares[MAXP]
        c_outcome(&self.s, self.cat, scores, shares)
        n = self.num_players
        return Outcome(tuple([scores[p] for p in range(n)]),
                       tuple([shares[p] for p in range(n)]))

    # -- determinization, on the struct -------------------------------------------
    def determinize(self, observer, rng) -> KernelState:
        """The reference's ``determinize``, drawing the same numbers from ``rng``.

        ``observer`` is a seat, or None for the host (who sees every hand and plan).
        The shuffle and picks replay ``random.Random``'s own algorithms (``shuffle``,
        ``randrange`` through ``getrandbits``) so the twin is the oracle's determinization
        card for card; another generator class goes through the reference rules.
        """
        return self._determinized(observer, rng)

    # -- delegated to the reference rules ------------------------------------------
    def to_json(self) -> dict:
        return self.to_reference().to_json()

    def move_to_text(self, move) -> str:
        return self.to_reference().move_to_text(move)

    def parse_move(self, text) -> int:
        return self.to_reference().parse_move(text)

    def is_move_code(self, move) -> bool:
        catalogue = self.kc.catalogue
        return is_move_code(move, len(catalogue.cards), len(catalogue.assistants))

    def why_illegal(self, move):
        # bools are ints to the reference rules too (False is move 0, "keep")
        if isinstance(move, int) and 0 <= move < (1 << 20) and self._is_legal(move):
            return None
        return self.to_reference().why_illegal(move)

    def move_seen_by(self, move, observer):
        return self.to_reference().move_seen_by(move, observer)

    # -- extras ------------------------------------------------------------------------
    @property
    def second_edition(self) -> bool:
        return bool(self.s.second_edition)

    @property
    def phase(self) -> str:
        return PHASES[self.s.phase]

    @property
    def round(self) -> int:
        return self.s.round

    def __repr__(self) -> str:
        return (f"<KernelState oh-my-goods {self.num_players}p round={self.s.round} "
                f"phase={PHASES[self.s.phase]} deck={self.s.ndeck}>")



# -- the compiled search's view -----------------------------------------------------------------

cdef enum:
    SEARCH_MAX_PLAYERS = MAXP
    SEARCH_NFEATURES = NFEATURES


cdef int search_play(St* s, const Cat* c, int64_t move, int64_t* out,
                     bint want_moves) noexcept nogil:
    apply_legal(s, c, <int>move)
    autoplay(s, c)
    return search_legal(s, c, out) if want_moves else UNLISTED


include "kernel_search_ops.pxi"


State.register(KernelState)

