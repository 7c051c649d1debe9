"""A real Dask cluster as separate OS processes: one ``dask scheduler`` and N ``dask worker``.

:func:`dlsched.experiments.sweep` can run a grid on ``dask.distributed.LocalCluster`` (worker
processes spawned by, and tied to, the calling Python process) or on any scheduler address. This
module provides the second kind on one machine, built exactly as one would on a cluster: the
scheduler and every worker are started from the ``dask scheduler`` / ``dask worker`` command-line
programs as independent processes, and the sweep only knows the address::

    from dlsched.daskprocs import ProcessCluster
    from dlsched.experiments import sweep

    with ProcessCluster(n_workers=2) as cluster:
        table = sweep(fn, grid, scheduler=cluster.address, cache_dir="cache")

That makes the failure modes of a real cluster reproducible on a laptop: a worker process can be
killed (:meth:`ProcessCluster.kill_worker`, SIGKILL) in the middle of a sweep, and Dask then
reschedules its tasks on the remaining workers while the sweep's cache stays consistent.

Choices
-------
* Programs: ``dask`` next to the running interpreter (``Path(sys.executable).parent / "dask"``,
  i.e. the venv's console script); if it is missing, ``python -m distributed.cli.dask_scheduler``
  and ``python -m distributed.cli.dask_worker`` with the running interpreter.
* Every worker is one process with ``--nworkers 1 --nthreads 1`` (by default) and ``--no-nanny``:
  the ``Popen`` object *is* the worker, so killing it loses the worker for good. With a nanny,
  killing the worker process would make the nanny start a fresh one (and killing the nanny
  makes its worker exit soon after), which hides the loss the kill test is about.
* The scheduler writes its address to a ``--scheduler-file`` (``--port 0``: a free port chosen by
  the OS), so several clusters never collide. No dashboard; the small HTTP servers that remain
  (health, metrics) listen on free ports of ``host``.
* Output of every process goes to a log file (``scheduler.log``, ``worker-<i>.log``), never to the
  caller's stdout. A process that exits during start-up raises :class:`RuntimeError` naming its
  command and the tail of its log.
* The processes get the caller's working directory and its extra ``sys.path`` entries on
  ``PYTHONPATH`` (as spawned LocalCluster workers do), so an experiment function importable in
  the caller, e.g. from a notebook's folder, is importable on the scheduler and the workers.
* No process is left behind: :meth:`ProcessCluster.close` (also on leaving a ``with`` block by an
  exception, at interpreter exit, and on garbage collection) terminates the workers, then the
  scheduler, and kills whatever is still alive after a grace period. If the calling process dies
  without cleaning up (e.g. SIGKILL), a watchdog loaded into each child with ``--preload
  dlsched.daskprocs`` notices the new parent pid and shuts its process down.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ProcessCluster", "cluster_for"]

_PARENT_ENV = "DLSCHED_DASKPROCS_PARENT"
_WORKDIR_ENV = "DLSCHED_DASKPROCS_WORKDIR"
_GRACE_S = 5.0
_TAIL_LINES = 25


# --------------------------------------------------------------------------- commands


def _dask_commands() -> tuple[list[str], list[str]]:
    """Command prefixes for ``dask scheduler`` and ``dask worker`` of the running interpreter."""
    script = Path(sys.executable).parent / ("dask.exe" if os.name == "nt" else "dask")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), "scheduler"], [str(script), "worker"]
    return (
        [sys.executable, "-m", "distributed.cli.dask_scheduler"],
        [sys.executable, "-m", "distributed.cli.dask_worker"],
    )


def _extra_sys_path() -> list[str]:
    """The caller's ``sys.path`` entries that a fresh interpreter would not have by itself.

    Entries inside the interpreter's prefixes (stdlib, site-packages) are left out; the empty
    entry (the current folder) becomes the absolute working directory.
    """
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}
    out: list[str] = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if not os.path.isdir(path):
            continue
        if any(path == p or path.startswith(p + os.sep) for p in prefixes):
            continue
        if path not in out:
            out.append(path)
    return out


def _log_tail(path: Path, lines: int = _TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(log {str(path)!r} not readable: {exc})"
    tail = text.strip().splitlines()[-lines:]
    return "\n".join(tail) if tail else "(log is empty)"


def _shutdown(procs: list[subprocess.Popen], workdir: str | None, grace: float) -> None:
    """Terminate the workers (``procs[1:]``), then the scheduler (``procs[0]``); kill stragglers.

    Used by :meth:`ProcessCluster.close` through a :class:`weakref.finalize`, so it must not
    reference the cluster object itself.
    """
    for group in (procs[1:], procs[:1]):
        alive = [p for p in group if p.poll() is None]
        for p in alive:
            with contextlib.suppress(ProcessLookupError, OSError):
                p.terminate()
        deadline = time.monotonic() + grace
        for p in alive:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, OSError):
                    p.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(timeout=grace)
    if workdir is not None:
        shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------- the cluster


class ProcessCluster:
    """A Dask scheduler and ``n_workers`` workers, each a separate ``dask`` CLI process.

    The processes are started when the object is created; use it as a context manager (or call
    :meth:`close`) to stop them. Pass :attr:`address` to
    ``dlsched.experiments.sweep(..., scheduler=address)`` or to ``distributed.Client``.

    Parameters
    ----------
    n_workers : int, default 2
        Worker processes (``dask worker --no-nanny --nworkers 1``), at least 1.
    threads_per_worker : int, default 1
        ``--nthreads`` of each worker.
    host : str, default "127.0.0.1"
        Interface the scheduler and the workers listen on.
    timeout : float, default 60.0
        Seconds to wait for the scheduler to write its address and for every worker to
        register; also the default of :meth:`wait_for_workers`.
    log_dir : str or os.PathLike, optional
        Folder for ``scheduler.log`` and ``worker-<i>.log`` (created if missing; kept after
        :meth:`close`). By default the logs go to the cluster's temporary folder, which
        :meth:`close` removes.
    env : Mapping[str, str], optional
        Extra environment variables for every process (over a copy of ``os.environ``). A
        ``PYTHONPATH`` given here comes first on the processes' ``PYTHONPATH``.
    pythonpath : Sequence of str, optional
        Folders put on the processes' ``PYTHONPATH`` (after ``env["PYTHONPATH"]``, before the
        inherited one). Default: the caller's ``sys.path`` entries outside the interpreter's
        own folders (e.g. a notebook's or the tests' folder), so that what the caller can import
        the workers can too. Pass ``()`` for none.
    scheduler_args, worker_args : Sequence of str, optional
        Extra command-line arguments for ``dask scheduler`` / ``dask worker``
        (e.g. ``["--memory-limit", "2GB"]``).

    Attributes
    ----------
    address : str
        The scheduler's address, ``"tcp://<host>:<port>"``.
    scheduler : subprocess.Popen
        The scheduler process.
    workers : list of subprocess.Popen
        The worker processes, in start order (worker ``i`` is named ``"worker-<i>"``).
    log_dir : pathlib.Path
        Where the logs are.
    scheduler_command, worker_commands : list of str, list of list of str
        The commands that were run.

    Raises
    ------
    ValueError
        If a parameter is invalid; the message names it.
    RuntimeError
        If the scheduler or a worker exits during start-up, or does not come up within
        ``timeout``; the message names the command and ends with the tail of its log. The
        processes already started are stopped first.

    Examples
    --------
    >>> with ProcessCluster(n_workers=2) as cluster:  # doctest: +SKIP
    ...     table = sweep(fn, grid, scheduler=cluster.address)
    """

    def __init__(
        self,
        n_workers: int = 2,
        *,
        threads_per_worker: int = 1,
        host: str = "127.0.0.1",
        timeout: float = 60.0,
        log_dir: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        pythonpath: Sequence[str] | None = None,
        scheduler_args: Sequence[str] = (),
        worker_args: Sequence[str] = (),
    ) -> None:
        self.n_workers = _positive_int("n_workers", n_workers)
        self.threads_per_worker = _positive_int("threads_per_worker", threads_per_worker)
        if not isinstance(host, str) or not host or any(c.isspace() for c in host):
            raise ValueError(f"ProcessCluster: host must be a non-empty host name or IP, got {host!r}")
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ValueError(f"ProcessCluster: timeout must be a positive number of seconds, got {timeout!r}")
        self.host = host
        self.timeout = float(timeout)
        env_extra = _str_mapping("env", env)
        paths = _extra_sys_path() if pythonpath is None else _str_list("pythonpath", pythonpath)
        scheduler_args = _str_list("scheduler_args", scheduler_args)
        worker_args = _str_list("worker_args", worker_args)
        if log_dir is not None and not isinstance(log_dir, str | os.PathLike):
            raise ValueError(f"ProcessCluster: log_dir must be a path or None, got {log_dir!r}")

        self.address = ""
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.worker_commands: list[list[str]] = []
        self._procs: list[subprocess.Popen] = []  # scheduler first; shared with the finalizer
        self._killed: set[int] = set()
        self._workdir = tempfile.mkdtemp(prefix="dlsched-dask-")
        self._finalizer = weakref.finalize(self, _shutdown, self._procs, self._workdir, _GRACE_S)
        try:
            self.log_dir = Path(log_dir) if log_dir is not None else Path(self._workdir) / "logs"
            if self.log_dir.exists() and not self.log_dir.is_dir():
                raise ValueError(f"ProcessCluster: log_dir {str(self.log_dir)!r} is not a folder")
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self._env = dict(os.environ)
            self._env.update(env_extra)
            self._env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [env_extra.get("PYTHONPATH"), *paths, os.environ.get("PYTHONPATH")])
            )
            self._env[_PARENT_ENV] = str(os.getpid())
            self._env[_WORKDIR_ENV] = self._workdir
            self._env.setdefault("PYTHONUNBUFFERED", "1")
            self._start(scheduler_args, worker_args)
        except BaseException:
            self.close()
            raise

    # -- start-up
    def _spawn(self, cmd: list[str], log: Path) -> subprocess.Popen:
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=os.getcwd(),
                env=self._env,
                # Own session: a Ctrl-C in the caller's terminal reaches the caller, which then
                # closes the cluster in order, instead of killing every process at once.
                start_new_session=os.name == "posix",
            )
        self._procs.append(proc)
        return proc

    def _start(self, scheduler_args: list[str], worker_args: list[str]) -> None:
        sched_cmd, worker_cmd = _dask_commands()
        http = f"[{self.host}]:0" if ":" in self.host else f"{self.host}:0"
        sched_file = Path(self._workdir) / "scheduler.json"
        self.scheduler_command = [
            *sched_cmd,
            "--host", self.host,
            "--port", "0",
            "--no-dashboard",
            "--dashboard-address", http,
            "--scheduler-file", str(sched_file),
            "--preload", __name__,
            *scheduler_args,
        ]  # fmt: skip
        self.scheduler = self._spawn(self.scheduler_command, self.log_dir / "scheduler.log")
        deadline = time.monotonic() + self.timeout
        while True:
            self._check_alive(self.scheduler, self.scheduler_command, self.log_dir / "scheduler.log")
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                self.address = str(json.loads(sched_file.read_text())["address"])
                break
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"ProcessCluster: the scheduler did not start within {self.timeout:g} s.\n"
                    f"command: {' '.join(self.scheduler_command)}\n"
                    f"log {self.log_dir / 'scheduler.log'} ends with:\n"
                    f"{_log_tail(self.log_dir / 'scheduler.log')}"
                )
            time.sleep(0.05)

        for i in range(self.n_workers):
            cmd = [
                *worker_cmd, self.address,
                "--name", f"worker-{i}",
                "--nworkers", "1",
                "--nthreads", str(self.threads_per_worker),
                "--no-nanny",
                "--host", self.host,
                "--no-dashboard",
                "--dashboard-address", http,
                "--local-directory", str(Path(self._workdir) / f"worker-{i}"),
                "--preload", __name__,
                *worker_args,
            ]  # fmt: skip
            self.worker_commands.append(cmd)
            self.workers.append(self._spawn(cmd, self.log_dir / f"worker-{i}.log"))
        self.wait_for_workers(self.n_workers, max(0.1, deadline - time.monotonic()))

    def _check_alive(self, proc: subprocess.Popen, cmd: list[str], log: Path) -> None:
        if proc.poll() is not None:
            raise RuntimeError(
                f"ProcessCluster: {log.stem} exited early with code {proc.returncode}.\n"
                f"command: {' '.join(cmd)}\n"
                f"log {log} ends with:\n{_log_tail(log)}"
            )

    # -- public API
    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return not self._finalizer.alive

    def worker_log(self, i: int) -> Path:
        """Path of worker ``i``'s log file."""
        self._index(i)
        return self.log_dir / f"worker-{i}.log"

    def wait_for_workers(self, n: int | None = None, timeout: float | None = None) -> int:
        """Wait until at least ``n`` workers are registered with the scheduler.

        Parameters
        ----------
        n : int, optional
            Number of workers; default: the workers started and not killed by
            :meth:`kill_worker`.
        timeout : float, optional
            Seconds; default: the cluster's ``timeout``.

        Returns
        -------
        int
            The number of workers registered.

        Raises
        ------
        RuntimeError
            If the cluster is closed, the scheduler exited, a worker exited without having been
            killed by :meth:`kill_worker` (with the tail of its log), or the time ran out.
        ValueError
            If ``n`` is not a non-negative int.
        """
        if self.closed:
            raise RuntimeError("ProcessCluster: the cluster is closed")
        if n is None:
            n = len(self.workers) - len(self._killed)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"ProcessCluster.wait_for_workers: n must be a non-negative int, got {n!r}")
        timeout = self.timeout if timeout is None else float(timeout)
        from distributed import Client

        deadline = time.monotonic() + timeout
        with Client(self.address, set_as_default=False, timeout=max(1.0, timeout)) as client:
            while True:
                assert self.scheduler is not None
                self._check_alive(self.scheduler, self.scheduler_command, self.log_dir / "scheduler.log")
                for i, (proc, cmd) in enumerate(zip(self.workers, self.worker_commands, strict=True)):
                    if i not in self._killed:
                        self._check_alive(proc, cmd, self.worker_log(i))
                count = len(client.scheduler_info(n_workers=-1)["workers"])
                if count >= n:
                    return count
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"ProcessCluster: {count} of {n} workers registered after {timeout:g} s; "
                        f"logs in {self.log_dir}"
                    )
                time.sleep(0.1)

    def kill_worker(self, i: int) -> int:
        """Kill worker process ``i`` with SIGKILL (no clean shutdown) and wait for it to end.

        The scheduler notices the closed connection and reschedules the worker's tasks on the
        other workers; the worker is not restarted (no nanny).

        Parameters
        ----------
        i : int
            Index into :attr:`workers`.

        Returns
        -------
        int
            The process's return code (``-signal.SIGKILL`` on POSIX, unless it had already
            exited).

        Notes
        -----
        What Dask does (distributed 2026.8): the scheduler sees the worker's connection close at
        once and removes the worker; the task it was running, the tasks queued on it and any
        result held only in its memory are recomputed on the remaining workers, and the
        client's futures simply complete later. A task whose workers die more than
        ``distributed.scheduler.allowed-failures`` times (default 3) is marked as failed
        (``KilledWorker``), which a sweep reports as a :class:`~dlsched.experiments.SweepError`.
        """
        proc = self.workers[self._index(i)]
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)
        self._killed.add(i)
        return proc.wait(timeout=30)

    def close(self) -> None:
        """Stop every process: workers first (SIGTERM), then the scheduler; kill stragglers.

        Waits up to 5 s per group before SIGKILL, so no process is left behind. Removes the
        cluster's temporary folder (not a ``log_dir`` that was given). Idempotent.
        """
        self._finalizer()

    def __enter__(self) -> ProcessCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{sum(p.poll() is None for p in self.workers)} workers alive"
        return f"ProcessCluster({self.address!r}, {state})"

    def _index(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.workers):
            raise ValueError(f"ProcessCluster: worker index must be in 0..{len(self.workers) - 1}, got {i!r}")
        return i


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ProcessCluster: {name} must be a positive int, got {value!r}")
    return value


