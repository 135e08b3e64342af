"""Build the optional Cython kernels in ``ext/`` (metadata lives in pyproject.toml).

``pip install -e .`` builds them; for quick iteration use
``python setup.py build_ext --inplace``.  The extensions compile in parallel, one per
processor, at ``-O2`` (see :func:`extensions`): on 2 cores the five take 44 s (65 s at
``-O3``; 1 min 51 s at ``-O3`` one after another).
"""

from __future__ import annotations

import os
import sys
from glob import glob
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).parent
DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "nonecheck": False,
}


def extensions() -> list[Extension]:
    from Cython.Build import cythonize

    # -O2, not -O3: on the largest module -O3 took 1.5x the compiler's time (39.0 s
    # against 25.7 s of CPU) for searches 2-3% faster, within the noise of the runs that
    # measured it (fixed-work arenas of each game, -O2/-O3 CPU 1.03, 1.02, 1.02).
    args = ["/O2"] if sys.platform == "win32" else ["-O2"]
    modules = [
        Extension(
            "ext." + Path(source).stem,
            [source],
            # The shared glue every kernel includes: a change to one rebuilds them all,
            # and an sdist carries them (an include is read at build time).
            depends=sorted(glob("ext/*.pxi", root_dir=ROOT)),
            extra_compile_args=args,
        )
        for source in sorted(glob("ext/*.pyx", root_dir=ROOT))
    ]
    return cythonize(modules, compiler_directives=DIRECTIVES)


setup(ext_modules=extensions(),
      options={"build_ext": {"parallel": os.cpu_count() or 1}})
