"""The kernels' constants against the rules' vocabularies (``tests/ext``: every one
checked, none copied unseen).

A kernel (``ext/<game>_kernel.pyx``) numbers the rules' move kinds, phases, steps,
frames and effects in ``cdef enum`` blocks, in the order the Python rules give them.
Nothing compiled can read the Python order, so the copy was trusted; here each enum
constant of a kernel's source is read and either

* found again in the rules by a rule of :data:`TWINS` (the same name in one of the
  game's modules, a word's index in a vocabulary tuple, a length), whose value must
  equal the kernel's, or
* listed in :data:`KERNEL_ONLY` with why it has no twin (a C array's bound, a
  sentinel the Python rules spell as ``None``, a layout of the kernel's own).

A constant that is neither fails the check, so a new constant needs a decision, and a
constant whose value or order differs from the rules' names both.  The sources are read
as text: the check runs without a compiler and on the pure-Python path alike.
"""

from __future__ import annotations

import ast
import importlib
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

EXT = Path(__file__).resolve().parents[1] / "ext"
GAMES = ("samara", "oh_my_goods", "stephens")

_ENUM = re.compile(r"^cdef enum[^\n]*:\n((?:[ \t]+[^\n]*\n|[ \t]*#[^\n]*\n|\n)+)", re.M)
_MEMBER = re.compile(r"^\s+([A-Z_][A-Z0-9_]*)\s*(?:=\s*([^#\n]+?))?\s*(?:#.*)?$")
_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}


def _value(expression: str, known: Mapping[str, int]) -> int:
    """An enum member's value: integers, earlier members, + - * << >> and unary minus."""
    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return int(_OPERATORS[type(node.op)](walk(node.left), walk(node.right)))
        raise ValueError(f"cannot read the enum value {expression!r}")

    return walk(ast.parse(expression.strip(), mode="eval").body)


def enum_constants(source: str) -> dict[str, int]:
    """Every member of the ``cdef enum`` blocks of a Cython ``source``, with its value (a
    member without one follows the one before, as in C)."""
    constants: dict[str, int] = {}
    for block in _ENUM.finditer(source):
        following = 0
        for line in block.group(1).splitlines():
            match = _MEMBER.match(line)
            if match is None:
                continue
            name, expression = match.groups()
            value = _value(expression, constants) if expression else following
            constants[name] = value
            following = value + 1
    return constants


def kernel_source(game: str) -> str:
    return (EXT / f"{game}_kernel.pyx").read_text(encoding="utf-8")


# -- how a constant finds its twin in the rules ---------------------------------------------
@dataclass(frozen=True)
class Twin:
    """Constants named ``prefix`` + WORD whose rules value is ``value(word)`` (None: no
    twin by this rule); an empty prefix matches every name."""

    prefix: str
    value: Callable[[str], int | None]


