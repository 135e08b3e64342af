# The solo game of the Stephens kernel (engine.stephens.solo, opponents, workers.cap_reason):
# the Automa's turn and supply, the cubes the player removes for it, the worker cap and
# the opponent cards' standing rules.  Included by ext/stephens_kernel.pyx, whose flow
# calls these where the reference's solo hooks (solo.SOLO) differ from the multi-player
# game; every function here leaves a 2-4 player position as it is.

cdef inline bint is_solo(const St* s) noexcept nogil:
    return s.nplayers == 1


cdef inline int final_space(const St* s, const Cat* c) noexcept nogil:
    """Position.final_space: the army space whose reset is the final one."""
    return c.opponent_final_reset if s.opponent >= 0 else c.diff_final[s.difficulty]


cdef inline int workers_of(const St* s, const Cat* c, int seat) noexcept nogil:
    """Position.workers_of: masters and apprentices of ``seat`` (AUTOMA_SEAT too)."""
    cdef int i
    cdef int n = 0
    for i in range(c.nprof):
        n += (s.master[i] == seat) + (s.apprentice[i] == seat)
    return n


cdef inline bint solo_cap_reached(const St* s, const Cat* c, int seat) noexcept nogil:
    """workers.cap_reason: one more worker would put the player more than 3 ahead of the
    Automa (L1564-L1568); never outside the solo game."""
    return is_solo(s) and (workers_of(s, c, seat) + 1
                           > workers_of(s, c, AUTOMA_SEAT) + SOLO_WORKER_LEAD)


# -- the opponent cards (engine.stephens.opponents) --------------------------------------------
cdef inline int closed_space(const St* s, const Cat* c, int pile) noexcept nogil:
    """opponents.closed_space: the display space the opponent card closes, or -1."""
    cdef const int* costs = &c.investment_costs[0]
    cdef int nspaces = c.nidisp
    cdef int k
    if pile == CONTRACTS:
        costs = &c.contract_costs[0]
        nspaces = c.ncdisp
    if s.opponent < 0 or c.opp_effect[s.opponent] != OPP_CLOSED_SPACE:
        return -1
    for k in range(nspaces):
        if costs[k] == c.opp_n[s.opponent]:
            return k
    return -1


cdef bint accessory_gain_ok(const St* s, const Cat* c, const int* held, mv move) noexcept nogil:
    """opponents.accessory_gain_ok: each accessory gained is of a type held fewest of
    (counting those placed on fulfilled contracts)."""
    cdef int counts[MAXACC]
    cdef int gains[MAXACC]
    cdef int t, d, low, pick, g
    cdef int total = 0
    for t in range(c.nacc):
        d = <int>(move >> (8 * t) & 0xFF) - ZERO
        counts[t] = held[t] + s.players[0].placed[t] + (d if d < 0 else 0)
        gains[t] = d if d > 0 else 0
        total += gains[t]
    for g in range(total):
        low = counts[0]
        for t in range(1, c.nacc):
            if counts[t] < low:
                low = counts[t]
        pick = -1
        for t in range(c.nacc):
            if gains[t] and counts[t] == low:
                pick = t
                break
        if pick < 0:
            return False
        gains[pick] -= 1
        counts[pick] += 1
    return True


cdef int accessory_sets(const St* s, const Cat* c, const int* held, mv* moves,
                        int n) noexcept nogil:
    """turn.colour_moves with the opponent card "accessory-sets": the exchanges of
    accessories it allows, kept in order; returns how many."""
    cdef int i
    cdef int kept = 0
    if n <= 0 or s.opponent < 0 or c.opp_effect[s.opponent] != OPP_ACCESSORY_SETS:
        return n
    for i in range(n):
        if accessory_gain_ok(s, c, held, moves[i]):
            moves[kept] = moves[i]
            kept += 1
    return kept


# -- the Automa's turn (engine.stephens.solo) --------------------------------------------------
cdef void cycle(const Cat* c, const int* order, int start, int direction,
                int* out) noexcept nogil:
    """solo.cycle: ``order`` rotated to begin at ``start``, walked along ``direction``."""
    cdef int steps[4]
    cdef int i
    cdef int k = 0
    steps[0] = order[0]
    for i in range(1, 4):
        steps[i] = order[i] if direction == c.dir_cw else order[4 - i]
    for i in range(4):
        if steps[i] == start:
            k = i
    for i in range(4):
        out[i] = steps[(k + i) % 4]


cdef inline int current_card(const St* s) noexcept nogil:
    return s.arevealed[s.narevealed - 1]


cdef inline int supply_number(const St* s, const Cat* c) noexcept nogil:
    """solo.supply_number: the number under the last disk taken off the supply card."""
    cdef int taken = workers_of(s, c, AUTOMA_SEAT)
    if taken > c.nworker_supply:
        taken = c.nworker_supply
    if taken < 1:
        taken = 1
    return c.worker_supply[taken - 1]


