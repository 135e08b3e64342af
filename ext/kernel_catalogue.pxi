# A kernel's compiled catalogue, written once.  Each kernel includes this file after it
# declares its Cat struct and defines fill_catalogue(Cat* c, catalogue) except -1, which
# fills the zeroed struct with the catalogue's numbers (what a catalogue holds differs
# from game to game) and raises ValueError for one beyond the kernel's bounds; before
# catalogue_cache.pxi.


cdef class KernelCatalogue:
    """A catalogue's numbers in C arrays, shared by every state that uses it."""

    cdef Cat c
    cdef readonly object catalogue

    def __cinit__(self, catalogue):
        self.catalogue = catalogue
        memset(&self.c, 0, sizeof(Cat))
        fill_catalogue(&self.c, catalogue)