def same_name(*modules: str, rename: Mapping[str, str] | None = None) -> Callable[[str], int | None]:
    """The value of the module attribute of the same name (or ``rename``'s), in the first
    of ``modules`` that has it."""
    def find(word: str) -> int | None:
        name = (rename or {}).get(word, word)
        for module in _modules(modules):
            value = getattr(module, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None

    return find


def index_in(module: str, tuple_name: str, *, offset: int = 0,
             spell: Callable[[str], str] = lambda word: word.lower()) -> Callable[[str], int | None]:
    """The index of the word (``spell``-ed: lower case by default) in a vocabulary tuple
    (or a dict's keys), plus ``offset``."""
    def find(word: str) -> int | None:
        words = list(getattr(_modules((module,))[0], tuple_name))
        spelled = spell(word)
        return words.index(spelled) + offset if spelled in words else None

    return find


def length_of(module: str, name: str, *, offset: int = 0) -> Callable[[str], int | None]:
    """The length of a vocabulary, plus ``offset``."""
    def find(word: str) -> int | None:
        return len(getattr(_modules((module,))[0], name)) + offset

    return find


def _modules(names: tuple[str, ...]) -> list[ModuleType]:
    return [importlib.import_module(name) for name in names]


def _dashed(word: str) -> str:
    return word.lower().replace("_", "-")


SAMARA = "engine.samara"
OMG = "engine.oh_my_goods"
STEPHENS = "engine.stephens"

#: How each kernel's constants find their twins, tried in order.
TWINS: dict[str, tuple[tuple[tuple[str, ...], Twin], ...]] = {
    "samara": (
        ((), Twin("K_", same_name(f"{SAMARA}.vocabulary"))),
        ((), Twin("T_", index_in(f"{SAMARA}.catalogue", "TOOL_NAMES", spell=_dashed))),
        ((), Twin("P_", index_in(f"{SAMARA}.catalogue", "POWERS"))),
        ((), Twin("ONLY_", index_in(f"{SAMARA}.vocabulary", "GIVE_KINDS"))),
        (("NFEATURES",), Twin("", length_of(f"{SAMARA}.features", "FEATURES"))),
        ((), Twin("", same_name(f"{SAMARA}.vocabulary", f"{SAMARA}.features",
                                f"{SAMARA}.moves", f"{SAMARA}.state", f"{SAMARA}.rules"))),
    ),
    "oh_my_goods": (
        ((), Twin("PH_", index_in(f"{OMG}.vocabulary", "PHASES"))),
        ((), Twin("ST_", index_in(f"{OMG}.vocabulary", "STEPS"))),
        (("ANY_KEY", "MARKET_CARD"), Twin("", length_of(f"{OMG}.catalogue", "RESOURCES"))),
        (("NFEATURES",), Twin("", length_of(f"{OMG}.features", "FEATURES"))),
        ((), Twin("", same_name(f"{OMG}.vocabulary", f"{OMG}.moves", f"{OMG}.state",
                                f"{OMG}.rules"))),
    ),
    "stephens": (
        ((), Twin("K_", same_name(f"{STEPHENS}.moves"))),
        ((), Twin("F_", index_in(f"{STEPHENS}.frames", "FRAME_KINDS"))),
        ((), Twin("R_", same_name(f"{STEPHENS}.activation",
                                  rename={"ACC": "ACCESSORIES",
                                          "ACC_GAINED": "ACCESSORIES_GAINED"}))),
        ((), Twin("E_", lambda word: 0 if word == "INFLUENCE" else index_in(
            f"{STEPHENS}.vocabulary", "ABILITY_EFFECTS", offset=1, spell=_effect)(word))),
        (("NEFFECTS",), Twin("", length_of(f"{STEPHENS}.vocabulary", "ABILITY_EFFECTS",
                                            offset=1))),
        ((), Twin("G_", index_in(f"{STEPHENS}.vocabulary", "BONUS_GAINS"))),
        ((), Twin("A_", index_in(f"{STEPHENS}.vocabulary", "FURNACE_ACTIONS"))),
        ((), Twin("AU_", index_in(f"{STEPHENS}.vocabulary", "AUTOMA_ACTIONS"))),
        (("AUTOMA_SEAT", "NO_SEAT", "ANY_COLOUR"), Twin("", same_name(
            f"{STEPHENS}.vocabulary",
            rename={"AUTOMA_SEAT": "AUTOMA", "NO_SEAT": "NOBODY", "ANY_COLOUR": "ANY"}))),
        ((), Twin("AUTOMA_", same_name(f"{STEPHENS}.solo"))),
        ((), Twin("C_R_", lambda word: _field_index("remove", word))),
        ((), Twin("C_S_", lambda word: _field_index(
            "supply", "accessories" if word == "ACC" else word))),
        ((), Twin("C_", lambda word: _field_index(None, word))),
        (("NFEATURES",), Twin("", length_of(f"{STEPHENS}.features", "FEATURES"))),
        (("INVESTMENTS_STEP",), Twin("", same_name(
            f"{STEPHENS}.stack", rename={"INVESTMENTS_STEP": "INVESTMENT_STEP"}))),
        ((), Twin("", same_name(f"{STEPHENS}.vocabulary", f"{STEPHENS}.moves",
                                f"{STEPHENS}.flow", f"{STEPHENS}.reset",
                                f"{STEPHENS}.acquisition", f"{STEPHENS}.activation",
                                f"{STEPHENS}.workers"))),
    ),
}


#: The kernel's short names of ability effects, where they are not the rules' words.
_EFFECT_WORDS = {"FINAL_ACC": "final-accessories", "DISCARD_PROF": "discard-professions",
                 "EQUAL": "equal-placement", "CUBE_REPL": "cube-replacement"}


def _effect(word: str) -> str:
    return _EFFECT_WORDS.get(word, _dashed(word))


def _field_index(kind: str | None, word: str) -> int | None:
    """A frame context field's index among its kind's fields (sorted by name); without
    ``kind``, in whichever kind has a field of that name."""
    kinds = importlib.import_module(f"{STEPHENS}.frames").FRAME_KINDS
    name = word.lower()
    for frame, fields in kinds.items():
        if (kind is None or frame == kind) and name in fields:
            return list(fields).index(name)
    return None


#: Constants with no twin in the rules, and why.
_BOUND = "a C array's bound"
_SEARCH = "the compiled search core's table (search_ops.pxi)"
KERNEL_ONLY: dict[str, dict[str, str]] = {
    "samara": {
        **dict.fromkeys(("NMONTHS", "MAX_SPOTS", "MAX_TILES", "MAX_PLAYERS", "MAX_OWN",
                         "MAX_W", "MAX_PENDING", "MAX_POWERS", "MAX_ROW", "MAX_MOVES"),
                        _BOUND),
        "MAX_TOOL_COUNT": "tool counts are signed chars in the kernel",
        "P_NONE": "no power: None in the rules",
        "SEARCH_MAX_PLAYERS": _SEARCH, "SEARCH_NFEATURES": _SEARCH,
    },
    "oh_my_goods": {
        **dict.fromkeys(("MAXC", "MAXP", "MAX_SLOTS", "MAX_BUILDINGS", "MAX_ASSISTANTS",
                         "MAX_CHARBURNERS", "MAX_INPUTS", "MAX_NEEDS", "MAX_HANDLED",
                         "MAX_MOVES"), _BOUND),
        "NO_CHAIN": "a chain that cannot run: the rules answer None",
        **dict.fromkeys(("PU_SHIFT", "PU_BUILD", "PU_HIRE"),
                        "a payment's purpose, a word in the rules, coded by the kernel's "
                        "PURPOSES"),
        "MARKET_NONE": "no Market Office: None in the rules",
        "SEARCH_MAX_PLAYERS": _SEARCH, "SEARCH_NFEATURES": _SEARCH,
    },
    "stephens": {
        **dict.fromkeys(("MAXP", "MAXPROF", "MAXCON", "MAXINV", "MAXDISK", "MAXACC",
                         "MAXBONUS", "MAXDISP", "MAXROWS", "MAXREQ", "MAXOPT", "MAXARMY",
                         "MAXFRAMES", "MAXW", "MAXCOLS", "MAX_MOVES", "MAX_PLACEMENTS",
                         "MAXSTEPS", "MAXAUTOMA", "MAXAUTOMA_COSTS", "MAXSUPPLYCARD",
                         "MAXREMOVE", "MAXDIFF", "MAXOPP"), _BOUND),
        **dict.fromkeys(("SMALL_ROOM", "LARGE_ROOM"),
                        "the room of the kernel's contract-payment search"),
        "STEP_WORDS": "64-bit words of the kernel's step sets",
        "TEXT_CONTEXT": "the layout of the bytes a move's text reads from the position",
        **dict.fromkeys(("OPP_OTHER", "OPP_ACCESSORY_SETS", "OPP_CLOSED_SPACE"),
                        "the opponent effects the kernel reads in play, words in the "
                        "rules, coded by the kernel's OPPONENT_EFFECTS"),
        **dict.fromkeys(("SEARCH_MAX_PLAYERS", "SEARCH_TRUNCATES", "SEARCH_NFEATURES"),
                        _SEARCH),
    },
}


def twin_value(game: str, name: str) -> tuple[bool, int | None]:
    """Whether a rule of :data:`TWINS` covers ``name``, and the rules' value it finds."""
    for names, twin in TWINS[game]:
        if names and name not in names:
            continue
        if not name.startswith(twin.prefix):
            continue
        value = twin.value(name[len(twin.prefix):])
        if value is not None:
            return True, value
        if names or twin.prefix:
            return True, None
    return False, None


def interface_faults(game: str, constants: Mapping[str, int] | None = None) -> list[str]:
    """What is wrong with ``game``'s kernel constants (default: its source's): a value
    that is not the rules', a twin the rules lack, a constant with no twin and no
    reason.  Empty: every constant checked."""
    constants = enum_constants(kernel_source(game)) if constants is None else constants
    only = KERNEL_ONLY[game]
    faults = []
    for name, value in constants.items():
        if name in only:
            continue
        covered, expected = twin_value(game, name)
        if not covered:
            faults.append(f"{game}: {name} = {value} has no twin in the rules and is not "
                          f"listed as the kernel's own")
        elif expected is None:
            faults.append(f"{game}: {name} = {value}: its twin is missing from the rules")
        elif expected != value:
            faults.append(f"{game}: {name} = {value} but the rules say {expected}")
    for name in only:
        if name not in constants:
            faults.append(f"{game}: {name} is listed as the kernel's own but the kernel "
                          f"has no such constant")
    return faults
