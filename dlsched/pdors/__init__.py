r"""PD-ORS: Primal-Dual Online Resource Scheduling with co-located workers and PS.

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE Transactions on Network Science and Engineering (2021/2022);
arXiv:2108.02917. Our copy is a summary that keeps the formulas and Algorithms 1-4; the
implementable math, with every reconstructed piece marked [R], is ``shared/spec/pdors.md``. Step
numbers in comments are the paper's.

Implemented here:

* :mod:`dlsched.pdors.model` -- the numerical-results workload (registered as ``"pdors"``); the
  job model is :class:`dlsched.core.jobs.PdorsModel` (Sec. 2, (3)-(7), Fact 1).
* :mod:`dlsched.pdors.policy` -- price function (12)-(14), Algorithm 1 (admission, irrevocable
  schedules, price updates), Algorithm 2 (completion slots), Algorithm 3 (DP (21) over quantised
  work), Algorithm 4 (internal branch, LP relaxation + (26') with HiGHS, :math:`G_\delta` scaling,
  randomized rounding (27)-(28)); policies ``pdors`` and ``pdors_nocoloc`` (ablation).
* :mod:`dlsched.pdors.baselines` -- OASiS on the same machines split into worker and PS machines
  (``oasis_split``); FIFO, DRF and Dorm run unchanged on the one pool.
* :mod:`dlsched.pdors.offline` -- the offline problem (DMLRS) as a time-indexed MILP (HiGHS).
* :mod:`dlsched.pdors.checks` -- the spec's section 7 properties as check functions.
* :mod:`dlsched.pdors.experiments` -- Figs. 6-10 as sweepable experiments.

Symbols (paper -> code):

========================  ============================================================
paper                     code
========================  ============================================================
:math:`a_i`               ``JobSpec.arrival`` (0-based slots)
:math:`\tilde t_i`        ``completion_slot`` / ``planned_completion``
:math:`H`                 machines of the one pool (``Cluster.homogeneous`` / ``pdors_workload``)
:math:`C_h^r`             ``cluster.capacity``
:math:`\alpha_i^r,\beta_i^r`  ``JobSpec.worker_demand``, ``JobSpec.ps_demand``
:math:`E_i, K_i, F_i`     ``PdorsModel.epochs``, ``.samples``, ``.batch``
:math:`\tau_i`            ``PdorsModel.tau`` (slots per sample)
:math:`2g_i/b^{(i)}`      ``PdorsModel.sync_internal`` (slots); :math:`2g_i/b^{(e)}`: ``.sync_external``
:math:`\gamma_i`          ``PdorsModel.ratio``
:math:`u_i`               ``JobSpec.utility`` (``Sigmoid(theta1, theta2, theta3)``)
:math:`w_{ih}[t], s_{ih}[t]`  ``Placement.workers``, ``Placement.ps``
:math:`\rho_h^r[t]`       ``PDORS.rho``; prices :math:`p_h^r[t]`: ``PDORS.p``
:math:`U^r, L, \mu`       ``PdorsPrices.upper``, ``.lower``, ``.mu``
:math:`\lambda_i`         ``payoff`` column of the result's job table
:math:`V_i = E_iK_i`      ``PdorsModel.total_work``; DP unit ``q``: ``PdorsSchedule.unit_samples``
:math:`\delta, G_\delta, S`  ``PDORS.delta``, :func:`dlsched.pdors.policy.g_delta`, ``PDORS.trials``
========================  ============================================================
"""
