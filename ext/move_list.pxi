# The positions of the kernels that keep no list of legal moves between calls (Samara,
# Oh My Goods!): each call generates them afresh on the stack with the kernel's own
# gen_moves (at most MAX_MOVES), and a playout plays with its c_rollout (to the end, or
# at most so many moves).  Included after kernel_state.pxi; also the compiled search's
# legal moves, (no) text contexts and playouts of these kernels (kernel_search_ops.pxi);
# each kernel defines its NFEATURES and features (the learned leaf's inputs) before.


cdef class FreshMovesState(StructState):
    """A :class:`StructState` whose legal moves are generated at each call."""

    def legal_moves(self) -> list:
        cdef int moves[MAX_MOVES]
        cdef int n = gen_moves(&self.s, self.cat, moves)
        return [moves[i] for i in range(n)]

    cdef bint _is_legal(self, int move):
        cdef int moves[MAX_MOVES]
        cdef int n = gen_moves(&self.s, self.cat, moves)
        cdef int i
        for i in range(n):
            if moves[i] == move:
                return True
        return False

    def rollout(self, seed) -> Outcome:
        """Random moves to the end in C (in place), exactly as the reference's
        ``rollout``."""
        self.last_rollout_steps = self.random_playout(seed)
        return self.outcome()

    def random_playout(self, seed, long max_moves=0) -> int:
        """At most ``max_moves`` random moves in C (in place; 0: to the end), the moves
        of ``engine.game.play_random_moves`` on the reference (a truncated playout of
        ``engine.search.evaluate``); returns how many were played."""
        check_playout(seed, max_moves)
        cdef uint64_t rng = <uint64_t>(seed & MASK64)
        cdef int err = 0
        cdef long steps
        with nogil:
            steps = c_rollout(&self.s, self.cat, &rng, max_moves, &err)
        if err:
            raise ValueError(PLAYOUT_ERROR)
        return steps

    def features(self) -> list:
        """Each seat's features (the game's ``features.features``), computed in C by the
        kernel's ``features``."""
        cdef double row[NFEATURES]
        cdef int seat, k
        out = []
        for seat in range(self.num_players):
            features(&self.s, self.cat, seat, row)
            out.append([row[k] for k in range(NFEATURES)])
        return out


cdef int search_legal(const St* s, const Cat* c, int64_t* out) noexcept nogil:
    """The legal moves as the compiled search takes them (64-bit codes)."""
    cdef int moves[MAX_MOVES]
    cdef int n = gen_moves(s, c, moves)
    cdef int i
    for i in range(n):
        out[i] = moves[i]
    return n


cdef enum:
    # These kernels' move texts depend on the move and the catalogue only.
    TEXT_CONTEXT_BYTES = 0
    SEARCH_TRUNCATES = 1     # c_rollout stops after max_moves


cdef long search_playout(St* s, const Cat* c, uint64_t* rng, long max_moves, int* err,
                         int64_t* moves, int nmoves) noexcept nogil:
    return c_rollout(s, c, rng, max_moves, err)


cdef int search_text_context(const St* s, const Cat* c, int64_t move,
                             unsigned char* out) noexcept nogil:
    return 0
