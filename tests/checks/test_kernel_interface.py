"""The kernels' enum constants against the rules (issue 36): every one is checked or
listed as the kernel's own, and a copy with one constant out of order fails."""

from __future__ import annotations

import pytest

from checks import kernel_interface
from checks.kernel_interface import GAMES, enum_constants, interface_faults, kernel_source


@pytest.mark.parametrize("game", GAMES)
def test_every_kernel_constant_is_the_rules_or_the_kernels_own(game: str) -> None:
    constants = enum_constants(kernel_source(game))
    assert len(constants) > 40
    assert interface_faults(game) == []
    checked = [name for name in constants if name not in kernel_interface.KERNEL_ONLY[game]]
    assert len(checked) > len(constants) / 2


#: Two constants of one order in each kernel's source: swapped in a copy.
SWAPS = {"samara": ("K_GIVE", "K_WEAKEN"), "oh_my_goods": ("PH_SHIFT", "PH_CHOOSE"),
         "stephens": ("F_TURN", "F_ACTION")}


@pytest.mark.parametrize("game", GAMES)
def test_a_copy_with_one_constant_out_of_order_fails(game: str) -> None:
    """The source changed as a hand copy goes wrong: two members of an order swapped."""
    first, second = SWAPS[game]
    source = kernel_source(game)
    constants = enum_constants(source)
    swapped = source.replace(f"    {first} = {constants[first]}", "    @FIRST@", 1) \
        .replace(f"    {second} = {constants[second]}", f"    {second} = {constants[first]}", 1) \
        .replace("    @FIRST@", f"    {first} = {constants[second]}", 1)
    assert swapped != source
    faults = interface_faults(game, enum_constants(swapped))
    assert len(faults) == 2 and all(first in f or second in f for f in faults), faults


def test_a_new_constant_needs_a_twin_or_a_reason() -> None:
    constants = dict(enum_constants(kernel_source("oh_my_goods")), MAX_SOMETHING=9)
    [fault] = interface_faults("oh_my_goods", constants)
    assert "MAX_SOMETHING" in fault and "no twin" in fault


def test_enum_values_follow_c() -> None:
    source = ("cdef enum:\n    A = 3\n    B\n    # a comment\n\n    C = A * 2  # why\n"
              "    D = 1 << 4\n    E = -B\n")
    assert enum_constants(source) == {"A": 3, "B": 4, "C": 6, "D": 16, "E": -4}
