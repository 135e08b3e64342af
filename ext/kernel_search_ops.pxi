# A kernel's SearchOps table (search_ops.pxi), written once: the kernel defines, over its
# St and Cat, search_current_player, search_legal, search_play, search_playout,
# c_guided_rollout, c_outcome, c_heuristic, c_determinize and search_text_context, and
# the constants SEARCH_MAX_PLAYERS, SEARCH_TRUNCATES and TEXT_CONTEXT_BYTES; this file
# turns them into functions of an opaque position and hands them out.  Included last.


cdef int ops_current_player(const void* s) noexcept nogil:
    return search_current_player(<const St*>s)


cdef int ops_legal(const void* s, const void* cat, int64_t* out) noexcept nogil:
    return search_legal(<const St*>s, <const Cat*>cat, out)


cdef int ops_play(void* s, const void* cat, int64_t move, int64_t* out,
                  bint want_moves) noexcept nogil:
    return search_play(<St*>s, <const Cat*>cat, move, out, want_moves)


cdef long ops_playout(void* s, const void* cat, uint64_t* rng, long max_moves, int* err,
                      int64_t* moves, int nmoves) noexcept nogil:
    return search_playout(<St*>s, <const Cat*>cat, rng, max_moves, err, moves, nmoves)


cdef long ops_guided(void* s, const void* cat, uint64_t* rng, const double* values,
                     double epsilon, int* trace, long capacity, long max_moves,
                     int* err) noexcept nogil:
    return c_guided_rollout(<St*>s, <const Cat*>cat, rng, values, epsilon, trace, capacity,
                            max_moves, err)


cdef int ops_outcome(const void* s, const void* cat, double* scores,
                     double* shares) noexcept nogil:
    return c_outcome(<const St*>s, <const Cat*>cat, scores, shares)


cdef int ops_heuristic(const void* s, const void* cat, double* out) noexcept nogil:
    return c_heuristic(<const St*>s, <const Cat*>cat, out)


cdef int ops_determinize(void* s, const void* cat, int observer, Words* words) except -1:
    return c_determinize(<St*>s, <const Cat*>cat, observer, words)


cdef int ops_text_context(const void* s, const void* cat, int64_t move,
                          unsigned char* out) noexcept nogil:
    return search_text_context(<const St*>s, <const Cat*>cat, move, out)


cdef int ops_features(const void* s, const void* cat, int seat, double* out) noexcept nogil:
    return features(<const St*>s, <const Cat*>cat, seat, out)


cdef SearchOps OPS
OPS.state_size = sizeof(St)
OPS.max_moves = MAX_MOVES
OPS.max_players = SEARCH_MAX_PLAYERS
OPS.text_context_bytes = TEXT_CONTEXT_BYTES
OPS.truncates = SEARCH_TRUNCATES
OPS.nfeatures = SEARCH_NFEATURES
OPS.current_player = ops_current_player
OPS.legal = ops_legal
OPS.play = ops_play
OPS.playout = ops_playout
OPS.guided_playout = ops_guided
OPS.outcome = ops_outcome
OPS.heuristic = ops_heuristic
OPS.determinize = ops_determinize
OPS.features = ops_features
if TEXT_CONTEXT_BYTES:
    OPS.text_context = ops_text_context
else:
    OPS.text_context = NULL


def search_ops():
    """This kernel's functions for the compiled search (``ext/search_ops.pxi``)."""
    return PyCapsule_New(&OPS, b"furnace.search_ops", NULL)
