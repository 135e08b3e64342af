# Each catalogue's compiled copy, made once and kept while the catalogue lives, and the
# unpickling hook of a kernel state; included by every kernel after it defines its
# KernelCatalogue (built from a reference catalogue) and its KernelState.

_CATALOGUES: dict = {}


cdef KernelCatalogue kernel_catalogue(object catalogue):
    entry = _CATALOGUES.get(id(catalogue))
    if entry is not None and entry[0] is catalogue:
        return entry[1]
    kc = KernelCatalogue(catalogue)
    if len(_CATALOGUES) > 64:
        _CATALOGUES.clear()
    _CATALOGUES[id(catalogue)] = (catalogue, kc)  # keeps the id valid
    return kc


def _rebuild(reference):
    return KernelState.from_reference(reference)
