"""Benchmarks: each module with a ``main()`` runs from the repository root as
``python -m bench.NAME`` and prints its figures (``--help`` lists its options). What a
bench measures with lives in the package it measures (``vision.evaluation``,
``companion.engine_match``); the modules here read arguments and print.
"""
