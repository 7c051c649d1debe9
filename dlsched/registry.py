"""Name -> policy and name -> workload: the only module that knows every wing.

Entries are import paths resolved on first use, so importing the registry is cheap and a wing is
never imported by another wing. Adding a scheduler means adding one line to :data:`POLICIES`;
the simulator never changes.

>>> from dlsched import registry
>>> policy = registry.make_policy("fifo", n_workers=2)
>>> workload = registry.make_workload("synthetic", seed=0, model="oasis", n_jobs=5)
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

import numpy as np

from dlsched.core.jobs import MODELS, Workload
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
    Mismatches explain themselves: jobs mapped from a trace (a registered probe source, e.g.
    the arena's) are checked up front with :func:`check_policy`; for every other workload the
    policy is built directly, and only if that raises ``ValueError``/``TypeError`` does
    :func:`check_policy` run (once per process and job model, about 1 s) to replace the error by
    :class:`IncompatibleError` naming the policy, the workload, the job model and the policies
    that can run it -- so a matching pair pays nothing for the probe. ``dlsched run`` checks
    every pair up front.
    """
    cls = _resolve(POLICIES, name, "policy")
    _check_params(policy_parameters(name), params, f"policy {name!r}")
    if workload is None:
        return cls(**params)
    if workload_source(workload) != DEFAULT_PROBE:
        check_policy(name, workload)
    try:
        if hasattr(cls, "from_workload"):
            return cls.from_workload(workload, **params)
        return cls(**params)
    except (ValueError, TypeError):
        if not _probing:
            check_policy(name, workload)  # raises IncompatibleError when the job model is the cause
        raise


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


# ------------------------------------------------------------------------ policy x job model


class IncompatibleError(ValueError):
    """A policy that cannot run a workload's job model (:func:`check_policy`)."""


@dataclasses.dataclass(frozen=True)
class ProbeSource:
    """Where the compatibility probe takes its small workloads from (:func:`register_probe`).

    Attributes
    ----------
    build : callable
        ``build(model, policy) -> Workload``: a few jobs of ``model``, built with the workload
        parameters ``policy`` declares it needs (its ``workload_defaults``).
    models : tuple[str, ...]
        The model names ``build`` takes.
    model_of : callable
        ``model_of(workload) -> tuple[str, ...]``: the models of a workload of this source.
    label : callable
        ``label(model) -> str``: how a message names jobs of ``model`` (e.g. "'rigid' jobs mapped
        from a trace").
    """

    build: Callable[[str, str], Workload]
    models: tuple[str, ...]
    model_of: Callable[[Workload], tuple[str, ...]]
    label: Callable[[str], str]


DEFAULT_PROBE = "synthetic"
"""The probe source of every workload not built by a registered source: job models by ``kind``
(:data:`dlsched.core.jobs.MODELS`), probed on :func:`dlsched.workloads.synthetic` instances."""

_PROBE_HORIZON = 400
"""Horizon of the default probe workloads (OASiS and PD-ORS plan over one; every probe job ends
well before it under a policy that can run it)."""


def _synthetic_probe(model: str, policy: str) -> Workload:
    """Six jobs of job-model kind ``model`` on four servers, with ``policy``'s workload defaults
    (the one such default, ``preemptible``, is the A_online model's ``allow_preemption``)."""
    wl = make_workload("synthetic", seed=0, model=model, n_jobs=6, n_servers=4, arrival_span=3,
                       horizon=_PROBE_HORIZON)  # fmt: skip
    want = getattr(_resolve(POLICIES, policy, "policy"), "workload_defaults", {})
    if want.get("preemptible"):
        jobs = tuple(
            dataclasses.replace(s, model=dataclasses.replace(s.model, allow_preemption=True))
            if hasattr(s.model, "allow_preemption")
            else s
            for s in wl.jobs
        )
        wl = dataclasses.replace(wl, jobs=jobs)
    return wl


def _kinds(workload: Workload) -> tuple[str, ...]:
    return tuple(sorted({s.model.kind for s in workload.jobs}))


_PROBES: dict[str, ProbeSource] = {
    DEFAULT_PROBE: ProbeSource(_synthetic_probe, tuple(MODELS), _kinds, lambda m: f"{m!r} jobs")
}


def register_probe(
    source: str,
    build: Callable[[str, str], Workload],
    models: Sequence[str],
    model_of: Callable[[Workload], tuple[str, ...]],
    label: Callable[[str], str],
) -> None:
    """Register (or replace) probe source ``source`` (see :class:`ProbeSource`).

    A workload whose ``params["mapped_by"]`` names a registered
    source is checked against that source's probes; :mod:`dlsched.arena.mapping` registers its
    mapped trace jobs this way, so the registry never imports the arena.
    """
    _PROBES[source] = ProbeSource(build, tuple(models), model_of, label)
    _probe.cache_clear()


