"""Command line for users outside Jupyter.

``dlsched run --workload NAME --policy NAME [--param k=v ...] --seed S --out DIR``
    simulate one policy on one workload and write the instance and the results as CSV files
    (columns documented in the README glossary):

    - ``instance_servers.csv``: one row per server (pool, delay, capacity per resource);
    - ``instance_jobs.csv``: one row per job (arrival, demands, utility and model parameters);
    - ``jobs.csv``: one row per job (status, admitted, start, completion, JCT, utility, ...);
    - ``allocations.parquet``: the allocations as intervals ``job, server, role, count,
      first_slot, last_slot`` (``count`` tasks of ``role`` on ``server`` in every slot from
      ``first_slot`` to ``last_slot``, both included; a new row whenever the job's placement
      changes, see :attr:`~dlsched.core.simulator.SimulationResult.intervals`);
      ``--format csv`` writes ``allocations.csv`` instead, and ``--allocations slots`` the tidy
      per-slot table ``job, slot, server, role, count`` (one row per job, server and slot: large
      on a whole trace);
    - ``summary.json``: headline metrics, names, parameters and seed.

    A progress bar over finished jobs and simulated slots goes to stderr once a run has lasted a
    few seconds; ``--quiet`` turns it off. ``--check`` reads the allocation file back as written
    and re-checks it against the instance with the independent checker
    (:func:`~dlsched.core.schedule.check_intervals`) before moving the files into place; a
    violation (of the simulation or of the file) prints it and exits with code 1.

    ``--param`` keys may be prefixed ``workload.`` or ``policy.``; an unprefixed key goes to the
    side that declares it (an error if both or neither do). Values are Python literals when they
    parse as such (``3``, ``0.5``, ``True``, ``[1, 2]``), strings otherwise.

``dlsched reproduce [--mode quick|paper] [--fresh | --record] [--param k=v ...] [--only NN]``
    run every notebook with papermill (see :mod:`dlsched.reproduce`).

``dlsched list``
    registered policies and workloads with their parameters.

``dlsched fidelity [--write | --check]``
    the fidelity table (claims reproduced / partly / not per paper) from the notebooks' saved
    paper-mode scorecards (:mod:`dlsched.fidelity`); ``--write`` rewrites the README's generated
    block, ``--check`` exits 1 if that block is out of date.
``dlsched audit (--sample K [--seed S] | --all | --stale) [--workers N] [--store PATH]``
    check the committed results store (default ``data/results``) by recomputation (see
    :func:`dlsched.store.audit`): ``--sample K`` audits at least one point of every experiment
    function plus random others up to K (deterministic for ``--seed``, default 0), ``--all`` every
    point. One line per point, then ``N passed, M failed``; exit code 0 only if every audited point
    equals its recomputation (points with ``audit: false`` are skipped), 1 otherwise. ``--stale``
    lists the entries not served: those whose code fingerprint differs from the current code's
    (stale) and those whose parameters left their notebook (unused: from ``build/store-uses``, which
    ``make reproduce`` writes), and exits 1 if there are any. ``--workers N`` recomputes on a local
    Dask cluster of N processes.

Invalid input prints a one-line message on stderr and exits with code 2, and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from dlsched import registry
from dlsched.core.schedule import ScheduleViolation
from dlsched.reproduce import parse_param

FORMATS = ("parquet", "csv")
"""``--format`` values of the allocation file."""
ALLOCATIONS = ("intervals", "slots")
"""``--allocations`` values: intervals (default) or one row per slot."""


def output_files(fmt: str = "parquet") -> tuple[str, ...]:
    """The files ``dlsched run`` writes for allocation format ``fmt``."""
    return ("instance_servers.csv", "instance_jobs.csv", "jobs.csv", f"allocations.{fmt}", "summary.json")


OUTPUT_FILES = output_files("parquet")
"""The files of a default run (allocations as Parquet intervals)."""


class UsageError(ValueError):
    """Bad command-line input (exit code 2)."""


def split_params(pairs: Sequence[str], workload: str, policy: str) -> tuple[dict, dict]:
    """Split ``k=v`` strings into workload and policy parameters (see module docstring)."""
    wk, pk = registry.workload_parameters(workload), registry.policy_parameters(policy)
    wparams: dict[str, object] = {}
    pparams: dict[str, object] = {}
    for text in pairs:
        side, _, rest = text.partition(".") if text.split("=", 1)[0].count(".") == 1 else ("", "", text)
        if side not in ("", "workload", "policy"):
            raise UsageError(f"parameter prefix must be 'workload.' or 'policy.', got {text!r}")
        key, value = parse_param(rest)
        if side == "workload":
            wparams[key] = value
        elif side == "policy":
            pparams[key] = value
        elif key in wk and key in pk:
            raise UsageError(f"parameter {key!r} is ambiguous: prefix it with workload. or policy.")
        elif key in wk:
            wparams[key] = value
        elif key in pk:
            pparams[key] = value
        else:
            raise UsageError(
                f"unknown parameter {key!r}: workload {workload!r} takes {sorted(wk)}, "
                f"policy {policy!r} takes {sorted(pk)}"
            )
    return wparams, pparams


def _horizon_arg(text: str) -> int | str:
    """``--horizon``: an integer, or a named horizon (checked in :func:`run`)."""
    try:
        return int(text)
    except ValueError:
        return text


def run(
    workload: str,
    policy: str,
    params: Sequence[str],
    seed: int,
    out: str | os.PathLike,
    horizon: int | str | None = None,
    *,
    fmt: str = "parquet",
    allocations: str = "intervals",
    progress: bool = False,
    check: bool = False,
) -> dict:
    """Simulate and write the output files (:func:`output_files`) atomically into ``out``;
    returns the summary.

    ``fmt`` (``"parquet"`` or ``"csv"``) and ``allocations`` (``"intervals"`` or ``"slots"``)
    choose the allocation file (module docstring); ``progress`` shows a bar on stderr. ``check``
    reads the allocation file back as written and re-checks it against the instance with the
    independent checker (:func:`~dlsched.core.schedule.check_intervals`, or
    :func:`~dlsched.core.schedule.check_timeline` for ``slots``) before anything is moved into
    ``out``; the summary's ``checked`` says how many placements passed (a violation raises
    :class:`~dlsched.core.schedule.ScheduleViolation` and writes nothing). ``horizon``: the slot
    the run stops at, None (until every job is done), an integer >= 1 or ``"twice-last-arrival"``
    (:func:`dlsched.arena.experiments.simulation_horizon`: twice the last arrival slot plus one,
    for A_online on a whole trace, whose doubling rounds otherwise leave jobs waiting past slot
    :math:`2^{62}`).
    """
    from dlsched.core import metrics
    from dlsched.core.simulator import simulate

    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {list(FORMATS)}, got {fmt!r}")
    if allocations not in ALLOCATIONS:
        raise UsageError(f"--allocations must be one of {list(ALLOCATIONS)}, got {allocations!r}")

    wparams, pparams = split_params(params, workload, policy)
    wparams = {**registry.workload_defaults(policy, workload), **wparams}  # e.g. preemptive jobs
    wl = registry.make_workload(workload, seed=seed, **wparams)
    registry.check_policy(policy, wl, workload)  # a job model the policy cannot run: say so, by name
    pol = registry.make_policy(policy, wl, **pparams)
    if isinstance(horizon, str):  # a named horizon; integers go to the simulator as they are
        from dlsched.arena.experiments import SIM_HORIZONS, simulation_horizon

        if horizon not in SIM_HORIZONS:
            raise UsageError(
                f"--horizon must be an integer >= 1 or one of {list(SIM_HORIZONS)}, got {horizon!r}"
            )
        horizon = simulation_horizon(horizon, wl)
    result = simulate(wl, pol, seed=seed, horizon=horizon, progress=progress)
    summary = {
        k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.summary(result).items()
    }
    summary.update(
        {
            "workload": workload,
            "policy": policy,
            "seed": seed,
            "horizon": horizon,
            "workload_params": wparams,
            "policy_params": pparams,
            "slot_seconds": wl.cluster.slot_seconds,
            "end_slot": result.end_slot,
            "stalled": result.stalled,
            "allocations": {"file": f"allocations.{fmt}", "layout": allocations},
        }
    )
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        wl.cluster.to_frame().to_csv(tmp / "instance_servers.csv", index=False)
        wl.jobs_frame().to_csv(tmp / "instance_jobs.csv", index=False)
        result.jobs.to_csv(tmp / "jobs.csv", index=False)
        table = result.intervals if allocations == "intervals" else result.allocations
        if fmt == "csv":
            table.to_csv(tmp / "allocations.csv", index=False)
        else:
            table.to_parquet(tmp / "allocations.parquet", index=False)
        if check:
            summary["checked"] = _check_file(wl, tmp / f"allocations.{fmt}", allocations)
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
        out.mkdir(exist_ok=True)
        for name in output_files(fmt):
            os.replace(tmp / name, out / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary


def _check_file(wl, path: Path, allocations: str) -> int:
    """Re-check the allocation file ``path`` (as written) against workload ``wl``; the number of
    placements (interval stretches, or job-slot pairs for ``slots``) that passed."""
    import pandas as pd

    from dlsched.core.schedule import check_intervals, check_timeline

    table = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    if allocations == "intervals":
        return check_intervals(wl.cluster, wl.specs, table)
    check_timeline(wl.cluster, wl.specs, table)
    return int(table.groupby(["job", "slot"]).ngroups)


def _list() -> str:
    lines = ["policies:"]
    for n in registry.policy_names():
        lines.append(f"  {n}  {registry.policy_parameters(n)}")
    lines.append("workloads:")
    for n in registry.workload_names():
        lines.append(f"  {n}  {registry.workload_parameters(n)}")
    return "\n".join(lines)


def _audit(args: argparse.Namespace) -> int:
    """``dlsched audit``: validate the arguments (UsageError), then delegate to dlsched.store."""
    from dlsched import store

    if args.sample is not None and args.sample < 1:
        raise UsageError(f"--sample must be >= 1, got {args.sample}")
    if args.seed is not None and args.sample is None:
        raise UsageError("--seed only applies with --sample")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    if args.budget is not None and (args.sample is None or not args.budget > 0):
        raise UsageError(f"--budget must be > 0 and only applies with --sample, got {args.budget}")
    results = store.ResultStore(args.store)
    if not (results.path / store.MANIFEST).is_file():
        raise UsageError(f"no results store at {str(results.path)!r} ({store.MANIFEST} missing)")
    if args.stale:
        return 1 if store.stale_report(results) else 0
    seed = 0 if args.seed is None else args.seed
    budget = (AUDIT_BUDGET if args.budget is None else args.budget) if args.sample is not None else None
    if args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    report = store.audit(results, sample=args.sample, seed=seed, check_all=args.check_all, budget=budget,
                         workers=args.workers)
    return report.exit_code


def _fidelity(args: argparse.Namespace) -> int:
    """``dlsched fidelity``: print the table, or write / check the README's block."""
    from dlsched import fidelity

    if args.write:
        changed = fidelity.update_readme()
        print("README.md: fidelity block " + ("rewritten" if changed else "already up to date"))
        return 0
    if args.check:
        if fidelity.check_readme():
            print("README.md: fidelity block up to date")
            return 0
        print("README.md: fidelity block out of date; run: dlsched fidelity --write", file=sys.stderr)
        return 1
    print(fidelity.fidelity_markdown(), end="")
    return 0


