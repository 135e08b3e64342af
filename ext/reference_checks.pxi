# The checks every kernel's ``from_reference`` makes on the numbers it copies from a
# reference state into its C arrays: a number that indexes an array during play must be
# an integer within its bounds (a bool is not a number here), and a card may lie in one
# pile only, or the state is refused with ValueError (never played out of bounds).
# Included by every kernel at module level.


def _within(value, lo, hi, what):
    """``value`` if it is an integer in ``lo..hi``; ValueError otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValueError(f"{what} must be an integer in {lo}..{hi}, not {_short(value)}")
    return value


def _short(value):
    """``value`` for an error message: a number or a string (cut to 40 characters), or
    else only its type's name."""
    text = repr(value) if isinstance(value, (int, str, type(None))) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


cdef int _fill_cards(unsigned char* dest, object cards, unsigned char* placed, int ncards,
                     str where) except -1:
    """Copy a pile of card numbers and return its length; each card of the catalogue
    may be in one place only (``placed`` marks them), so no pile can outgrow its array
    during play."""
    cdef int i, card
    if len(cards) > ncards:
        raise ValueError(f"{where}: more than the {ncards} cards of the game")
    for i, value in enumerate(cards):
        card = _within(value, 0, ncards - 1, f"{where}[{i}]")
        if placed[card]:
            raise ValueError(f"{where}[{i}]: card {card} is in two places")
        placed[card] = 1
        dest[i] = card
    return len(cards)
