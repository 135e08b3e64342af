# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=True
"""Samara's rules on a flat C struct: the compiled twin of ``engine.samara.state``.

``KernelState`` reproduces :class:`engine.samara.state.SamaraState` move for move:
the same legal moves in the same order, the same successor states (checked by
``checks.kernel`` and ``tests/samara/test_kernel.py``) and the same random
playouts (SplitMix64 from :mod:`engine.playout_rng`, ``moves[next() % n]``).

Layout.  The whole position is one ``St`` struct, so a copy is a ``memcpy``:

* ``month`` is absolute, like the reference.  Every worker stands in
  ``month .. month + 11`` (the track ends at most 11 months after the current
  one), so the track is a ring of 12 month slots indexed by ``month % 12``, each an
  ordered array of workers (nearest the board first).
* spots hold a tile index (-1 when taken) and 5 tool counts;
* foremen hold tools, pawns, their buildings in order and lasting powers (as an
  ordered list, for ``to_reference``, and as a bit set);
* ``pending`` is the queue of decisions asked for by special powers.

Catalogue numbers (spot row/column, tile prestige/tools/power) are copied from
the Python :class:`~engine.samara.catalogue.Catalogue` into a ``Cat`` struct once
per catalogue.  Move encoding is the reference's:
``kind << 16 | spot << 10 | arg << 5 | workers``.

``apply`` returns no event texts (search does not read them); use the reference
state (``to_reference()``) for a commented game.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

from random import Random

from engine.game import TERMINAL, IllegalMoveError, Outcome, State, rank_groups
from engine.samara.catalogue import LASTING_POWERS, POWERS
from engine.samara.moves import is_move_code
from engine.samara.state import Decision, Foreman, SamaraState, Worker
from engine.samara.vocabulary import INFO
from engine.samara.vocabulary import DECISION_KIND, GIVE_KINDS

include "splitmix64.pxi"
include "search_ops.pxi"

include "guided_choice.pxi"


cdef enum:
    NMONTHS = 12        # ring of month slots; the track never spans more
    MAX_SPOTS = 48      # 4 rows x 12 columns, the largest board a catalogue allows
    MAX_TILES = 64
    MAX_PLAYERS = 5
    MAX_OWN = 5         # workers per player (the move's worker mask has 5 bits)
    MAX_W = 25          # workers in one month: 5 players x 5 pawns
    MAX_PENDING = 8     # a power queues at most 4 decisions, only when none is pending
    MAX_POWERS = 8
    MAX_ROW = 4
    MAX_MOVES = 1024    # proven bound is about 620 (see gen_moves)
    MAX_TOOL_COUNT = 127  # tool counts are signed chars (KernelCatalogue: <= 127 in play)

    # move kinds
    K_WAIT = 0
    K_VACATION = 1
    K_RECRUIT = 2
    K_TOOL = 3
    K_BUILD = 4
    K_GIVE = 5
    K_WEAKEN = 6
    K_BURY = 7
    K_IMPRISON = 8

    # tools
    T_SAW = 0
    T_COMPASS = 1
    T_SQUARE = 2
    T_GLASS_A = 3
    T_GLASS_B = 4

    # powers, in catalogue.POWERS order
    P_NONE = -1
    P_BOAT = 0
    P_BARRACKS = 1
    P_WEIGHT_ROOM = 2
    P_RUIN = 3
    P_HOSPITAL = 4
    P_TOMBSTONE = 5
    P_PRISON = 6
    P_SCULPTURE = 7
    P_VASE = 8
    P_UNIVERSITY = 9
    P_SCHOOL = 10
    P_BRIDGE = 11
    P_HERMIT_HOUSE = 12

    # which tools a "give" decision accepts
    ONLY_ANY = 0
    ONLY_SAW = 1
    ONLY_TROWEL = 2
    ONLY_GLASS = 3

    PRISON_MONTHS = 5


ctypedef struct Worker_t:
    signed char owner
    signed char female
    signed char men
    signed char women

ctypedef struct Decision_t:
    signed char kind      # K_GIVE / K_WEAKEN / K_BURY / K_IMPRISON
    signed char player
    signed char target
    signed char spot
    signed char count
    signed char only

ctypedef struct Foreman_t:
    signed char tools[5]
    signed char pawn_men
    signed char pawn_women
    signed char nbuild
    signed char npowers
    signed char buildings[MAX_TILES]
    signed char powers[MAX_POWERS]
    int flags             # bit p set: holds lasting power p

ctypedef struct Cat:
    int nspots
    int ntiles
    int spot_row[MAX_SPOTS]
    int spot_col[MAX_SPOTS]
    int prestige[MAX_TILES]
    int saws[MAX_TILES]
    int trowels[MAX_TILES]
    int glass[MAX_TILES]
    int need[MAX_TILES]
    int power[MAX_TILES]

ctypedef struct St:
    int month
    int nplayers
    int use_powers
    int tiles_left        # spots still holding a tile
    int npending
    signed char spot_tile[MAX_SPOTS]
    signed char spot_tools[MAX_SPOTS][5]
    signed char track_n[NMONTHS]
    Worker_t track[NMONTHS][MAX_W]
    Foreman_t foremen[MAX_PLAYERS]
    Decision_t pending[MAX_PENDING]


# The decisions' kinds and the tools a "give" accepts, in the rules' words and order
# (their codes, K_GIVE... and ONLY_ANY..., are checked against these by
# checks/kernel_interface.py).
KIND_CODES = dict(DECISION_KIND)
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}
ONLY_NAMES = tuple(GIVE_KINDS)
POWER_CODES = {name: i for i, name in enumerate(POWERS)}
MASK64 = (1 << 64) - 1


# -- small helpers ------------------------------------------------------------------

cdef inline int track_end(int month) noexcept nogil:
    return (month // 6 + 2) * 6 - 1


cdef inline int slot(int month) noexcept nogil:
    return month % NMONTHS


cdef inline bint has_power(const St* s, int seat, int power) noexcept nogil:
    return (s.foremen[seat].flags >> power) & 1


cdef inline int months_for(const St* s, int seat, int months) noexcept nogil:
    if has_power(s, seat, P_BRIDGE):
        return months - 1 if months > 2 else 1
    return months


cdef inline bint other_in(const St* s, int month, int seat) noexcept nogil:
    cdef int idx = slot(month)
    cdef int j
    for j in range(s.track_n[idx]):
        if s.track[idx][j].owner != seat:
            return True
    return False


cdef inline int destination(const St* s, int seat, int start, int months) noexcept nogil:
    cdef int end = track_end(s.month)
    cdef int dest = start + months
    if dest > end:
        dest = end
    if has_power(s, seat, P_HERMIT_HOUSE):
        while dest < end and other_in(s, dest, seat):
            dest += 1
    return dest


cdef inline void append_worker(St* s, int month, Worker_t w) noexcept nogil:
    cdef int idx = slot(month)
    s.track[idx][s.track_n[idx]] = w
    s.track_n[idx] += 1


cdef inline void remove_at(St* s, int idx, int pos) noexcept nogil:
    cdef int j
    cdef int n = s.track_n[idx] - 1
    for j in range(pos, n):
        s.track[idx][j] = s.track[idx][j + 1]
    s.track_n[idx] = n


cdef inline void move_one(St* s, int idx, int pos, int dest) noexcept nogil:
    """Take the worker at ``pos`` of slot ``idx`` and put it last in month ``dest``."""
    cdef Worker_t w = s.track[idx][pos]
    remove_at(s, idx, pos)
    append_worker(s, dest, w)


cdef inline int strength(Worker_t w) noexcept nogil:
    return w.men + w.women


cdef inline void pop_pending(St* s) noexcept nogil:
    cdef int j
    s.npending -= 1
    for j in range(s.npending):
        s.pending[j] = s.pending[j + 1]


cdef inline void push_pending(St* s, int kind, int player, int target, int spot, int count,
                              int only) noexcept nogil:
    cdef Decision_t* d = &s.pending[s.npending]
    d.kind = kind
    d.player = player
    d.target = target
    d.spot = spot
    d.count = count
    d.only = only
    s.npending += 1


cdef inline bint is_terminal_c(const St* s) noexcept nogil:
    return s.npending == 0 and s.tiles_left == 0


cdef inline int workers_of(const St* s, int seat, int* months, int* poss) noexcept nogil:
    """Seat's workers in track order: absolute months and positions in their slot."""
    cdef int n = 0
    cdef int off, j, idx
    for off in range(NMONTHS):
        idx = slot(s.month + off)
        for j in range(s.track_n[idx]):
            if s.track[idx][j].owner == seat:
                if n < MAX_W:
                    months[n] = s.month + off
                    poss[n] = j
                n += 1
    return n


