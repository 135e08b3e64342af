# An insertion sort of small byte arrays (card numbers, at most a few dozen): the kernels
# sort cards into the reference's order before reshuffling or comparing them.

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