#: Default bound (seconds) of ``dlsched audit --sample``'s estimated recomputation time: CI's audit
#: must finish in 3 minutes on 2 cores.
AUDIT_BUDGET = 100.0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2
        raise UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dlsched`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "reproduce":
        from dlsched import reproduce

        return reproduce.main(argv[1:])
    parser = _Parser(prog="dlsched", description="dlsched: schedulers for distributed DL training jobs.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="simulate one policy on one workload")
    p_run.add_argument("--workload", required=True)
    p_run.add_argument("--policy", required=True)
    p_run.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    p_run.add_argument("--seed", type=int, default=0)
    p_run.add_argument("--horizon", type=_horizon_arg, default=None,
                       help="stop at this slot: an integer >= 1, or twice-last-arrival (default: "
                            "run until every job is done)")
    p_run.add_argument("--out", required=True)
    p_run.add_argument("--format", choices=FORMATS, default="parquet", dest="fmt",
                       help="allocation file format (default parquet)")
    p_run.add_argument("--allocations", choices=ALLOCATIONS, default="intervals",
                       help="allocation rows: intervals (default) or one per slot")
    p_run.add_argument("--quiet", action="store_true", help="no progress bar")
    p_run.add_argument("--check", action="store_true",
                       help="re-check the allocation file as written with the independent checker")
    sub.add_parser("reproduce", help="run every notebook with papermill (see dlsched reproduce --help)")
    sub.add_parser("list", help="registered policies and workloads")
    p_fid = sub.add_parser("fidelity", help="claims reproduced per paper, from the notebooks' scorecards")
    fid_how = p_fid.add_mutually_exclusive_group()
    fid_how.add_argument("--write", action="store_true", help="rewrite the README's fidelity block")
    fid_how.add_argument("--check", action="store_true", help="exit 1 if the README's block is out of date")
    p_audit = sub.add_parser("audit", help="check the results store by recomputation")
    how = p_audit.add_mutually_exclusive_group(required=True)
    how.add_argument("--sample", type=int, metavar="K", help="one point per function, others up to K")
    how.add_argument("--all", action="store_true", dest="check_all", help="every stored point")
    how.add_argument("--stale", action="store_true", help="list entries stale for the current code")
    p_audit.add_argument("--seed", type=int, default=None, help="sample seed (default 0)")
    p_audit.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                         help=f"--sample: bound the estimated recompute time (default {AUDIT_BUDGET:g} s)")
    p_audit.add_argument("--workers", type=int, default=1, metavar="N",
                         help="recompute on a local Dask cluster of N worker processes (default 1)")
    p_audit.add_argument("--store", default=None, metavar="PATH", help="store folder (default data/results)")
    try:
        args = parser.parse_args(argv)
        if args.command == "list":
            print(_list())
            return 0
        if args.command == "audit":
            return _audit(args)
        if args.command == "fidelity":
            return _fidelity(args)
        if args.seed < 0:
            raise UsageError(f"--seed must be >= 0, got {args.seed}")
        summary = run(args.workload, args.policy, args.param, args.seed, args.out, args.horizon,
                      fmt=args.fmt, allocations=args.allocations, progress=not args.quiet,
                      check=args.check)
    except ScheduleViolation as exc:  # (a policy's bug, or --check found the file broken)
        print(f"dlsched: schedule violation: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    except (UsageError, ValueError, TypeError, FileNotFoundError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"dlsched: error: {msg}", file=sys.stderr)
        return 2
    checked = f"; {summary['checked']} placements re-checked from the file" if args.check else ""
    print(
        f"{summary['finished']}/{summary['jobs']} jobs finished, total utility "
        f"{summary['total_utility']:.4g}; wrote {', '.join(output_files(args.fmt))} to {args.out}{checked}"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
