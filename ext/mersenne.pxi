# random.Random's generator (MT19937) in C, and one source of 32-bit words that is either
# that C generator or a random.Random object.  A search with a fixed seed must answer the
# same whether its tree is compiled or Python: both draw from random.Random(seed)'s
# stream, the compiled tree from a copy of its state (Random.getstate) stepped here, and a
# kernel's determinization takes its words from whichever of the two the caller holds.
# CPython draws getrandbits(k <= 32) as one word shifted right, getrandbits(64) as two
# words (the first the low half) and random() as two words (27 and 26 bits); so do these.

from libc.stdint cimport uint32_t, uint64_t
from cpython.ref cimport PyObject

cdef enum:
    MT_N = 624
    MT_M = 397


ctypedef struct MT:
    uint32_t state[MT_N]
    int index


ctypedef struct Words:
    MT* mt              # the compiled search's generator, or NULL
    PyObject* rng       # else a random.Random, drawn through getrandbits(32)


cdef inline uint32_t mt_next(MT* g) noexcept nogil:
    """genrand_uint32 of CPython's _randommodule.c."""
    cdef uint32_t y
    cdef int kk
    cdef uint32_t* mt = g.state
    if g.index >= MT_N:
        for kk in range(MT_N - MT_M):
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU)
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ (0x9908b0dfU if y & 1U else 0U)
        for kk in range(MT_N - MT_M, MT_N - 1):
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU)
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (0x9908b0dfU if y & 1U else 0U)
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU)
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfU if y & 1U else 0U)
        g.index = 0
    y = mt[g.index]
    g.index += 1
    y ^= (y >> 11)
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= (y >> 18)
    return y


cdef inline double mt_random(MT* g) noexcept nogil:
    """Random.random(): 53 bits from two words."""
    cdef uint32_t a = mt_next(g) >> 5
    cdef uint32_t b = mt_next(g) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef inline uint64_t mt_bits64(MT* g) noexcept nogil:
    """Random.getrandbits(64)."""
    cdef uint64_t low = mt_next(g)
    return low | (<uint64_t>mt_next(g) << 32)


cdef inline int next_word(Words* w, uint32_t* out) except -1:
    if w.mt != NULL:
        out[0] = mt_next(w.mt)
    else:
        out[0] = <uint32_t>(<object>w.rng).getrandbits(32)
    return 0


cdef inline int words_below(Words* w, int n) except -1:
    """``random.Random._randbelow(n)``: rejection sampling on ``n.bit_length()`` bits,
    each draw one word shifted right (CPython's getrandbits for k <= 32)."""
    cdef int k = 0
    cdef int m = n
    cdef uint32_t r
    while m:
        k += 1
        m >>= 1
    next_word(w, &r)
    r >>= (32 - k)
    while r >= <uint32_t>n:
        next_word(w, &r)
        r >>= (32 - k)
    return <int>r


cdef inline int words_bits64(Words* w, uint64_t* out) except -1:
    """``random.Random.getrandbits(64)``."""
    cdef uint32_t low, high
    next_word(w, &low)
    next_word(w, &high)
    out[0] = low | (<uint64_t>high << 32)
    return 0
