# A move's slot in a move-value table, as engine.guided_playout lays it out: shared by
# the kernels' guided playouts and the table update (ext/move_values.pyx).

from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef enum:
    MOVE_SLOT_BITS = 16   # engine.guided_playout.MOVE_SLOT_BITS


cdef inline int move_slot(int64_t move) noexcept nogil:
    # engine.guided_playout.move_slot: the high word folded onto the low one (Stephens'
    # codes keep their kind in the top byte; an int code is unchanged by it), then
    # Fibonacci hashing into 16 bits
    cdef uint32_t folded = <uint32_t>(<uint64_t>move ^ (<uint64_t>move >> 32))
    return <int>((folded * <uint32_t>0x9E3779B1) >> (32 - MOVE_SLOT_BITS))