# -- decisions ----------------------------------------------------------------------

cdef inline int prison_candidates(const St* s, int seat, int* out) noexcept nogil:
    """Indices of the weakest (else second-weakest) workers that can go 5 months on."""
    cdef int months[MAX_W]
    cdef int poss[MAX_W]
    cdef int strengths[MAX_W]
    cdef int n = workers_of(s, seat, months, poss)
    cdef int end = track_end(s.month)
    cdef int i, k, st, cnt
    cdef int lowest = 1 << 20
    cdef int second = 1 << 20
    cdef int target
    for i in range(n):
        st = strength(s.track[slot(months[i])][poss[i]])
        strengths[i] = st
        if st < lowest:
            second = lowest
            lowest = st
        elif lowest < st < second:
            second = st
    for k in range(2):
        target = lowest if k == 0 else second
        if target == 1 << 20:
            break
        cnt = 0
        for i in range(n):
            if strengths[i] == target and months[i] + PRISON_MONTHS <= end:
                out[cnt] = i
                cnt += 1
        if cnt:
            return cnt
    return 0


cdef inline int decision_options(const St* s, const Decision_t* d, int* out) noexcept nogil:
    """The ``arg`` values open to the chooser, in the reference's order."""
    cdef int n = 0
    cdef int k, lo, hi, i, women, cnt
    cdef const Foreman_t* owner
    cdef int months[MAX_W]
    cdef int poss[MAX_W]
    cdef Worker_t w
    if d.kind == K_GIVE:
        owner = &s.foremen[d.target]
        if d.only == ONLY_ANY:
            lo = 0
            hi = 5
        elif d.only == ONLY_SAW:
            lo = 0
            hi = 1
        elif d.only == ONLY_TROWEL:
            lo = 1
            hi = 3
        else:
            lo = 3
            hi = 5
        for k in range(lo, hi):
            if owner.tools[k] and not (k == T_GLASS_A and owner.tools[T_GLASS_B]):
                out[n] = k
                n += 1
        return n
    cnt = workers_of(s, d.target, months, poss)
    if d.kind == K_IMPRISON:
        n = prison_candidates(s, d.target, out)
        if n:
            return n
        for i in range(cnt):
            out[i] = i
        return cnt
    women = 0
    for i in range(cnt):
        if s.track[slot(months[i])][poss[i]].female:
            women += 1
    for i in range(cnt):
        w = s.track[slot(months[i])][poss[i]]
        if d.kind == K_WEAKEN:
            if w.female and women == 1 and strength(w) == 1:
                continue
        elif w.female and women == 1:  # bury
            continue
        out[n] = i
        n += 1
    return n


