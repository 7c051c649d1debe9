"""Cross-paper arena: the five papers' schedulers on the same real-trace jobs.

:mod:`dlsched.arena.mapping` turns a row of the Philly or Microsoft ITP trace into a job of each
paper's job model (rigid GPU gang, OASiS, PD-ORS, A_online, Optimus, SpeCon), with every choice
documented in :func:`~dlsched.arena.mapping.mapping_table`.
"""
