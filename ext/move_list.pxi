# The positions of the kernels that keep no list of legal moves between calls (Samara,
# Oh My Goods!): each call generates them afresh on the stack with the kernel's own
# gen_moves (at most MAX_MOVES), and a rollout plays to the end with its c_rollout.
# Included after kernel_state.pxi; also the compiled search's legal moves and (none)
# text contexts, full playouts and (no) features of these kernels
# (kernel_search_ops.pxi).


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
        if not isinstance(seed, int):
            raise TypeError(f"a rollout seed is an integer, not {type(seed).__name__}")
        cdef uint64_t rng = <uint64_t>(seed & MASK64)
        cdef int err = 0
        cdef long steps
        with nogil:
            steps = c_rollout(&self.s, self.cat, &rng, &err)
        self.last_rollout_steps = steps
        if err:
            raise ValueError(PLAYOUT_ERROR)
        return self.outcome()


cdef int search_legal(const St* s, const Cat* c, int64_t* out) noexcept nogil:
    """The legal moves as the compiled search takes them (64-bit codes)."""
    cdef int moves[MAX_MOVES]
    cdef int n = gen_moves(s, c, moves)
    cdef int i
    for i in range(n):
        out[i] = moves[i]
    return n


cdef enum:
    # These kernels' move texts depend on the move and the catalogue only, and their
    # games declare no features.
    TEXT_CONTEXT_BYTES = 0
    SEARCH_NFEATURES = 0
    SEARCH_TRUNCATES = 0     # c_rollout plays to the end only


cdef long search_playout(St* s, const Cat* c, uint64_t* rng, long max_moves, int* err,
                         int64_t* moves, int nmoves) noexcept nogil:
    return c_rollout(s, c, rng, err)


cdef int search_text_context(const St* s, const Cat* c, int64_t move,
                             unsigned char* out) noexcept nogil:
    return 0


cdef int search_features(const St* s, const Cat* c, int seat, double* out) noexcept nogil:
    return 0