cdef inline void decide(St* s, int arg) noexcept nogil:
    cdef Decision_t d = s.pending[0]
    cdef Foreman_t* target
    cdef int months[MAX_W]
    cdef int poss[MAX_W]
    cdef int five[MAX_W]
    cdef int month, idx, pos, dest
    cdef Worker_t* w
    if d.kind == K_GIVE:
        s.foremen[d.target].tools[arg] -= 1
        s.spot_tools[d.spot][arg] += 1
        s.pending[0].count -= 1
        if s.pending[0].count == 0:
            pop_pending(s)
        return
    pop_pending(s)
    workers_of(s, d.target, months, poss)
    month = months[arg]
    idx = slot(month)
    pos = poss[arg]
    w = &s.track[idx][pos]
    target = &s.foremen[d.target]
    if d.kind == K_BURY or (d.kind == K_WEAKEN and strength(w[0]) == 1):
        target.pawn_men += w.men
        target.pawn_women += w.women
        remove_at(s, idx, pos)
        return
    if d.kind == K_WEAKEN:
        if (w.female and w.men) or (not w.female and not w.women):
            w.men -= 1
            target.pawn_men += 1
        else:
            w.women -= 1
            target.pawn_women += 1
        return
    # imprison
    if prison_candidates(s, d.target, five):
        dest = destination(s, d.target, month, PRISON_MONTHS)
    else:
        dest = track_end(s.month)
    move_one(s, idx, pos, dest)


cdef inline void settle(St* s) noexcept nogil:
    """Carry out decisions that leave no choice; stop at the first real choice."""
    cdef int opts[MAX_W]
    cdef int n
    while s.npending:
        n = decision_options(s, &s.pending[0], opts)
        if n > 1:
            break
        if n == 0:
            pop_pending(s)
            continue
        decide(s, opts[0])


cdef inline void finish_turn(St* s) noexcept nogil:
    cdef int guard = 0
    settle(s)
    if s.npending or s.tiles_left == 0:
        return
    # A valid state always has a worker on the track; the guard only stops a
    # corrupt one from looping forever.
    while s.track_n[slot(s.month)] == 0 and guard < NMONTHS:
        s.month += 1
        guard += 1


cdef inline void take_power(St* s, int seat, int si, int power) noexcept nogil:
    cdef Foreman_t* f = &s.foremen[seat]
    cdef int k, q
    cdef int n = s.nplayers
    if power >= P_UNIVERSITY:
        if f.npowers < MAX_POWERS:
            f.powers[f.npowers] = power
            f.npowers += 1
        f.flags |= 1 << power
    elif power == P_BOAT:
        push_pending(s, K_GIVE, seat, seat, si, 1, ONLY_SAW)
    elif power == P_VASE:
        push_pending(s, K_GIVE, seat, seat, si, 1, ONLY_GLASS)
    elif power == P_SCULPTURE:
        push_pending(s, K_GIVE, seat, seat, si, 1, ONLY_TROWEL)
    elif power == P_RUIN:
        push_pending(s, K_GIVE, seat, seat, si, 2, ONLY_ANY)
    elif power == P_BARRACKS:
        for k in range(1, n):
            q = (seat + k) % n
            push_pending(s, K_GIVE, q, q, si, 1, ONLY_ANY)
    elif power == P_HOSPITAL:
        for k in range(1, n):
            q = (seat + k) % n
            push_pending(s, K_WEAKEN, q, q, -1, 1, ONLY_ANY)
    elif power == P_TOMBSTONE:
        push_pending(s, K_BURY, seat, seat, -1, 1, ONLY_ANY)
    elif power == P_PRISON:
        for k in range(1, n):
            q = (seat + k) % n
            push_pending(s, K_IMPRISON, seat, q, -1, 1, ONLY_ANY)


# -- move generation ------------------------------------------------------------------

cdef inline bint meets_tools(const Foreman_t* f, const Cat* c, int tile) noexcept nogil:
    if (f.flags >> P_UNIVERSITY) & 1:
        return f.tools[0] + f.tools[1] + f.tools[2] + f.tools[3] + f.tools[4] >= c.need[tile]
    return (f.tools[T_SAW] >= c.saws[tile]
            and f.tools[T_COMPASS] + f.tools[T_SQUARE] >= c.trowels[tile]
            and f.tools[T_GLASS_A] + f.tools[T_GLASS_B] >= c.glass[tile])


cdef inline bint trains(const St* s, const Cat* c, const Foreman_t* f, int tile) noexcept nogil:
    return (s.use_powers and c.power[tile] == P_WEIGHT_ROOM
            and f.pawn_men + f.pawn_women > 0)


cdef inline bint can_take_tool(const Foreman_t* f, int kind) noexcept nogil:
    if f.tools[kind] >= (2 if kind == T_SAW else 1):  # rules.MAX_TOOLS
        return False
    return kind != T_GLASS_B or f.tools[T_GLASS_A] > 0


cdef inline int row_masks(int row, int k, const int* mask_strength, int* out) noexcept nogil:
    """Groups that include the acting worker, reach ``row`` and need every member."""
    cdef int n = 0
    cdef int mask, i
    cdef bint needed
    for mask in range(1, 1 << k, 2):
        if mask_strength[mask] < row:
            continue
        needed = True
        for i in range(1, k):
            if (mask >> i) & 1 and mask_strength[mask & ~(1 << i)] >= row:
                needed = False
                break
        if needed:
            out[n] = mask
            n += 1
    return n


