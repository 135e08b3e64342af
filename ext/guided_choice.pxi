# The epsilon-greedy step of engine.guided_playout, shared by the kernels' guided
# playouts (included after splitmix64.pxi).  Every draw and comparison mirrors the
# Python module's, so a kernel plays the reference's moves.

from libc.stdint cimport int64_t

include "move_slots.pxi"

cdef double UNIT_53 = 1.0 / (1 << 53)  # PlayoutRng.unit: the top 53 bits as [0, 1)

# Samara and Oh My Goods! codes fit an int; Stephens' take 64 bits.
ctypedef fused move_code:
    int
    int64_t


cdef inline int guided_choice(const move_code* moves, int n, int seat, const double* values,
                              double epsilon, uint64_t* rng) noexcept nogil:
    """The index of the move to play among ``moves[:n]``: uniform with probability
    ``epsilon``, else the best valued for ``seat``, scanning from a random start.  The
    slot hashes all of a code's bits, as engine.guided_playout.move_slot does."""
    cdef int base = seat << MOVE_SLOT_BITS
    cdef int index, k, j
    cdef double best, value
    if <double>(furnace_splitmix64(rng) >> 11) * UNIT_53 < epsilon:
        return <int>(furnace_splitmix64(rng) % <uint64_t>n)
    index = <int>(furnace_splitmix64(rng) % <uint64_t>n)
    best = values[base + move_slot(moves[index])]
    k = index
    for j in range(1, n):
        k += 1
        if k == n:
            k = 0
        value = values[base + move_slot(moves[k])]
        if value > best:
            best = value
            index = k
    return index


cdef check_guided_arguments(seed, long num_players, long table_size, long max_moves):
    """The checks of a kernel's ``guided_playout`` before it runs without the GIL."""
    if not isinstance(seed, int):
        raise TypeError(f"a playout seed is an integer, not {type(seed).__name__}")
    if table_size < (num_players << MOVE_SLOT_BITS):
        raise ValueError(f"a move-value table for {num_players} players has "
                         f"{num_players << MOVE_SLOT_BITS} entries, not {table_size}")
    if max_moves < 0:
        raise ValueError(f"max_moves must not be negative, not {max_moves}")
