# The C-level face a kernel shows the compiled search (ext/search_core.pyx): a table of
# functions over an opaque position struct, handed over in a capsule, so that the search
# knows no game and no kernel knows the search.  Included by the search core and by every
# kernel, which fills one SearchOps and returns it from ``search_ops()``.  The position and
# its catalogue travel in a second capsule (``KernelState.search_handle()``).
#
# Conventions: moves are 64-bit codes; ``legal`` and ``play`` write at most ``max_moves``
# moves and return how many, or -1 when the position outgrew the kernel's bounds (``play``
# may skip the list unless ``want_moves``, returning UNLISTED, but ``out`` is always room
# for one); ``playout`` may start from the ``nmoves`` legal moves in ``moves`` (room for
# ``max_moves``) when ``nmoves`` >= 0;
# ``current_player`` returns a seat, or the protocol's TERMINAL (-2) / CHANCE (-1);
# ``playout`` plays up to ``max_moves`` random moves (0: to the end) exactly as the
# kernel's ``random_playout``/``rollout`` (``truncates`` false: only to the end);
# ``outcome`` and ``heuristic`` write one value per seat; ``determinize`` resamples in
# place what ``observer`` (-1: the host) cannot see, drawing its words from ``Words``;
# ``text_context`` (NULL when a move's text depends on the move and the catalogue only)
# writes ``text_context_bytes`` bytes from which the kernel's ``move_text_in_context``
# gives the move's text in this position; ``features`` writes a seat's ``nfeatures``
# features (State.features), -1 when the position outgrew the kernel's bounds.

from libc.stdint cimport int64_t, uint64_t

include "mersenne.pxi"

cdef enum:
    C_CHANCE = -1       # engine.game.CHANCE
    C_TERMINAL = -2     # engine.game.TERMINAL
    UNLISTED = -2       # ``play`` did not list the next moves


ctypedef struct SearchOps:
    int state_size
    int max_moves
    int max_players
    int text_context_bytes
    int nfeatures           # the length of a seat's feature vector (0: none)
    bint truncates
    int (*current_player)(const void* s) noexcept nogil
    int (*legal)(const void* s, const void* cat, int64_t* out) noexcept nogil
    int (*play)(void* s, const void* cat, int64_t move, int64_t* out,
                bint want_moves) noexcept nogil
    long (*playout)(void* s, const void* cat, uint64_t* rng, long max_moves, int* err,
                    int64_t* moves, int nmoves) noexcept nogil
    long (*guided_playout)(void* s, const void* cat, uint64_t* rng, const double* values,
                           double epsilon, int* trace, long capacity, long max_moves,
                           int* err) noexcept nogil
    int (*outcome)(const void* s, const void* cat, double* scores,
                   double* shares) noexcept nogil
    int (*heuristic)(const void* s, const void* cat, double* out) noexcept nogil
    int (*determinize)(void* s, const void* cat, int observer, Words* words) except -1
    int (*text_context)(const void* s, const void* cat, int64_t move,
                        unsigned char* out) noexcept nogil
    int (*features)(const void* s, const void* cat, int seat, double* out) noexcept nogil


cdef extern from "Python.h":
    object PyCapsule_New(void* pointer, const char* name, void* destructor)
    void* PyCapsule_GetPointer(object capsule, const char* name) except? NULL
    int PyCapsule_SetContext(object capsule, void* context) except -1
    void* PyCapsule_GetContext(object capsule) except? NULL
