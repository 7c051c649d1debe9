"""Servers, resource types and server pools.

A :class:`Cluster` is an ordered tuple of :class:`Server` objects that share one list of resource
types. Every server belongs to one *pool*, which decides which roles it may host:

=========  =======================================================  ======================
pool       used by                                                  may host
=========  =======================================================  ======================
worker     OASiS: the H servers that host workers                   workers
ps         OASiS: the K servers that host parameter servers (PS)    parameter servers
unified    PD-ORS, Optimus, SpeCon, traces: one shared pool         workers and PS
edge       A_online: edge servers                                   workers and PS
cloud      A_online: the cloud                                      workers and PS
=========  =======================================================  ======================

Each server may carry a data-transfer delay (A_online's Delta_js, in slots): a job may use the
server only from slot ``arrival + delay`` on. A job may override the delays with its own vector.

Resources listed in ``compressible`` are time-shared rather than reserved (SpeCon's CPU share of
containers on a node): the feasibility checker does not cap them, and job models turn contention
on them into slower progress.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np
import pandas as pd

POOLS: tuple[str, ...] = ("worker", "ps", "unified", "edge", "cloud")
"""Valid pool names."""

WORKER_POOLS = frozenset({"worker", "unified", "edge", "cloud"})
"""Pools whose servers may host workers."""

PS_POOLS = frozenset({"ps", "unified", "edge", "cloud"})
"""Pools whose servers may host parameter servers."""

CAPACITY_EPS = 1e-9
"""Slack of the capacity check (relative and absolute): usage up to ``capacity * (1 + eps) + eps``
fits, so that sums of fractional demands that reach a capacity exactly are not refused."""


def _finite_nonneg(value: float, what: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"{what} must be finite and >= 0, got {value!r}")
    return x


@dataclass(frozen=True)
class Server:
    """One physical server.

    Parameters
    ----------
    name : str
        Human-readable name (unique within a cluster).
    pool : str
        One of :data:`POOLS`.
    capacity : Mapping[str, float]
        Capacity per resource type (finite, >= 0).
    transfer_delay : float, default 0
        Slots needed to move a job's data to this server (A_online's Delta_js).
    """

    name: str
    pool: str
    capacity: Mapping[str, float]
    transfer_delay: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"server name must be a non-empty string, got {self.name!r}")
        if self.pool not in POOLS:
            raise ValueError(f"server {self.name!r}: pool must be one of {POOLS}, got {self.pool!r}")
        if not isinstance(self.capacity, Mapping) or not self.capacity:
            raise ValueError(
                f"server {self.name!r}: capacity must be a non-empty mapping, got {self.capacity!r}"
            )
        cap = {
            str(r): _finite_nonneg(v, f"server {self.name!r}: capacity[{r!r}]")
            for r, v in self.capacity.items()
        }
        object.__setattr__(self, "capacity", MappingProxyType(cap))
        object.__setattr__(
            self,
            "transfer_delay",
            _finite_nonneg(self.transfer_delay, f"server {self.name!r}: transfer_delay"),
        )


@dataclass(frozen=True)
class Cluster:
    """An ordered set of servers sharing one list of resource types.

    Parameters
    ----------
    servers : Sequence[Server]
        The servers; their order defines the server index used everywhere else.
    resources : Sequence[str], optional
        Resource order. Defaults to the union of the servers' resource names in first-seen order.
        A server that lacks a listed resource has capacity 0 for it.
    compressible : Sequence[str], default ()
        Resources that are time-shared instead of reserved (see module docstring).
    slot_seconds : float, default 3600
        Length of one time slot in seconds (used to convert seconds-based job models).

    Attributes
    ----------
    capacity : numpy.ndarray
        Read-only array of shape (n_servers, n_resources).
    """

    servers: tuple[Server, ...]
    resources: tuple[str, ...] = ()
    compressible: tuple[str, ...] = ()
    slot_seconds: float = 3600.0
    capacity: np.ndarray = field(init=False, repr=False, compare=False)
    transfer_delay: np.ndarray = field(init=False, repr=False, compare=False)
    hard: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        servers = tuple(self.servers)
        if not servers:
            raise ValueError("cluster.servers must contain at least one server")
        for s in servers:
            if not isinstance(s, Server):
                raise TypeError(f"cluster.servers must hold Server objects, got {type(s).__name__}")
        names = [s.name for s in servers]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"cluster.servers: duplicate server names {dupes}")
        resources = (
            tuple(self.resources)
            if self.resources
            else tuple(dict.fromkeys(r for s in servers for r in s.capacity))
        )
        if len(set(resources)) != len(resources):
            raise ValueError(f"cluster.resources has duplicates: {resources}")
        for s in servers:
            unknown = set(s.capacity) - set(resources)
            if unknown:
                raise ValueError(
                    f"server {s.name!r} has capacity for unknown resources {sorted(unknown)}; "
                    f"cluster.resources = {resources}"
                )
        compressible = tuple(self.compressible)
        bad = [r for r in compressible if r not in resources]
        if bad:
            raise ValueError(f"cluster.compressible names unknown resources {bad}")
        slot = _finite_nonneg(self.slot_seconds, "cluster.slot_seconds")
        if slot <= 0:
            raise ValueError(f"cluster.slot_seconds must be > 0, got {self.slot_seconds!r}")
        cap = np.array([[s.capacity.get(r, 0.0) for r in resources] for s in servers], dtype=float)
        cap.setflags(write=False)
        delay = np.array([s.transfer_delay for s in servers], dtype=float)
        delay.setflags(write=False)
        hard = np.array([r not in compressible for r in resources], dtype=bool)
        hard.setflags(write=False)
        object.__setattr__(self, "servers", servers)
        object.__setattr__(self, "resources", resources)
        object.__setattr__(self, "compressible", compressible)
        object.__setattr__(self, "slot_seconds", slot)
        object.__setattr__(self, "capacity", cap)
        object.__setattr__(self, "transfer_delay", delay)
        object.__setattr__(self, "hard", hard)

    # ------------------------------------------------------------------ queries
    @property
    def n_servers(self) -> int:
        """Number of servers."""
        return len(self.servers)

    @property
    def pools(self) -> tuple[str, ...]:
        """Pool of each server, by index."""
        return tuple(s.pool for s in self.servers)

    def servers_for(self, role: str) -> np.ndarray:
        """Indices of the servers that may host ``role`` ("worker" or "ps")."""
        if role not in ("worker", "ps"):
            raise ValueError(f"role must be 'worker' or 'ps', got {role!r}")
        return self._role_servers[role].copy()

    @cached_property
    def capacity_limit(self) -> np.ndarray:
        """What the schedule checker compares usage with: ``capacity * (1 + eps) + eps`` on the
        hard resources (``eps`` = :data:`CAPACITY_EPS`), ``+inf`` on compressible ones; read-only."""
        lim = np.where(self.hard[None, :], self.capacity * (1 + CAPACITY_EPS) + CAPACITY_EPS, np.inf)
        lim.setflags(write=False)
        return lim

    @cached_property
    def _role_servers(self) -> dict[str, np.ndarray]:
        return {
            role: np.array([i for i, s in enumerate(self.servers) if s.pool in allowed], dtype=int)
            for role, allowed in (("worker", WORKER_POOLS), ("ps", PS_POOLS))
        }

    def resource_index(self, name: str) -> int:
        """Column of resource ``name`` in :attr:`capacity`."""
        try:
            return self.resources.index(name)
        except ValueError:
            raise ValueError(f"unknown resource {name!r}; cluster.resources = {self.resources}") from None

    def vector(self, demand: Mapping[str, float], what: str = "demand") -> np.ndarray:
        """Turn a per-resource mapping into a vector aligned with :attr:`resources`."""
        vec = np.zeros(len(self.resources))
        for r, v in demand.items():
            if r not in self.resources:
                raise ValueError(
                    f"{what} names resource {r!r} that the cluster does not have "
                    f"(cluster.resources = {self.resources})"
                )
            vec[self.resources.index(r)] = v
        return vec

    def total_capacity(self, role: str | None = None) -> np.ndarray:
        """Capacity summed over all servers (or over the servers that may host ``role``)."""
        if role is None:
            return self.capacity.sum(axis=0)
        return self.capacity[self.servers_for(role)].sum(axis=0)

    def to_frame(self) -> pd.DataFrame:
        """One row per server: ``server, name, pool, transfer_delay, capacity_<resource>...``."""
        df = pd.DataFrame(
            {
                "server": np.arange(self.n_servers),
                "name": [s.name for s in self.servers],
                "pool": list(self.pools),
                "transfer_delay": self.transfer_delay,
            }
        )
        for j, r in enumerate(self.resources):
            df[f"capacity_{r}"] = self.capacity[:, j]
        return df

    # ------------------------------------------------------------- constructors
    @classmethod
    def homogeneous(
        cls,
        n: int,
        capacity: Mapping[str, float],
        *,
        pool: str = "unified",
        prefix: str = "s",
        compressible: Sequence[str] = (),
        slot_seconds: float = 3600.0,
    ) -> Cluster:
        """``n`` identical servers in one pool."""
        _check_count(n, "n")
        servers = tuple(Server(f"{prefix}{i}", pool, capacity) for i in range(n))
        return cls(servers, compressible=tuple(compressible), slot_seconds=slot_seconds)

    @classmethod
    def two_pools(
        cls,
        n_worker_servers: int,
        n_ps_servers: int,
        worker_capacity: Mapping[str, float] | Sequence[Mapping[str, float]],
        ps_capacity: Mapping[str, float] | Sequence[Mapping[str, float]],
        *,
        slot_seconds: float = 3600.0,
    ) -> Cluster:
        """OASiS's layout: ``H`` worker servers and ``K`` PS servers.

        A capacity may be one mapping (identical servers) or one mapping per server.
        """
        _check_count(n_worker_servers, "n_worker_servers")
        _check_count(n_ps_servers, "n_ps_servers")
        wcaps = _per_server(worker_capacity, n_worker_servers, "worker_capacity")
        pcaps = _per_server(ps_capacity, n_ps_servers, "ps_capacity")
        servers = [Server(f"w{i}", "worker", c) for i, c in enumerate(wcaps)]
        servers += [Server(f"p{i}", "ps", c) for i, c in enumerate(pcaps)]
        resources = tuple(dict.fromkeys(r for s in servers for r in s.capacity))
        return cls(tuple(servers), resources, slot_seconds=slot_seconds)

    @classmethod
    def edge_cloud(
        cls,
        edge_capacity: Sequence[Mapping[str, float]],
        cloud_capacity: Mapping[str, float],
        *,
        edge_delay: Sequence[float] | float = 1.0,
        cloud_delay: float = 10.0,
        slot_seconds: float = 3600.0,
    ) -> Cluster:
        """A_online's layout: edge servers plus one cloud, each with a data-transfer delay."""
        n = len(edge_capacity)
        _check_count(n, "len(edge_capacity)")
        delays = [float(edge_delay)] * n if np.isscalar(edge_delay) else list(edge_delay)
        if len(delays) != n:
            raise ValueError(f"edge_delay has {len(delays)} entries for {n} edge servers")
        servers = [
            Server(f"edge{i}", "edge", c, transfer_delay=d)
            for i, (c, d) in enumerate(zip(edge_capacity, delays, strict=False))
        ]
        servers.append(Server("cloud", "cloud", cloud_capacity, transfer_delay=cloud_delay))
        resources = tuple(dict.fromkeys(r for s in servers for r in s.capacity))
        return cls(tuple(servers), resources, slot_seconds=slot_seconds)


def _check_count(n: int, what: str) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{what} must be a positive integer, got {n!r}")


def _per_server(caps, n: int, what: str) -> list[Mapping[str, float]]:
    if isinstance(caps, Mapping):
        return [caps] * n
    caps = list(caps)
    if len(caps) != n:
        raise ValueError(f"{what} has {len(caps)} entries for {n} servers")
    return caps
