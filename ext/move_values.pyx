# cython: language_level=3
"""The MAST table update in C, twin of ``engine.search.mast.record_playout_python``.

A playout records up to a few hundred decisions; updating their running means in a
Python loop would cost as much as the kernel playout itself.
"""

include "move_slots.pxi"


def record_playout(double[::1] values, double[::1] counts, const int[::1] trace,
                   long recorded, const double[::1] utilities) -> None:
    """Fold one playout into the table: each recorded decision's entry moves to the
    running mean of the utilities its seat got (see ``engine.search.mast``)."""
    cdef long k, index, seat
    cdef long size = values.shape[0]
    cdef long seats = utilities.shape[0]
    if counts.shape[0] != size:
        raise ValueError("values and counts differ in length")
    if recorded < 0 or recorded > trace.shape[0]:
        raise ValueError(f"recorded must be within the trace (0..{trace.shape[0]}), "
                         f"not {recorded}")
    for k in range(recorded):
        index = trace[k]
        seat = index >> MOVE_SLOT_BITS
        if index < 0 or index >= size or seat >= seats:
            raise ValueError(f"trace entry {index} is outside a table of {size} entries "
                             f"for {seats} seats")
        counts[index] += 1.0
        values[index] += (utilities[seat] - values[index]) / counts[index]
