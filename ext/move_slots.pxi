# A move's slot in a move-value table, as engine.guided_playout lays it out: shared by
# the kernels' guided playouts and the table update (ext/move_values.pyx).

from libc.stdint cimport uint32_t

cdef enum:
    MOVE_SLOT_BITS = 16   # engine.guided_playout.MOVE_SLOT_BITS


cdef inline int move_slot(int move) noexcept nogil:
    # engine.guided_playout.move_slot: Fibonacci hashing of the code into 16 bits
    return <int>((<uint32_t>move * <uint32_t>0x9E3779B1) >> (32 - MOVE_SLOT_BITS))