cdef int gen_moves(const St* s, const Cat* c, int* out) noexcept nogil:
    """Legal moves in the reference's order; returns how many.

    Bound: a group is an antichain over the 4 other workers (at most 6 masks), so
    tool moves are at most 6 x 50 tool pieces and build moves 6 x 48 spots + 6 x 4
    trainees, plus recruit/vacation: well under MAX_MOVES.
    """
    cdef int n = 0
    cdef int opts[MAX_W]
    cdef int i, j, k, m, si, kind, row, tile, idx, base, seat, off, mask, bits
    cdef int mask_strength[1 << MAX_OWN]
    cdef int masks[MAX_ROW + 1][1 << MAX_OWN]
    cdef int nmasks[MAX_ROW + 1]
    cdef int strengths[MAX_OWN]
    cdef bint school
    cdef const Foreman_t* f
    cdef const Worker_t* month_workers
    cdef Worker_t actor
    cdef const signed char* tools
    if s.npending:
        k = decision_options(s, &s.pending[0], opts)
        for i in range(k):
            out[i] = s.pending[0].kind << 16 | opts[i] << 5
        return k
    if s.tiles_left == 0:
        return 0
    base = slot(s.month)
    month_workers = s.track[base]
    actor = month_workers[0]
    seat = actor.owner
    f = &s.foremen[seat]
    k = 0
    for j in range(s.track_n[base]):
        if month_workers[j].owner == seat and k < MAX_OWN:
            strengths[k] = strength(month_workers[j])
            k += 1
    school = has_power(s, seat, P_SCHOOL)
    for mask in range(1 << k):
        m = 0
        bits = 0
        for i in range(k):
            if (mask >> i) & 1:
                m += strengths[i]
                bits += 1
        if school and bits >= 2:
            m += 1
        mask_strength[mask] = m
    for row in range(MAX_ROW + 1):
        nmasks[row] = -1

    # tools
    for si in range(c.nspots):
        tools = s.spot_tools[si]
        if not (tools[0] or tools[1] or tools[2] or tools[3] or tools[4]):
            continue
        row = c.spot_row[si]
        for kind in range(5):
            if not (tools[kind] and can_take_tool(f, kind)):
                continue
            if nmasks[row] < 0:
                nmasks[row] = row_masks(row, k, mask_strength, masks[row])
            for i in range(nmasks[row]):
                if n < MAX_MOVES:
                    out[n] = K_TOOL << 16 | si << 10 | kind << 5 | masks[row][i]
                    n += 1
    # buildings
    for si in range(c.nspots):
        tile = s.spot_tile[si]
        if tile < 0 or not meets_tools(f, c, tile):
            continue
        row = c.spot_row[si]
        if nmasks[row] < 0:
            nmasks[row] = row_masks(row, k, mask_strength, masks[row])
        for i in range(nmasks[row]):
            mask = masks[row][i]
            if trains(s, c, f, tile):
                for j in range(5):
                    if (mask >> j) & 1 and n < MAX_MOVES:
                        out[n] = K_BUILD << 16 | si << 10 | (j + 1) << 5 | mask
                        n += 1
            elif n < MAX_MOVES:
                out[n] = K_BUILD << 16 | si << 10 | mask
                n += 1
    if actor.female:
        if f.pawn_men and n < MAX_MOVES:
            out[n] = K_RECRUIT << 16
            n += 1
        if f.pawn_women and n < MAX_MOVES:
            out[n] = K_RECRUIT << 16 | 1 << 5
            n += 1
    for off in range(1, NMONTHS):
        idx = slot(s.month + off)
        for j in range(s.track_n[idx]):
            if s.track[idx][j].owner == seat:
                break
        else:
            continue
        if n < MAX_MOVES:
            out[n] = K_VACATION << 16
            n += 1
        break
    if n == 0:
        out[0] = K_WAIT << 16
        n = 1
    return n


# -- applying moves ---------------------------------------------------------------------

cdef void apply_legal(St* s, const Cat* c, int move) noexcept nogil:
    cdef int kind = move >> 16
    cdef int si = (move >> 10) & 63
    cdef int arg = (move >> 5) & 31
    cdef int mask = move & 31
    cdef int base, seat, dest, tdest, end, later, off, idx, j, k, n, tile, trainee
    cdef int chosen_pos[MAX_OWN]
    cdef Worker_t moved[MAX_OWN]
    cdef Worker_t trained
    cdef Worker_t recruit
    cdef Foreman_t* f
    cdef bint found
    tile = -1
    memset(&trained, 0, sizeof(Worker_t))
    if s.npending:
        decide(s, arg)
        finish_turn(s)
        return
    base = slot(s.month)
    seat = s.track[base][0].owner
    f = &s.foremen[seat]
    if kind == K_WAIT:
        move_one(s, base, 0, destination(s, seat, s.month, 1))
    elif kind == K_VACATION:
        later = s.month
        for off in range(1, NMONTHS):
            idx = slot(s.month + off)
            found = False
            for j in range(s.track_n[idx]):
                if s.track[idx][j].owner == seat:
                    found = True
                    break
            if found:
                later = s.month + off
                break
        move_one(s, base, 0, destination(s, seat, later, 0))
    elif kind == K_RECRUIT:
        end = track_end(s.month)
        dest = destination(s, seat, s.month, months_for(s, seat, end - s.month))
        recruit.owner = seat
        recruit.female = arg == 1
        recruit.men = 1 - arg
        recruit.women = arg
        if arg:
            f.pawn_women -= 1
        else:
            f.pawn_men -= 1
        move_one(s, base, 0, dest)
        append_worker(s, dest, recruit)
    else:
        # the chosen group: the mover's workers of this month picked by ``mask``
        k = 0
        n = 0
        for j in range(s.track_n[base]):
            if s.track[base][j].owner == seat:
                if (mask >> k) & 1:
                    chosen_pos[n] = j
                    n += 1
                k += 1
        if kind == K_TOOL:
            s.spot_tools[si][arg] -= 1
            f.tools[arg] += 1
            dest = destination(s, seat, s.month, months_for(s, seat, c.spot_col[si]))
            trainee = -1
        else:
            tile = s.spot_tile[si]
            s.spot_tile[si] = -1
            s.tiles_left -= 1
            if f.nbuild < MAX_TILES:
                f.buildings[f.nbuild] = tile
                f.nbuild += 1
            dest = destination(s, seat, s.month, months_for(s, seat, c.spot_col[si]))
            trainee = -1
            if arg:
                # the trainee is the arg-th worker of the mover's in this month
                k = 0
                for j in range(s.track_n[base]):
                    if s.track[base][j].owner == seat:
                        k += 1
                        if k == arg:
                            trainee = j
                            break
        # lift the group off the month (keeping the others' order), then set it down
        k = 0
        for j in range(n):
            if chosen_pos[j] == trainee:
                trained = s.track[base][trainee]
            else:
                moved[k] = s.track[base][chosen_pos[j]]
                k += 1
        for j in range(n - 1, -1, -1):
            remove_at(s, base, chosen_pos[j])
        for j in range(k):
            append_worker(s, dest, moved[j])
        if kind == K_BUILD:
            if trainee >= 0:
                tdest = destination(s, seat, s.month, months_for(s, seat, c.spot_col[si] + 1))
                if f.pawn_women and (trained.female or not f.pawn_men):
                    f.pawn_women -= 1
                    trained.women += 1
                else:
                    f.pawn_men -= 1
                    trained.men += 1
                append_worker(s, tdest, trained)
            if s.use_powers and c.power[tile] != P_NONE:
                take_power(s, seat, si, c.power[tile])
    finish_turn(s)