cdef bint automa_reveal(St* s) noexcept nogil:
    """solo.reveal: the deck's top card to the revealed pile, the pile reshuffled into a
    new deck first when the deck is empty; False (the twin gives up) with no card."""
    if s.nadeck == 0:
        memcpy(s.adeck, s.arevealed, s.narevealed)
        s.nadeck = s.narevealed
        s.narevealed = 0
        sort_bytes(s.adeck, s.nadeck)
        shuffle(s, s.adeck, s.nadeck)
    if s.nadeck == 0:
        s.overflow = 1
        return False
    s.nadeck -= 1
    s.arevealed[s.narevealed] = s.adeck[s.nadeck]
    s.narevealed += 1
    return True


cdef void remove_display_cards(St* s, const Cat* c, int pile, const int* costs,
                               int ncosts) noexcept nogil:
    """solo.remove_display_cards: the cards at ``costs`` to the discard pile, then the
    display slides and refills."""
    cdef signed char* spaces = &s.idisplay[0]
    cdef const int* prices = &c.investment_costs[0]
    cdef int nspaces = c.nidisp
    cdef int i, k, space
    if pile == CONTRACTS:
        spaces = &s.cdisplay[0]
        prices = &c.contract_costs[0]
        nspaces = c.ncdisp
    cdef bint gone = False
    for i in range(ncosts):
        space = -1
        for k in range(nspaces):
            if prices[k] == costs[i]:
                space = k
                break
        if space < 0 or spaces[space] < 0:
            continue
        if pile == CONTRACTS:
            s.cdiscard[s.ncdiscard] = spaces[space]
            s.ncdiscard += 1
        else:
            s.idiscard[s.nidiscard] = spaces[space]
            s.nidiscard += 1
        spaces[space] = -1
        gone = True
    if gone:
        slide_and_refill(s, c, pile)


cdef void automa_furnace(St* s, const Cat* c, int start, int direction, const int* costs,
                         int ncosts) noexcept nogil:
    """solo.automa_furnace: 1 cube from the first furnace holding one along the arrow;
    an upper furnace activates the player's row, a white cube from a lower one removes
    the display cards at ``costs``."""
    cdef int order[4]
    cdef int i, fur
    cycle(c, c.furnace_cycle, start, direction, order)
    for i in range(4):
        fur = order[i]
        if s.furnaces[fur] == 0:
            continue
        s.furnaces[fur] -= 1
        if c.furnace_row[fur] >= 0:
            activate_row(s, c.furnace_row[fur], 0)
        elif c.furnace_colour[fur] == c.white and ncosts:
            remove_display_cards(s, c, CONTRACTS if c.furnace_action[fur] == A_CONTRACT
                                 else INVESTMENTS, costs, ncosts)
        return


cdef void automa_factory(St* s, const Cat* c, int start, int direction) noexcept nogil:
    """solo.automa_factory: up to the supply card's number of cubes from the first small
    factory holding any (the player chooses which when there are more); all four empty:
    1 cube from the furnaces, from the one on the same corner."""
    cdef int order[4]
    cdef int i, f, total
    cdef int k = supply_number(s, c)
    cdef Fr* g
    cycle(c, c.factory_cycle, start, direction, order)
    for i in range(4):
        f = order[i]
        total = s.factories[f][0] + s.factories[f][1] + s.factories[f][2]
        if total == 0:
            continue
        if total <= k:
            s.factories[f][0] = s.factories[f][1] = s.factories[f][2] = 0
        else:
            g = push(s, F_REMOVE, 0)
            g.ctx[C_R_FACTORY] = f
            g.ctx[C_R_N] = k
        return
    automa_furnace(s, c, c.factory_corner[start], direction, NULL, 0)


cdef inline bint fits_strictly(const St* s, int place) noexcept nogil:
    """solo._fits: the placement rule with no P2 (the upper furnaces take any number)."""
    return place % 3 == 2 or s.nplaces[place] + 1 < s.nplaces[place + 1]


cdef void automa_profession(St* s, const Cat* c, int position) noexcept nogil:
    """solo.automa_profession: the face-up profession at ``position`` (or the next of
    its colour) to the topmost place of its side the strict rule allows, the Automa's
    master on it."""
    cdef int row[6]
    cdef int base = 0 if position < 3 else 3
    cdef int i, side, place
    cdef int card = -1
    face_up(s, row)
    for i in range(3):
        if row[base + (position - base + i) % 3] >= 0:
            card = row[base + (position - base + i) % 3]
            break
    if card < 0:
        return
    side = c.prof_side[card]
    place = 3 * side
    while not fits_strictly(s, place):
        place += 1
    take_profession(s, card)
    s.places[place][s.nplaces[place]] = card
    s.nplaces[place] += 1
    s.master[card] = AUTOMA_SEAT


