"""Benchmark: the SpeCon real-process testbed, DS vs SpeCon measured and predicted.

Runs :func:`dlsched.specon.testbed.compare` on the default job mix (8 NumPy training processes,
each 20-40 s alone on one CPU, launched every 5 s on 2 nodes of 1 CPU; alpha 0.01, interval 3 s,
weights 2/1.5/1): a solo calibration, a DS run, a SpeCon run (a few minutes each), and the
simulator's prediction for the same jobs. Prints per-job completion times (DS / SpeCon measured
and predicted), mean completion, makespan, moves, and the measured migration pauses (mean, sd,
max; save and restore parts) against the paper's "all less than 5 seconds", sd 1.43 s (Fig. 2).
The paper gives no testbed of this size: the numbers characterise this machine.

Run: ``.venv/bin/python benchmarks/bench_specon_testbed.py [--quick] [--seed S] [--keep DIR]
[--ds-repeat]`` (``--quick``: 4 jobs of 4-6 s, launches every 1 s, interval 0.75 s; about 30 s in
all; ``--ds-repeat``: a second DS run, to see how much two identical runs differ). The full run
takes about 5 minutes (plus 2.5 with ``--ds-repeat``).
Other load on the machine disturbs the timings: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from dlsched.specon import testbed as tb


def _fmt(x: float, w: int = 8, d: int = 1) -> str:
    return f"{x:>{w}.{d}f}" if isinstance(x, (int, float)) and math.isfinite(x) else f"{'-':>{w}}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="4 short jobs (~30 s in all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=None, help="number of jobs (default 8, quick 4)")
    ap.add_argument("--alpha", type=float, default=None)
    ap.add_argument("--interval", type=float, default=None)
    ap.add_argument("--keep", default=None, help="keep logs and checkpoints in this folder")
    ap.add_argument("--ds-repeat", action="store_true", help="run DS again: run-to-run noise")
    args = ap.parse_args()

    if args.quick:
        n = args.jobs or 4
        jobs = tb.default_jobs(n, args.seed, solo_seconds=(4.0, 6.0), epochs=40)
        kw = {"launch_interval": 1.0, "interval": 0.75, "alpha": 0.01, "timeout": 120.0}
    else:
        n = args.jobs or 8
        jobs = tb.default_jobs(n, args.seed)
        kw = {"launch_interval": tb.DEFAULT_LAUNCH_INTERVAL, "interval": tb.DEFAULT_INTERVAL,
              "alpha": tb.DEFAULT_ALPHA, "timeout": 900.0}  # fmt: skip
    if args.alpha is not None:
        kw["alpha"] = args.alpha
    if args.interval is not None:
        kw["interval"] = args.interval
    cpus = tb.node_cpus(2)
    print(f"SpeCon testbed: {n} jobs on 2 nodes {list(cpus)} (CPUs {list(tb.available_cpus())}), "
          f"alpha {kw['alpha']:g}, interval {kw['interval']:g} s, "
          f"launches every {kw['launch_interval']:g} s, "
          f"seed {args.seed}{' (quick)' if args.quick else ''}")  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    t0 = time.monotonic()
    r = tb.compare(jobs, seed=args.seed, workdir=args.keep, keep=args.keep is not None, **kw)
    wall = time.monotonic() - t0
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"wall time: {wall:.1f} s (calibration + DS run {r.ds.wall_seconds:.1f} s + SpeCon run "
          f"{r.specon.wall_seconds:.1f} s + prediction)")  # fmt: skip
    print(f"loss sequences identical in DS and SpeCon: {r.losses_identical}")
    for run in (r.ds, r.specon):
        c = run.cpu
        print(f"CPU seconds during the {run.policy} run: capacity {c['capacity_s']:.1f}, "
              f"busy {c['busy_s']:.1f} "
              f"(jobs {c['jobs_s']:.1f}, monitor {c['monitor_s']:.1f}, other processes {c['other_s']:.1f}), "
              f"stolen by the hypervisor {c['steal_s']:.1f}")  # fmt: skip
        if c["other_s"] > 0.03 * c["capacity_s"]:
            share = 100 * c["other_s"] / c["capacity_s"]
            print(f"WARNING: other programs used {share:.0f} % of the CPUs during the {run.policy} run: "
                  "its timings are disturbed")  # fmt: skip

    solo = float(r.calibration["solo_s"].sum())
    for run in (r.ds, r.specon):
        extra = 100 * (run.cpu["jobs_s"] - solo) / solo
        print(f"job CPU seconds in the {run.policy} run {run.cpu['jobs_s']:.1f} vs the calibrated solo total "
              f"{solo:.1f} ({extra:+.1f} %: time-slicing cost, not in the simulator's rule)")  # fmt: skip

    print("\nsolo calibration (each job alone on its node, the other node busy):")
    print(f"{'job':<22} {'repeat':>6} {'startup s':>9} {'epoch s':>8} {'solo s':>7} {'target s':>8}")
    for row in r.calibration.itertuples():
        print(f"{row.job:<22} {row.repeat:>6} {_fmt(row.startup_s, 9, 3)} {_fmt(row.epoch_s, 8, 3)} "
              f"{_fmt(row.solo_s, 7)} {_fmt(row.target_s, 8)}")  # fmt: skip

    print("\ncompletion times (s): measured vs simulator prediction")
    print(f"{'job':<22} {'launch':>6} {'DS node':>7} {'DS meas':>8} {'DS pred':>8} {'SpeCon nodes':>12} "
          f"{'SC meas':>8} {'SC pred':>8} {'pred nodes':>10} {'pause s':>8}")  # fmt: skip
    for row in r.table.itertuples():
        print(f"{row.job:<22} {row.launch:>6.1f} {row.ds_node:>7} "
              f"{_fmt(row.ds_measured)} {_fmt(row.ds_predicted)} "
              f"{row.specon_nodes:>12} {_fmt(row.specon_measured)} {_fmt(row.specon_predicted)} "
              f"{row.specon_nodes_predicted:>10} {_fmt(row.pause_s, 8, 2)}")  # fmt: skip
    err_ds = (r.table["ds_predicted"] - r.table["ds_measured"]) / r.table["ds_measured"]
    err_sc = (r.table["specon_predicted"] - r.table["specon_measured"]) / r.table["specon_measured"]
    print(f"prediction error per job: DS mean {100 * err_ds.mean():+.1f} % "
          f"(|.| {100 * err_ds.abs().mean():.1f} %), "
          f"SpeCon mean {100 * err_sc.mean():+.1f} % (|.| {100 * err_sc.abs().mean():.1f} %)")  # fmt: skip

    print("\nper run:")
    print(f"{'policy':<7} {'source':<10} {'mean completion s':>17} {'makespan s':>10} {'moves':>5}")
    for (pol, src), row in r.summary.iterrows():
        print(f"{pol:<7} {src:<10} {row['mean_completion']:>17.1f} {row['makespan']:>10.1f} "
              f"{int(row['moves']):>5}")  # fmt: skip
    s = r.summary
    for src in ("measured", "predicted"):
        a, b = s.loc[("ds", src), "mean_completion"], s.loc[("specon", src), "mean_completion"]
        ma, mb = s.loc[("ds", src), "makespan"], s.loc[("specon", src), "makespan"]
        print(f"SpeCon vs DS ({src}): mean completion {100 * (a - b) / a:+.1f} %, makespan "
              f"{100 * (ma - mb) / ma:+.1f} % (positive = SpeCon better)")  # fmt: skip
    faster = int((r.table["specon_measured"] < r.table["ds_measured"]).sum())
    print(f"jobs faster under SpeCon (measured): {faster}/{len(r.table)}")

    p = r.pauses
    print("\nmigration pauses (measured; pause = save + restore, the time a moved job trains nowhere):")
    print(f"moves {int(p['n'])}: pause mean {_fmt(p['mean_s'], 0, 3)} s, sd {_fmt(p['sd_s'], 0, 3)} s, "
          f"max {_fmt(p['max_s'], 0, 3)} s; save mean {_fmt(p['save_mean_s'], 0, 3)} s, restore mean "
          f"{_fmt(p['restore_mean_s'], 0, 3)} s; wait for the step in progress "
          f"{_fmt(p['wait_mean_s'], 0, 3)} s; "
          f"request to resumed {_fmt(p['request_to_resume_mean_s'], 0, 3)} s")  # fmt: skip
    print(f"paper (Fig. 2, l. 65): all < {p['paper_bound_s']:g} s, sd {p['paper_sd_s']:g} s; "
          "simulator default "
          f"migration_pause 5 s; prediction used {p['prediction_pause_s']:.3f} s")  # fmt: skip
    m = r.specon.migrations
    if len(m):
        print(f"{'job':<22} {'from':>4} {'to':>3} {'epoch':>5} {'request':>8} {'wait s':>7} {'save s':>7} "
              f"{'restore s':>9} {'load s':>7} {'pause s':>7}")  # fmt: skip
        for _, row in m.iterrows():
            print(f"{row['job']:<22} {row['from']:>4} {row['to']:>3} {row['epoch']:>5} "
                  f"{row['request']:>8.1f} {row['wait_s']:>7.3f} {row['save_s']:>7.3f} "
                  f"{row['restore_s']:>9.3f} {row['load_s']:>7.3f} "
                  f"{row['pause_s']:>7.3f}")  # fmt: skip
    ev = r.specon.events
    alg2 = ev[ev["event"].isin(["stay", "request"])]
    if len(alg2):
        print("\nAlgorithm 2 answers (measured run): time, job, node, scores, decision")
        for row in alg2.itertuples():
            sc = tuple(float(x) for x in np.round(row.scores, 2))
            print(f"  {row.time:7.1f}  {row.job:<22} {int(row.node_from)} scores {sc} "
                  f"-> {row.event} {int(row.node_to)}")  # fmt: skip
    if args.ds_repeat:
        t1 = time.monotonic()
        ds2 = tb.run_policy(r.jobs, "ds", launches=r.params["launches"], timeout=kw["timeout"])
        d = ds2.jobs.set_index("job")["completion"] - r.ds.jobs.set_index("job")["completion"]
        print(f"\nDS again ({time.monotonic() - t1:.1f} s): mean completion {ds2.mean_completion:.1f} s "
              f"(first run {r.ds.mean_completion:.1f}), makespan {ds2.makespan:.1f} s "
              f"(first {r.ds.makespan:.1f}); per job |difference| mean {d.abs().mean():.1f} s, "
              f"max {d.abs().max():.1f} s; other processes {ds2.cpu['other_s']:.1f} CPU s of "
              f"{ds2.cpu['capacity_s']:.1f}")  # fmt: skip
    if r.workdir is not None:
        print(f"\nlogs kept in {r.workdir}")


if __name__ == "__main__":
    main()
