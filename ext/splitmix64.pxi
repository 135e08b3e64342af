# engine.playout_rng's SplitMix64 step in C, the one random source of every kernel's
# playouts and shuffles (a kernel matches the reference only if it draws alike).

from libc.stdint cimport uint64_t

cdef extern from *:
    """
    #include <stdint.h>
    static inline uint64_t furnace_splitmix64(uint64_t *state) {
        uint64_t z;
        *state += 0x9E3779B97F4A7C15ULL;
        z = *state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    """
    uint64_t furnace_splitmix64(uint64_t *state) noexcept nogil


cdef int check_playout(object seed, long max_moves) except -1:
    """What a kernel's ``rollout``/``random_playout`` accepts, as ``PlayoutRng``: an
    integer seed (reduced to 64 bits by the caller), and a non-negative move limit."""
    if not isinstance(seed, int):
        raise TypeError(f"a playout seed is an integer, not {type(seed).__name__}")
    if max_moves < 0:
        raise ValueError(f"max_moves must not be negative, not {max_moves}")
    return 0
