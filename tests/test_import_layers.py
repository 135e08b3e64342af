"""The packages show the layers (issues 13 and 26): ``lint-imports`` keeps the contracts
of ``[tool.importlinter]`` in pyproject.toml, with no import let through.

* the product (``engine``, ``ai_server``, ``clients``, ``furnace_proto``) imports no tool
  (``load``, ``fuzzers``, ``checks``, ``tournaments``) and not the CLI;
* ``engine`` imports none of ``ai_server``, ``clients``, ``furnace_proto``;
* ``furnace_proto`` (the generated stubs) imports nothing of ours;
* ``clients`` import neither ``ai_server`` nor ``engine`` (only ``furnace_proto``);
* ``ai_server`` does not import ``clients``;
* the games are independent of each other, and search imports no game;
* the protocol core (``engine.game`` and what sits beside it) imports no game, no search;
* ``furnace_cli``, the ``furnace`` application, may import them all.

The tests below walk the import graph themselves: no circle inside a game package (but
through its kernel bridge), in the protocol core or in the server, and the kernels (``ext``, Cython,
outside import-linter's sight) import only the protocol and their own game, loaded by one
bridge each.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept() -> None:
    # import-linter is a dev dependency: missing, this fails rather than skips.
    lint_imports = Path(sys.executable).with_name("lint-imports")
    command = str(lint_imports) if lint_imports.exists() else shutil.which("lint-imports")
    assert command, "import-linter is not installed: pip install -e '.[dev]'"
    result = subprocess.run([command, "--no-cache"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout
    kept = int(result.stdout.rsplit("Contracts: ", 1)[1].split(" kept")[0])
    assert kept >= 8, result.stdout


def test_no_import_is_let_through() -> None:
    """Every contract holds whole: none lists imports it ignores."""
    text = (ROOT / "pyproject.toml").read_text()
    assert "ignore_imports" not in text


def test_tools_live_above_the_product() -> None:
    """The load harness, the fuzzers, the checks and the tournaments have packages of
    their own; their old homes inside the product are gone."""
    for package in ("load", "fuzzers", "checks", "tournaments"):
        assert (ROOT / package / "__init__.py").exists(), package
    for old in ("ai_server/loadtest", "ai_server/fuzz.py", "ai_server/fuzz_positions",
                "engine/fuzz.py", "engine/kernelcheck.py", "engine/search/arena.py",
                "engine/search/ladder.py", "engine/search/ratings.py"):
        assert not (ROOT / old).exists(), old


def test_the_cli_is_the_application_layer() -> None:
    """The console script is ``furnace_cli:main``, and the old homes are gone."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'furnace = "furnace_cli:main"' in text
    assert not (ROOT / "engine" / "cli" / "__init__.py").exists()
    assert not (ROOT / "ai_server" / "proto_gen" / "__init__.py").exists()


# -- import circles and the kernels -------------------------------------------------------
# grimp is the graph import-linter builds its contracts on.  Imports made only for type
# annotations (``if TYPE_CHECKING:``) run nothing, so they close no circle and are left out.
GAME_PACKAGES = ("engine.samara", "engine.oh_my_goods", "engine.stephens")
#: Each kernel's bridge: the one product module that loads it (through engine.fastpath).
KERNEL_BRIDGES = {
    "ext.samara_kernel": "engine.samara.fast",
    "ext.oh_my_goods_kernel": "engine.oh_my_goods.fast",
    "ext.stephens_kernel": "engine.stephens.fast",
    "ext.move_values": "engine.search.mast",
    "ext.search_core": "engine.search.compiled",
}
_IMPORT_LINE = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+))", re.M)


def _engine_graph() -> Any:
    import grimp

    return grimp.build_graph("engine", include_external_packages=False,
                             exclude_type_checking_imports=True, cache_dir=None)