cdef long c_rollout(St* s, const Cat* c, uint64_t* rng, long max_moves,
                     int* err) noexcept nogil:
    """Random moves to the end, as ``SamaraState.rollout``; returns the moves played.
    At most ``max_moves`` of them (0: no limit): a truncated playout."""
    cdef int moves[MAX_MOVES]
    cdef int n
    cdef long steps = 0
    err[0] = 0
    while not is_terminal_c(s) and (max_moves == 0 or steps < max_moves):
        n = gen_moves(s, c, moves)
        if n == 0:
            err[0] = 1
            break
        apply_legal(s, c, moves[furnace_splitmix64(rng) % <uint64_t>n])
        steps += 1
    return steps


cdef long c_guided_rollout(St* s, const Cat* c, uint64_t* rng, const double* values,
                           double epsilon, int* trace, long capacity, long max_moves,
                           int* err) noexcept nogil:
    """Epsilon-greedy moves over ``values``, as ``engine.guided_playout``, with the moves
    on the stack; returns the decisions recorded in ``trace``."""
    cdef int moves[MAX_MOVES]
    cdef int n, seat, index
    cdef long played = 0
    cdef long recorded = 0
    err[0] = 0
    while not is_terminal_c(s) and (max_moves == 0 or played < max_moves):
        n = gen_moves(s, c, moves)
        if n == 0:
            err[0] = 1
            break
        seat = s.pending[0].player if s.npending else s.track[slot(s.month)][0].owner
        index = guided_choice(moves, n, seat, values, epsilon, rng)
        if recorded < capacity:
            trace[recorded] = (seat << MOVE_SLOT_BITS) + move_slot(moves[index])
            recorded += 1
        apply_legal(s, c, moves[index])
        played += 1
    return recorded


cdef inline void first_available(const St* s, int seat, int* month, int* place) noexcept nogil:
    cdef int off, j, idx
    for off in range(NMONTHS):
        idx = slot(s.month + off)
        for j in range(s.track_n[idx]):
            if s.track[idx][j].owner == seat:
                month[0] = s.month + off
                place[0] = j
                return
    month[0] = 1 << 30
    place[0] = 0


cdef inline int score_of(const St* s, const Cat* c, int seat) noexcept nogil:
    cdef int total = 0
    cdef int i
    cdef const Foreman_t* f = &s.foremen[seat]
    for i in range(f.nbuild):
        total += c.prestige[f.buildings[i]]
    return total


# -- catalogue ----------------------------------------------------------------------------

cdef int fill_catalogue(Cat* c, object catalogue) except -1:
    """Samara's spots and tiles (row, column; prestige, tools, power) into ``c``."""
    cdef int i
    spots = catalogue.spots
    tiles = catalogue.tiles
    if len(spots) > MAX_SPOTS:
        raise ValueError(f"the Samara kernel supports at most {MAX_SPOTS} spots, "
                         f"the catalogue has {len(spots)}")
    if len(tiles) > MAX_TILES:
        raise ValueError(f"the Samara kernel supports at most {MAX_TILES} tiles, "
                         f"the catalogue has {len(tiles)}")
    if catalogue.pawn_men + catalogue.pawn_women > MAX_OWN:
        raise ValueError(f"the Samara kernel supports at most {MAX_OWN} pawns per player "
                         f"(a move names workers with 5 bits), the catalogue has "
                         f"{catalogue.pawn_men + catalogue.pawn_women}")
    if sum(catalogue.tool_set) * MAX_PLAYERS > 127:
        raise ValueError("the Samara kernel supports at most 25 tools per player set")
    c.nspots = len(spots)
    c.ntiles = len(tiles)
    for i, spot in enumerate(spots):
        if not (1 <= spot.row <= MAX_ROW and 1 <= spot.col <= NMONTHS):
            raise ValueError(f"the Samara kernel supports rows 1..{MAX_ROW} and "
                             f"columns 1..{NMONTHS}, not {spot.label}")
        c.spot_row[i] = spot.row
        c.spot_col[i] = spot.col
    for i, tile in enumerate(tiles):
        c.prestige[i] = tile.prestige
        c.saws[i] = tile.saws
        c.trowels[i] = tile.trowels
        c.glass[i] = tile.glass
        c.need[i] = tile.saws + tile.trowels + tile.glass
        c.power[i] = P_NONE if tile.power is None else POWER_CODES[tile.power]
    return 0