def probe_sources() -> list[str]:
    """Registered probe sources, sorted."""
    return sorted(_PROBES)


def _source(source: str) -> ProbeSource:
    if source not in _PROBES:
        raise UnknownNameError(f"unknown probe source {source!r}; known: {', '.join(sorted(_PROBES))}")
    return _PROBES[source]


def _check_model(source: str, model: str) -> str:
    models = _source(source).models
    if model not in models:
        raise ValueError(f"unknown model {model!r} for probe source {source!r}; known: {list(models)}")
    return model


_probing = False  # make_policy inside a probe skips the check (it is what the probe finds out)


@functools.cache
def _probe(source: str, model: str) -> Mapping[str, str | None]:
    from dlsched.core.simulator import simulate

    global _probing
    build = _source(source).build
    out: dict[str, str | None] = {}
    _probing, was = True, _probing
    try:
        for name in policy_names():
            try:
                wl = build(model, name)
                res = simulate(wl, make_policy(name, wl), seed=0)
            except Exception as e:  # noqa: BLE001 - any failure means "cannot run"; the reason is kept
                out[name] = f"{type(e).__name__}: {e}"
                continue
            left = res.jobs.loc[~res.jobs["status"].isin(["finished", "rejected"]), "job_id"].tolist()
            stalled = " (stalled)" if res.stalled else ""
            out[name] = f"jobs {left} neither finished nor rejected{stalled}" if left else None
    finally:
        _probing = was
    return MappingProxyType(out)


def probe(model: str, source: str = DEFAULT_PROBE) -> Mapping[str, str | None]:
    """Every registered policy run on a small workload of ``model`` from probe ``source``:
    policy -> None if it runs to the end (every job finished or rejected by admission control, no
    stall, no error), else the reason. Found by running, not by a table; cached per process."""
    return _probe(source, _check_model(source, model))


def compatible_policies(model: str, source: str = DEFAULT_PROBE) -> list[str]:
    """Registered policies that can run ``model``'s jobs (:func:`probe`), sorted.

    >>> compatible_policies("specon")
    ['dorm', 'drf', 'fifo', 'k8s_default', 'preemptive', 'specon']
    """
    return [p for p, why in probe(model, source).items() if why is None]


def policy_models(policy: str, source: str = DEFAULT_PROBE) -> list[str]:
    """The models of probe ``source`` that policy ``policy`` can run (:func:`probe`).

    >>> policy_models("pdors")
    ['pdors']
    """
    _resolve(POLICIES, policy, "policy")
    return [m for m in _source(source).models if probe(m, source)[policy] is None]


def _class_names(models: Sequence[str], source: str) -> str:
    names = []
    for m in models:
        wl = _source(source).build(m, "fifo")
        names += [MODELS[k].__name__ for k in _kinds(wl) if MODELS[k].__name__ not in names]
    if not names:
        return "no probed job model"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def workload_source(workload: Workload) -> str:
    """The probe source of ``workload``: its ``params["mapped_by"]`` when registered, else
    :data:`DEFAULT_PROBE`."""
    by = workload.params.get("mapped_by")
    return by if isinstance(by, str) and by in _PROBES else DEFAULT_PROBE


def check_policy(policy: str, workload: Workload, workload_name: str | None = None) -> None:
    """Raise :class:`IncompatibleError` (a ``ValueError``) if ``policy`` cannot run the job model
    of ``workload`` (:func:`probe`), naming the policy, the workload (``workload_name``, default
    ``workload.name``), the job model it has, the one the policy needs and the policies that can.

    >>> from dlsched import registry
    >>> wl = registry.make_workload("specon", n_jobs=3)
    >>> registry.check_policy("pdors", wl)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dlsched.registry.IncompatibleError: policy 'pdors' cannot run workload 'specon' (SpeconModel jobs): ...
    """
    _resolve(POLICIES, policy, "policy")
    if _probing:
        return
    source = workload_source(workload)
    src = _source(source)
    models = src.model_of(workload)
    verdicts = {m: probe(m, source) for m in models}
    bad = [m for m in models if verdicts[m][policy] is not None]
    if not bad:
        return
    name = workload_name if workload_name is not None else workload.name
    ok = [p for p in policy_names() if all(v[p] is None for v in verdicts.values())]
    why = (verdicts[bad[0]][policy] or "").splitlines()[0]
    have = f"{_class_names(models, source)} jobs"
    if source == DEFAULT_PROBE:
        subject = f"workload {name!r} ({have})"
    else:
        subject = f"{', '.join(src.label(m) for m in models)} (workload {name!r}, {have})"
    raise IncompatibleError(
        f"policy {policy!r} cannot run {subject}: {policy} needs "
        f"{_class_names(policy_models(policy, source), source)} jobs; policies for {name!r}: "
        f"{', '.join(ok) or 'none'} (on a small {bad[0]!r} probe: {why})"
    )
