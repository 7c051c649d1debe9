"""The local Dask cluster of :func:`dlsched.experiments.sweep` (``scheduler="local"``) and of
``dlsched audit --workers N``: worker processes on this machine, started one way for both."""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["new_local_cluster"]


def new_local_cluster(n: int) -> Any:
    """A ``distributed.LocalCluster`` of ``n`` single-threaded worker processes on 127.0.0.1, with
    no dashboard (the scheduler's small HTTP server takes a free port instead of 8787, which
    another cluster may hold) and quiet logs.

    The workers start without the ``MALLOC_TRIM_THRESHOLD_=65536`` that dask's nanny sets by
    default (``distributed.nanny.pre-spawn-environ``): setting any glibc malloc variable turns
    off glibc's adaptive mmap threshold, so every array of 128 KiB or more is mapped and faulted
    in afresh, and the heap is handed back to the system after each point. Measured on a
    regeneration of notebook 42 alone (2026-11-28): the two workers' system CPU fell from 72 s to
    17 s and the page faults from 33 to 3.4 million; the whole ``make reproduce-full`` from 9 to
    3.4 min of system CPU. Allocation never changes a result; dask's single-thread BLAS settings
    (``OMP_NUM_THREADS=1`` ...) are kept. Used by :func:`dlsched.experiments.sweep` and
    ``dlsched audit --workers``.
    """
    import dask
    from distributed import LocalCluster

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        return LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
        )