include "kernel_catalogue.pxi"


cdef int c_outcome(const St* s, const Cat* cat, double* scores_out,
                   double* shares) noexcept nogil:
    """Scores and win shares of a finished game: the reference's ranking, ties broken by
    the earlier first free spot on the time track (the Python ``outcome`` reads this)."""
    cdef int p, best_month = 0, best_place = 0, winners = 0
    cdef int best_score = 0
    cdef int scores[MAX_PLAYERS]
    cdef int months[MAX_PLAYERS]
    cdef int places[MAX_PLAYERS]
    cdef bint better
    cdef double share
    for p in range(s.nplayers):
        scores[p] = score_of(s, cat, p)
        first_available(s, p, &months[p], &places[p])
        # key (score, -month, -place), larger is better
        better = (winners == 0 or scores[p] > best_score
                  or (scores[p] == best_score and (months[p] < best_month
                      or (months[p] == best_month and places[p] < best_place))))
        if better:
            best_score = scores[p]
            best_month = months[p]
            best_place = places[p]
            winners = 1
        elif (scores[p] == best_score and months[p] == best_month
              and places[p] == best_place):
            winners += 1
    share = 1.0 / winners
    for p in range(s.nplayers):
        scores_out[p] = <double>scores[p]
        shares[p] = share if (scores[p] == best_score and months[p] == best_month
                              and places[p] == best_place) else 0.0
    return 0


cdef int c_heuristic(const St* s, const Cat* cat, double* out) noexcept nogil:
    """Prestige + (tools + strength - strength-months waiting) / 2, per seat."""
    cdef int p, off, idx, j, strength_sum, waiting, st, tools
    cdef const Foreman_t* f
    for p in range(s.nplayers):
        strength_sum = 0
        waiting = 0
        for off in range(NMONTHS):
            idx = slot(s.month + off)
            for j in range(s.track_n[idx]):
                if s.track[idx][j].owner == p:
                    st = strength(s.track[idx][j])
                    strength_sum += st
                    waiting += st * off
        f = &s.foremen[p]
        tools = f.tools[0] + f.tools[1] + f.tools[2] + f.tools[3] + f.tools[4]
        out[p] = (<double>score_of(s, cat, p) + 0.5 * tools + 0.5 * strength_sum
                  - 0.5 * waiting)
    return 0


# -- the features (engine.samara.features) -----------------------------------------------------
cdef enum:
    NFEATURES = 14        # len(engine.samara.features.FEATURES)
    NO_WORKER_WAIT = 12   # features.NO_WORKER_WAIT


cdef int features(const St* s, const Cat* c, int seat, double* out) noexcept nogil:
    """features.features of ``seat`` into ``out`` (NFEATURES values)."""
    cdef const Foreman_t* f = &s.foremen[seat]
    cdef double judged[MAX_PLAYERS]
    cdef int off, idx, j, st, workers = 0, strength_sum = 0, waiting = 0
    cdef int next_wait = NO_WORKER_WAIT, buildable = 0
    c_heuristic(s, c, judged)
    for off in range(NMONTHS):
        idx = slot(s.month + off)
        for j in range(s.track_n[idx]):
            if s.track[idx][j].owner == seat:
                st = strength(s.track[idx][j])
                workers += 1
                strength_sum += st
                waiting += st * off
                if next_wait == NO_WORKER_WAIT:
                    next_wait = off
    for j in range(c.nspots):
        if s.spot_tile[j] >= 0 and meets_tools(f, c, s.spot_tile[j]):
            buildable += 1
    out[0] = score_of(s, c, seat)
    out[1] = f.nbuild
    out[2] = f.npowers
    out[3] = f.tools[0] + f.tools[1] + f.tools[2] + f.tools[3] + f.tools[4]
    out[4] = f.tools[T_SAW]
    out[5] = f.tools[T_COMPASS] + f.tools[T_SQUARE]
    out[6] = f.tools[T_GLASS_A] + f.tools[T_GLASS_B]
    out[7] = workers
    out[8] = strength_sum
    out[9] = f.pawn_men + f.pawn_women
    out[10] = waiting
    out[11] = next_wait
    out[12] = buildable
    out[13] = judged[seat]
    return 0


cdef int search_current_player(const St* s) noexcept nogil:
    if s.npending:
        return s.pending[0].player
    if s.tiles_left == 0:
        return C_TERMINAL
    return s.track[slot(s.month)][0].owner


include "catalogue_cache.pxi"
include "reference_checks.pxi"
include "random_draws.pxi"


# -- the state ------------------------------------------------------------------------------

#: What a playout that reaches a position without legal moves says.
PLAYOUT_ERROR = "playout reached a position without legal moves"

include "kernel_state.pxi"
include "move_list.pxi"


