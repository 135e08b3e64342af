# A growing set of fixed-width int records with a hash index, for the C searches of
# the kernels: records keep the order they were added (record i is the i-th added), so
# a caller can keep data of its own beside them, indexed alike.  Every function reports
# a failed allocation with -1 and leaves the set as it was.
#
# Include it (``include "record_set.pxi"``) after cimporting malloc, realloc, free,
# memcpy, memset and uint64_t.

ctypedef struct RecordSet:
    int width        # ints a record
    int n            # records
    int cap          # records the buffer holds
    int* data        # cap * width ints
    int* slots       # nslots record indices, -1 where empty (open addressing)
    int nslots       # a power of two, at least twice n


cdef inline uint64_t record_hash(const int* record, int width) noexcept nogil:
    # FNV-1a over the ints, then the high bits folded onto the low ones the mask keeps
    cdef uint64_t h = 14695981039346656037ULL
    cdef int i
    for i in range(width):
        h = (h ^ <uint64_t><unsigned int>record[i]) * 1099511628211ULL
    return h ^ (h >> 32)


cdef int records_init(RecordSet* t, int width, int cap) noexcept nogil:
    t.width = width
    t.n = 0
    t.cap = cap if cap > 0 else 1
    t.nslots = 2
    while t.nslots < 2 * t.cap:
        t.nslots *= 2
    t.data = <int*>malloc(t.cap * width * sizeof(int))
    t.slots = <int*>malloc(t.nslots * sizeof(int))
    if t.data == NULL or t.slots == NULL:
        records_free(t)
        return -1
    memset(t.slots, 0xff, t.nslots * sizeof(int))
    return 0


cdef void records_free(RecordSet* t) noexcept nogil:
    free(t.data)
    free(t.slots)
    t.data = NULL
    t.slots = NULL
    t.n = t.cap = t.nslots = 0


cdef inline bint _records_equal(const int* a, const int* b, int width) noexcept nogil:
    # a loop, not memcmp: records are a few ints, and a call per probe cost more than
    # the comparison (an activation's plan search probes millions of times)
    cdef int k
    for k in range(width):
        if a[k] != b[k]:
            return False
    return True


cdef inline int _records_slot(const RecordSet* t, const int* record, uint64_t h) noexcept nogil:
    """The slot holding ``record``, or the empty slot where it would go (``h``: its hash)."""
    cdef int mask = t.nslots - 1
    cdef int i = <int>(h & <uint64_t>mask)
    while t.slots[i] >= 0 and not _records_equal(t.data + <size_t>t.slots[i] * t.width,
                                                 record, t.width):
        i = (i + 1) & mask
    return i


cdef int records_put(RecordSet* t, const int* record, bint* added) noexcept nogil:
    """The index of ``record`` in the set, appended when it is new (``added[0]`` says
    whether it was); -1 when memory runs out."""
    cdef uint64_t h = record_hash(record, t.width)
    cdef int i = _records_slot(t, record, h)
    cdef int* grown
    cdef int* slots
    cdef int* old
    cdef int k, nslots
    added[0] = False
    if t.slots[i] >= 0:
        return t.slots[i]
    if t.n == t.cap:
        grown = <int*>realloc(t.data, <size_t>2 * t.cap * t.width * sizeof(int))
        if grown == NULL:
            return -1
        t.data = grown
        t.cap *= 2
    if 2 * (t.n + 1) > t.nslots:
        nslots = 2 * t.nslots
        slots = <int*>malloc(nslots * sizeof(int))
        if slots == NULL:
            return -1
        free(t.slots)
        t.slots = slots
        t.nslots = nslots
        memset(t.slots, 0xff, nslots * sizeof(int))
        for k in range(t.n):
            old = t.data + <size_t>k * t.width
            t.slots[_records_slot(t, old, record_hash(old, t.width))] = k
        i = _records_slot(t, record, h)
    memcpy(t.data + <size_t>t.n * t.width, record, t.width * sizeof(int))
    t.slots[i] = t.n
    t.n += 1
    added[0] = True
    return t.n - 1


cdef int grow_ints(int** data, int* cap, int need) noexcept nogil:
    """Make the int buffer ``data[0]`` (``cap[0]`` ints) hold at least ``need``; -1 when
    memory runs out (the buffer is then unchanged)."""
    cdef int size = cap[0] if cap[0] > 0 else 16
    cdef int* grown
    if need <= cap[0]:
        return 0
    while size < need:
        size *= 2
    grown = <int*>realloc(data[0], <size_t>size * sizeof(int))
    if grown == NULL:
        return -1
    data[0] = grown
    cap[0] = size
    return 0