def _str_list(name: str, value: Any) -> list[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ValueError(f"ProcessCluster: {name} must be a sequence of str, got {value!r}")
    if not all(isinstance(v, str) for v in value):
        raise ValueError(f"ProcessCluster: {name} must be a sequence of str, got {value!r}")
    return list(value)


def _str_mapping(name: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"ProcessCluster: {name} must be a mapping of str to str, got {value!r}")
    return dict(value)


# --------------------------------------------------------------------------- scheduler choice


@contextlib.contextmanager
def cluster_for(scheduler: Any, n_workers: int = 2, **kwargs: Any) -> Iterator[Any]:
    """Turn a notebook's scheduler setting into something :func:`~dlsched.experiments.sweep` takes.

    Parameters
    ----------
    scheduler : str or distributed.Client
        ``"processes"``: start a :class:`ProcessCluster` of ``n_workers`` workers for the
        duration of the ``with`` block and yield its address. ``"serial"``, ``"local"``, a
        scheduler address (``"tcp://host:port"``) or a ``distributed.Client``: yielded unchanged.
    n_workers : int, default 2
        Workers of the ProcessCluster (ignored otherwise).
    **kwargs
        Further :class:`ProcessCluster` parameters (ignored otherwise).

    Yields
    ------
    str or distributed.Client
        The value to pass as ``sweep(..., scheduler=...)``.

    Raises
    ------
    ValueError
        If ``scheduler`` is a str that is none of the above.

    Examples
    --------
    >>> with cluster_for("serial") as scheduler:
    ...     print(scheduler)
    serial
    """
    if isinstance(scheduler, str):
        from dlsched.experiments import _ADDRESS_RE

        if scheduler == "processes":
            with ProcessCluster(n_workers, **kwargs) as cluster:
                yield cluster.address
            return
        if scheduler not in ("serial", "local") and not _ADDRESS_RE.match(scheduler):
            raise ValueError(
                f"cluster_for: scheduler must be 'serial', 'local', 'processes', a scheduler "
                f"address such as 'tcp://127.0.0.1:8786', or a distributed.Client; got {scheduler!r}"
            )
    yield scheduler


# --------------------------------------------------------------------------- watchdog (preload)


def _watch_parent(expected: int, workdir: str | None, period: float = 0.5) -> None:
    while os.getppid() == expected:
        time.sleep(period)
    # The process that started this cluster is gone: shut down like on ``kill -TERM``; the
    # scheduler also removes the cluster's temporary folder on its way out.
    if workdir:
        atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(_GRACE_S * 2)
    os._exit(1)


def dask_setup(server: Any) -> None:
    """Dask preload hook run in each process of a :class:`ProcessCluster` (``--preload``).

    Starts a daemon thread that shuts the process down once the process that started it (pid
    in ``$DLSCHED_DASKPROCS_PARENT``) has died, so a killed notebook or test run leaves nothing
    behind; the scheduler then also removes the cluster's temporary folder
    (``$DLSCHED_DASKPROCS_WORKDIR``). Does nothing outside a ProcessCluster.
    """
    parent = os.environ.get(_PARENT_ENV, "")
    if os.name != "posix" or not parent.isdigit() or os.getppid() != int(parent):
        return
    workdir = os.environ.get(_WORKDIR_ENV) if type(server).__name__ == "Scheduler" else None
    threading.Thread(
        target=_watch_parent, args=(int(parent), workdir), name="dlsched-parent-watchdog", daemon=True
    ).start()
