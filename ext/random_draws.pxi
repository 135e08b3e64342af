# Python's own way to draw below ``n`` from ``getrandbits``, so that a kernel's
# determinization draws the very numbers ``random.Random`` draws in the reference rules
# (``Random.shuffle``, ``Random.choice`` and ``Random.randrange`` all go through it);
# included by the kernels that resample hidden cards.

cdef inline int _randbelow(object getrandbits, int n) except -1:
    """``random.Random._randbelow``: rejection sampling on ``n.bit_length()`` bits."""
    cdef int k = 0
    cdef int m = n
    cdef long r
    while m:
        k += 1
        m >>= 1
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return <int>r
