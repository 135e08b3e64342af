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
