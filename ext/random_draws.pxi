# How a kernel's determinization draws the very numbers ``random.Random`` draws in the
# reference rules (``Random.shuffle``, ``Random.choice`` and ``Random.randrange`` all go
# through ``_randbelow``, ``words_below`` in mersenne.pxi), with ``determinize``'s
# prologue; included by the kernels that resample hidden cards, after search_ops.pxi.

cdef inline Words python_words(object rng):
    """A word source drawing from the ``random.Random`` ``rng`` (which the caller keeps
    alive while the words are drawn)."""
    cdef Words words
    words.mt = NULL
    words.rng = <PyObject*>rng
    return words


cdef check_observer(observer, int num_players):
    """ValueError unless ``observer`` is None (the host) or a seat: ``determinize``'s
    check, in the reference's words."""
    if observer is not None and (not isinstance(observer, int)
                                 or not 0 <= observer < num_players):
        raise ValueError(f"observer must be None (the host) or a seat of "
                         f"0-{num_players - 1}, not {observer!r}")


cdef object determinized_elsewhere(state, observer, rng, int num_players):
    """The start of a kernel's ``determinize``: ValueError for an observer that is no seat;
    with a generator other than ``random.Random`` (whose draws the kernel replays) the
    reference rules' determinization, as a twin; else None, for the kernel to draw."""
    check_observer(observer, num_players)
    if type(rng) is not Random:
        return type(state).from_reference(state.to_reference().determinize(observer, rng))
    return None