cdef void automa_disk(St* s, const Cat* c) noexcept nogil:
    """solo.automa_disk: an apprentice on the first card (board order) with the player's
    master and a free apprentice space."""
    cdef int place, i, card
    for place in range(6):
        for i in range(s.nplaces[place]):
            card = s.places[place][i]
            if s.master[card] == 0 and s.apprentice[card] == NO_SEAT \
                    and c.prof_has_apprentice[card]:
                s.apprentice[card] = AUTOMA_SEAT
                return


cdef void run_automa(St* s, const Cat* c, Fr* f) noexcept nogil:
    """solo.run_automa: reveal and act; at the next stage the disk symbol and the end of
    its turn (the player's turn next, a reset first when two furnaces are empty)."""
    cdef int card, fur
    cdef int empty = 0
    if f.ctx[C_STAGE] == AUTOMA_ACT:
        f.ctx[C_STAGE] = AUTOMA_FINISH
        if not automa_reveal(s):
            return
        card = current_card(s)
        if c.au_kind[card] == AU_FURNACE:
            automa_furnace(s, c, c.au_start[card], c.au_direction[card], c.au_costs[card],
                           c.au_ncosts[card])
        elif c.au_kind[card] == AU_FACTORY:
            automa_factory(s, c, c.au_start[card], c.au_direction[card])
        else:
            automa_profession(s, c, c.au_position[card])
        return
    s.nframes -= 1
    if c.au_disk[current_card(s)]:
        automa_disk(s, c)
    s.round += 1
    push(s, F_TURN, 0).ctx[C_STAGE] = BEGIN
    for fur in range(4):
        empty += s.furnaces[fur] == 0
    if not s.final_reset and empty >= 2:
        start_reset(s, 0, False)


# -- the remove decision: the cubes the Automa removes, chosen by the player -------------------
cdef int remove_moves(const St* s, const Fr* f, mv* moves, int n) noexcept nogil:
    """solo.remove_moves: each multiset of ``n`` colours the factory holds, in
    itertools.combinations_with_replacement's order."""
    cdef int factory = f.ctx[C_R_FACTORY]
    cdef int k = f.ctx[C_R_N]
    cdef int idx[MAXREMOVE]
    cdef int counts[3]
    cdef int i
    for i in range(k):
        idx[i] = 0
    while True:
        counts[0] = counts[1] = counts[2] = 0
        for i in range(k):
            counts[idx[i]] += 1
        if (counts[0] <= s.factories[factory][0] and counts[1] <= s.factories[factory][1]
                and counts[2] <= s.factories[factory][2]):
            moves[n] = encode(K_REMOVE, factory | counts[0] << 8 | counts[1] << 16
                              | counts[2] << 24)
            n += 1
        if not next_multiset(idx, k, 3):
            break
    return n


cdef void apply_remove(St* s, mv move) noexcept nogil:
    cdef int factory = <int>(move & 0xFF)
    cdef int i
    s.nframes -= 1
    for i in range(3):
        s.factories[factory][i] -= <int>(move >> (8 * (i + 1)) & 0xFF)


# -- the solo game in the reset phase --------------------------------------------------------
cdef inline int solo_next_reset_step(int step) noexcept nogil:
    """reset.SUPPLY_LAST: the contracts before the supply, the supply last (A-1)."""
    if step == EMPTY_FACTORIES:
        return FULFIL_STEP
    if step == FULFIL_STEP:
        return SUPPLY_STEP
    if step == SUPPLY_STEP:
        return DONE
    return step + 1


cdef void note_final_reset(St* s, const Cat* c) noexcept nogil:
    """solo.note_final_reset: the reset whose army step reaches the difficulty's space."""
    if not s.final_reset and s.army <= final_space(s, c):
        s.final_reset = 1


cdef void automa_supply(St* s, const Cat* c) noexcept nogil:
    """solo.automa_supply: the last revealed card's cubes drawn from the bag one at a
    time, each into a different small factory along the arrow."""
    cdef int order[4]
    cdef int i, card, total, pick, colour
    if s.narevealed == 0:
        return
    card = current_card(s)
    cycle(c, c.factory_cycle, c.au_supply_start[card], c.au_supply_direction[card], order)
    for i in range(c.au_supply_cubes[card]):
        total = s.bag[0] + s.bag[1] + s.bag[2]
        if total == 0:
            break
        pick = rng_below(s, total)
        colour = 0 if pick < s.bag[0] else 1 if pick < s.bag[0] + s.bag[1] else 2
        s.bag[colour] -= 1
        s.factories[order[i % 4]][colour] += 1