def mutual_pairs(graph: Any, modules: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs of ``modules`` that reach each other through some chain of imports."""
    ordered = sorted(modules)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]
            if graph.chain_exists(a, b) and graph.chain_exists(b, a)]


def kernel_imports(path: Path) -> set[str]:
    """The modules a Cython source imports or cimports (its ``include`` files are read
    with it by :func:`test_kernels_import_only_the_protocol_and_their_game`)."""
    return {a or b for a, b in _IMPORT_LINE.findall(path.read_text())}


def test_mutual_pairs_sees_a_circle() -> None:
    import grimp

    graph = grimp.ImportGraph()
    for name in ("p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    assert mutual_pairs(graph, ["p.a", "p.b", "p.c"]) == []
    graph.add_import(importer="p.c", imported="p.a")
    assert len(mutual_pairs(graph, ["p.a", "p.b", "p.c"])) == 3


@pytest.mark.parametrize("package", GAME_PACKAGES)
def test_no_import_circle_inside_a_game(package: str) -> None:
    """A game's modules import each other one way: reading one never means holding the
    whole package in mind.  Its kernel bridge is left out: the kernel imports the rules
    it reproduces, and the rules load it through the bridge."""
    graph = _engine_graph()
    graph.remove_module(f"{package}.fast")
    modules = [m for m in graph.modules if m.startswith(package + ".")]
    assert mutual_pairs(graph, modules) == []


def test_the_protocol_core_has_no_circle() -> None:
    graph = _engine_graph()
    top = [m for m in graph.modules if m.count(".") == 1 and m.split(".")[1] not in
           {"samara", "oh_my_goods", "stephens", "search"}]
    assert mutual_pairs(graph, top) == []


def test_the_server_has_no_circle() -> None:
    """No two modules of ``ai_server`` import each other, at load or inside a function:
    the worker process knows no job (the pool names the modules to preload), the jobs
    and the messages share the stop reasons of :mod:`ai_server.stops`."""
    import grimp

    graph = grimp.build_graph("ai_server", include_external_packages=False,
                              exclude_type_checking_imports=True, cache_dir=None)
    assert mutual_pairs(graph, sorted(graph.modules)) == []


def test_kernels_import_only_the_protocol_and_their_game() -> None:
    """What ``ext`` may import: C declarations, the standard library's generator, the
    protocol core and its own game's modules; no search, no other game, no wire."""
    allowed_core = {"engine.game", "engine.playout_rng"}
    for source in sorted((ROOT / "ext").glob("*.pyx")):
        text = source.read_text()
        imports = kernel_imports(source)
        for include in re.findall(r'^include\s+"([\w.]+)"', text, re.M):
            imports |= kernel_imports(ROOT / "ext" / include)
        game = source.stem.removesuffix("_kernel") if source.stem.endswith("_kernel") else None
        for name in sorted(imports):
            top = name.split(".")[0]
            if top in ("libc", "cpython", "cython", "random"):
                continue
            ok = name in allowed_core or (game is not None and (
                name == f"engine.{game}" or name.startswith(f"engine.{game}.")))
            assert ok, f"{source.name} imports {name}"


def test_only_the_bridges_load_the_kernels() -> None:
    """The engine loads each kernel by name (``engine.fastpath.load_kernel``), so no
    import graph shows the edge: each kernel's name appears in its one bridge and nowhere
    else in the product, and nothing imports ``ext`` directly.  With the test above, the
    only circle a kernel closes is rules -> bridge -> kernel -> rules."""
    sources = sorted(p for package in ("engine", "ai_server", "clients", "furnace_cli")
                     for p in (ROOT / package).rglob("*.py"))
    mentioned: dict[str, set[str]] = {}
    for path in sources:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for kernel in re.findall(r"""["'](ext\.\w+)["']""", path.read_text()):
            mentioned.setdefault(kernel, set()).add(module)
        assert not re.search(r"^\s*(from\s+ext\b|import\s+ext\b)", path.read_text(), re.M), path
    built = {f"ext.{p.stem}" for p in (ROOT / "ext").glob("*.pyx")}
    assert set(mentioned) == built == set(KERNEL_BRIDGES)
    for kernel, loaders in mentioned.items():
        assert loaders == {KERNEL_BRIDGES[kernel]}, (kernel, loaders)

