"""Compiled kernels (Cython).  Optional: every game runs without them.

Build in place with ``python setup.py build_ext --inplace`` (or ``pip install -e .``).
"""