cdef class KernelState(FreshMovesState):
    """A Samara position on the C struct; behaves like ``SamaraState`` move for move."""

    info = INFO
    moves_known_to = State.moves_known_to
    move_seen_by = State.move_seen_by

    cdef object unused          # tuple of unused tile indices (never changes)

    # -- construction -------------------------------------------------------------
    @staticmethod
    def from_reference(state) -> KernelState:
        """The kernel twin of a reference :class:`SamaraState` (ValueError if it does not fit).

        Every number that indexes an array during play is checked here, once: tiles,
        seats, months (within the 12-month ring), workers per month, pawns (a seat's
        pawns, on its board and the track, bound how many workers it can ever have),
        tool counts and the pending decisions (which spot, which seats).  A state from ``Game.state_from_json`` always fits; anything else is
        refused with ValueError rather than played out of bounds.
        """
        cdef KernelState k = KernelState.__new__(KernelState)
        cdef St* s = &k.s
        cdef Foreman_t* f
        cdef int i, j, p, month, idx
        catalogue = state.catalogue
        k.kc = kernel_catalogue(catalogue)
        k.cat = &k.kc.c
        n = state.num_players
        if not isinstance(n, int) or not 1 <= n <= MAX_PLAYERS:
            raise ValueError(f"the Samara kernel supports at most {MAX_PLAYERS} players")
        k.num_players = n
        k.unused = tuple(state.unused_tiles)
        s.nplayers = n
        s.use_powers = bool(state.powers)
        s.month = _within(state.month, 0, (1 << 28) - 1, "month")
        if len(state.spot_tile) != k.cat.nspots or len(state.foremen) != n:
            raise ValueError("the state does not match its catalogue or player count")
        s.tiles_left = 0
        for i in range(k.cat.nspots):
            tile = state.spot_tile[i]
            if tile is not None:
                s.spot_tile[i] = _within(tile, 0, k.cat.ntiles - 1, f"spot {i}: tile")
                s.tiles_left += 1
            else:
                s.spot_tile[i] = -1
            if len(state.spot_tools[i]) != 5:
                raise ValueError(f"spot {i}: 5 tool counts expected")
            for j in range(5):
                s.spot_tools[i][j] = _within(state.spot_tools[i][j], 0, MAX_TOOL_COUNT,
                                             f"spot {i}: tools")
        pawns = [0] * n  # per seat: on the board and in its workers
        for p in range(n):
            foreman = state.foremen[p]
            f = &s.foremen[p]
            if len(foreman.tools) != 5:
                raise ValueError(f"foreman {p}: 5 tool counts expected")
            for j in range(5):
                f.tools[j] = _within(foreman.tools[j], 0, MAX_TOOL_COUNT, f"foreman {p}: tools")
            f.pawn_men = _within(foreman.pawn_men, 0, MAX_OWN, f"foreman {p}: men")
            f.pawn_women = _within(foreman.pawn_women, 0, MAX_OWN, f"foreman {p}: women")
            pawns[p] = f.pawn_men + f.pawn_women
            if len(foreman.buildings) > MAX_TILES or len(foreman.powers) > MAX_POWERS:
                raise ValueError(f"foreman {p} holds more than the kernel supports")
            f.nbuild = len(foreman.buildings)
            for j, tile in enumerate(foreman.buildings):
                f.buildings[j] = _within(tile, 0, k.cat.ntiles - 1, f"foreman {p}: building")
            f.npowers = len(foreman.powers)
            f.flags = 0
            for j, power in enumerate(foreman.powers):
                if power not in LASTING_POWERS:
                    raise ValueError(f"foreman {p}: {power!r} is not a lasting power")
                code = POWER_CODES[power]
                f.powers[j] = code
                f.flags |= 1 << code
        for month, workers in state.track.items():
            if not workers:
                continue
            if not s.month <= month < s.month + NMONTHS:
                raise ValueError(f"a worker stands in month {month}, outside the 12 months "
                                 f"from {s.month}")
            if len(workers) > MAX_W:
                raise ValueError(f"more than {MAX_W} workers in month {month}")
            idx = slot(month)
            s.track_n[idx] = len(workers)
            for j, w in enumerate(workers):
                owner = _within(w.owner, 0, n - 1, f"a worker in month {month}: seat")
                s.track[idx][j].owner = owner
                s.track[idx][j].female = bool(w.female)
                s.track[idx][j].men = _within(w.men, 0, MAX_OWN, "a worker's men")
                s.track[idx][j].women = _within(w.women, 0, MAX_OWN, "a worker's women")
                if w.men + w.women < 1:
                    raise ValueError(f"a worker in month {month} has no pawn")
                pawns[owner] += w.men + w.women
        if max(pawns) > MAX_OWN:
            raise ValueError(f"the Samara kernel supports at most {MAX_OWN} pawns per player "
                             f"(a move names the mover's workers with 5 bits)")
        if s.tiles_left and not state.pending and s.track_n[slot(s.month)] == 0:
            raise ValueError("no worker stands in the current month to act")
        if len(state.pending) > MAX_PENDING:
            raise ValueError(f"more than {MAX_PENDING} pending decisions")
        s.npending = len(state.pending)
        for i, d in enumerate(state.pending):
            if not (d.kind in KIND_CODES and d.only in ONLY_NAMES
                    and isinstance(d.player, int) and 0 <= d.player < n
                    and isinstance(d.target, int) and 0 <= d.target < n
                    and isinstance(d.spot, int) and -1 <= d.spot < k.cat.nspots
                    and (d.kind != "give" or d.spot >= 0)
                    and isinstance(d.count, int) and 1 <= d.count <= 2):
                raise ValueError(f"pending decision {i} does not fit this game: {d!r}")
            s.pending[i].kind = KIND_CODES[d.kind]
            s.pending[i].player = d.player
            s.pending[i].target = d.target
            s.pending[i].spot = d.spot
            s.pending[i].count = d.count
            s.pending[i].only = ONLY_NAMES.index(d.only)
        return k

    def to_reference(self) -> SamaraState:
        """The equivalent reference state (``to_json()`` equal to the oracle's)."""
        cdef St* s = &self.s
        cdef int i, j, p, off, idx
        cdef Worker_t w
        cdef Foreman_t* f
        ref = SamaraState(self.kc.catalogue, self.num_players, bool(s.use_powers))
        ref.month = s.month
        ref.spot_tile = [None if s.spot_tile[i] < 0 else s.spot_tile[i]
                         for i in range(self.cat.nspots)]
        ref.spot_tools = [[s.spot_tools[i][j] for j in range(5)] for i in range(self.cat.nspots)]
        ref.unused_tiles = list(self.unused)
        track = {}
        for off in range(NMONTHS):
            idx = slot(s.month + off)
            if s.track_n[idx]:
                workers = []
                for j in range(s.track_n[idx]):
                    w = s.track[idx][j]
                    workers.append(Worker(w.owner, bool(w.female), w.men, w.women))
                track[s.month + off] = workers
        ref.track = track
        foremen = []
        for p in range(self.num_players):
            f = &s.foremen[p]
            foremen.append(Foreman([f.tools[j] for j in range(5)], f.pawn_men, f.pawn_women,
                                   [f.buildings[j] for j in range(f.nbuild)],
                                   [POWERS[f.powers[j]] for j in range(f.npowers)]))
        ref.foremen = foremen
        ref.pending = [Decision(KIND_NAMES[s.pending[i].kind], s.pending[i].player,
                                s.pending[i].target, s.pending[i].spot, s.pending[i].count,
                                ONLY_NAMES[s.pending[i].only])
                       for i in range(s.npending)]
        return ref

    # -- protocol ------------------------------------------------------------------
    def current_player(self) -> int:
        return search_current_player(&self.s)

    def is_terminal(self) -> bool:
        return is_terminal_c(&self.s)

    def apply(self, move) -> list:
        """Play ``move`` (IllegalMoveError if it is not legal).  Returns no event texts."""
        if (isinstance(move, int) and not isinstance(move, bool)
                and 0 <= move < (1 << 30) and self._is_legal(move)):
            apply_legal(&self.s, self.cat, move)
            return []
        reference = self.to_reference()
        reason = reference.why_illegal(move)
        if reason is None:  # pragma: no cover - the kernel and the oracle disagree
            reason = "the kernel does not generate it"
        if isinstance(move, int) and not isinstance(move, bool) and move >= 0:
            text = reference._safe_text(move)
        else:  # the reference's notation only reads move numbers
            text = repr(move)
        raise IllegalMoveError(f"illegal move {text}: {reason}")

    def clone(self) -> KernelState:
        cdef KernelState twin = KernelState.__new__(KernelState)
        self._copy_into(twin)
        twin.unused = self.unused
        return twin

    def scores(self) -> list:
        return [float(score_of(&self.s, self.cat, p)) for p in range(self.num_players)]

    def ranking(self) -> list:
        cdef int month, place
        keys = []
        for p in range(self.num_players):
            first_available(&self.s, p, &month, &place)
            keys.append((float(score_of(&self.s, self.cat, p)), -month, -place))
        return rank_groups(keys)

    def outcome(self) -> Outcome:
        cdef double scores[MAX_PLAYERS]
        cdef double shares[MAX_PLAYERS]
        c_outcome(&self.s, self.cat, scores, shares)
        n = self.num_players
        return Outcome(tuple([scores[p] for p in range(n)]),
                       tuple([shares[p] for p in range(n)]))

    def heuristic(self) -> list:
        """As the reference: prestige + (tools + strength - strength-months waiting) / 2."""
        cdef double values[MAX_PLAYERS]
        c_heuristic(&self.s, self.cat, values)
        return [values[p] for p in range(self.num_players)]

    # -- delegated to the reference rules ------------------------------------------
    def _notation(self):
        return SamaraState(self.kc.catalogue, self.num_players, bool(self.s.use_powers))

    def to_json(self) -> dict:
        return self.to_reference().to_json()

    def move_to_text(self, move) -> str:
        return self._notation().move_to_text(move)

    def parse_move(self, text) -> int:
        return self._notation().parse_move(text)

    def is_move_code(self, move) -> bool:
        return is_move_code(move, len(self.kc.catalogue.spots))

    def why_illegal(self, move):
        if (isinstance(move, int) and not isinstance(move, bool)
                and 0 <= move < (1 << 30) and self._is_legal(move)):
            return None
        return self.to_reference().why_illegal(move)

    def determinize(self, observer, rng) -> KernelState:
        # Perfect information: nothing to resample.
        return self.clone()

    # -- extras ------------------------------------------------------------------------
    @property
    def powers(self) -> bool:
        return bool(self.s.use_powers)

    @property
    def month(self) -> int:
        return self.s.month

    @property
    def pending_count(self) -> int:
        return self.s.npending

    def __repr__(self) -> str:
        return (f"<KernelState samara {self.num_players}p month={self.s.month} "
                f"tiles_left={self.s.tiles_left} pending={self.s.npending}>")



# -- the compiled search's view -----------------------------------------------------------------

cdef enum:
    SEARCH_MAX_PLAYERS = MAX_PLAYERS
    SEARCH_NFEATURES = NFEATURES


cdef int search_play(St* s, const Cat* c, int64_t move, int64_t* out,
                     bint want_moves) noexcept nogil:
    apply_legal(s, c, <int>move)
    return search_legal(s, c, out) if want_moves else UNLISTED


cdef int c_determinize(St* s, const Cat* c, int observer, Words* words) except -1:
    return 0  # perfect information: nothing to resample


include "kernel_search_ops.pxi"


State.register(KernelState)

