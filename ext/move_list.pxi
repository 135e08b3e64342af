# The positions of the kernels that keep no list of legal moves between calls (Samara,
# Oh My Goods!): each call generates them afresh on the stack with the kernel's own
# gen_moves (at most MAX_MOVES), and a rollout plays to the end with its c_rollout.
# Included after kernel_state.pxi.


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
