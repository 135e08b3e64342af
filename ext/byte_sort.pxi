# Small byte arrays (card numbers, at most a few dozen) kept with a count: the kernels
# sort cards into the reference's order before reshuffling or comparing them, and take
# one out as ``list.remove`` does.

cdef inline void sort_bytes(unsigned char* items, int n) noexcept nogil:
    cdef int i, j
    cdef unsigned char v
    for i in range(1, n):
        v = items[i]
        j = i - 1
        while j >= 0 and items[j] > v:
            items[j + 1] = items[j]
            j -= 1
        items[j + 1] = v


cdef inline void remove_byte(unsigned char* items, int* n, int value) noexcept nogil:
    """``list.remove``: the first occurrence."""
    cdef int i, j
    for i in range(n[0]):
        if items[i] == value:
            for j in range(i, n[0] - 1):
                items[j] = items[j + 1]
            n[0] -= 1
            return
