"""Name -> policy and name -> workload: the only module that knows every wing.

Entries are import paths resolved on first use, so importing the registry is cheap and a wing is
never imported by another wing. Adding a scheduler means adding one line to :data:`POLICIES`;
the simulator never changes.

>>> from dlsched import registry
>>> policy = registry.make_policy("fifo", n_workers=2)
>>> workload = registry.make_workload("synthetic", seed=0, model="oasis", n_jobs=5)
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping

import numpy as np

from dlsched.core.jobs import Workload
from dlsched.core.policy import Policy

POLICIES: dict[str, str] = {
    "fifo": "dlsched.baselines.fifo:FIFO",
    "drf": "dlsched.baselines.drf:DRF",
    "oasis": "dlsched.oasis.policy:OASiS",
    "rrh": "dlsched.oasis.baselines:RRH",
    "dorm": "dlsched.oasis.baselines:Dorm",
    "optimus": "dlsched.optimus.policy:Optimus",
    "tetris": "dlsched.optimus.policy:Tetris",
    "pdors": "dlsched.pdors.policy:PDORS",
    "pdors_nocoloc": "dlsched.pdors.policy:PDORSNoColocation",
    "oasis_split": "dlsched.pdors.baselines:OasisSplit",
    "aonline": "dlsched.aonline.policy:AOnline",
    "batchsche": "dlsched.aonline.baselines:BatchSche",
    "preemptive": "dlsched.aonline.baselines:Preemptive",
    "specon": "dlsched.specon.policy:SpeCon",
    "k8s_default": "dlsched.specon.policy:K8sDefault",
}
"""Policy name -> ``module:class``."""

WORKLOADS: dict[str, str] = {
    "synthetic": "dlsched.workloads:synthetic",
    "philly": "dlsched.workloads:philly",
    "itp": "dlsched.workloads:itp",
    "philly_like": "dlsched.workloads:philly_like",
    "gavel_like": "dlsched.workloads:gavel_like",
    "oasis": "dlsched.oasis.model:oasis_workload",
    "oasis_testbed": "dlsched.oasis.model:testbed_workload",
    "optimus": "dlsched.optimus.workload:optimus_workload",
    "pdors": "dlsched.pdors.model:pdors_workload",
    "aonline": "dlsched.aonline.model:aonline_workload",
    "specon": "dlsched.specon.model:specon_workload",
    "trace": "dlsched.arena.experiments:trace_workload",  # a real trace window, any job model
}
"""Workload name -> ``module:function(rng, **params)``."""


class UnknownNameError(KeyError, ValueError):
    """An unknown policy or workload name."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


def _resolve(table: Mapping[str, str], name: str, what: str):
    if name not in table:
        raise UnknownNameError(f"unknown {what} {name!r}; known: {', '.join(sorted(table))}")
    module, attr = table[name].split(":")
    return getattr(importlib.import_module(module), attr)


def policy_names() -> list[str]:
    """Registered policy names, sorted."""
    return sorted(POLICIES)


def workload_names() -> list[str]:
    """Registered workload names, sorted."""
    return sorted(WORKLOADS)


def _parameters(fn, skip: int) -> dict[str, object]:
    params = list(inspect.signature(fn).parameters.values())[skip:]
    return {
        p.name: (None if p.default is inspect.Parameter.empty else p.default)
        for p in params
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def policy_parameters(name: str) -> dict[str, object]:
    """Constructor parameters of policy ``name`` with their defaults."""
    return _parameters(_resolve(POLICIES, name, "policy").__init__, 1)


def workload_parameters(name: str) -> dict[str, object]:
    """Parameters of workload ``name`` with their defaults (the generator excluded)."""
    return _parameters(_resolve(WORKLOADS, name, "workload"), 1)


def workload_defaults(policy: str, workload: str) -> dict[str, object]:
    """Workload parameters policy ``policy`` declares it needs (its ``workload_defaults``), kept
    where workload ``workload`` takes them; callers apply them under the user's own parameters.

    >>> workload_defaults("preemptive", "aonline")
    {'preemptible': True}
    >>> workload_defaults("fifo", "aonline")
    {}
    """
    want = getattr(_resolve(POLICIES, policy, "policy"), "workload_defaults", {})
    accepted = workload_parameters(workload)
    return {k: v for k, v in want.items() if k in accepted}


def _check_params(known: Mapping[str, object], params: Mapping[str, object], what: str) -> None:
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for {what}; known: {sorted(known)}")


def make_policy(name: str, workload: Workload | None = None, **params) -> Policy:
    """Instantiate policy ``name`` with ``params`` (unknown names raise ValueError).

    Policies that need knowledge of the job population before the first arrival (OASiS's price
    estimates "based on past experience") define a ``from_workload(workload, **params)``
    classmethod; it is used when ``workload`` is given. Other policies ignore ``workload``.
    """
    cls = _resolve(POLICIES, name, "policy")
    _check_params(policy_parameters(name), params, f"policy {name!r}")
    if workload is not None and workload.params.get("mapped_by") == "dlsched.arena.mapping":
        # jobs mapped from a real trace: refuse a policy that cannot run their model, naming both
        from dlsched.arena.mapping import check_policy

        check_policy(name, workload.params["model"])
    if workload is not None and hasattr(cls, "from_workload"):
        return cls.from_workload(workload, **params)
    return cls(**params)


def make_workload(name: str, seed=0, **params) -> Workload:
    """Build workload ``name``; ``seed`` is an int, SeedSequence or Generator."""
    fn = _resolve(WORKLOADS, name, "workload")
    _check_params(workload_parameters(name), params, f"workload {name!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(_seed(seed))
    return fn(rng, **params)


def _seed(seed):
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, a SeedSequence or a Generator, got {seed!r}")
    return int(seed)
