r"""A_online: online scheduling of ML jobs in edge-cloud networks.

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", 2021 International Conference on Networking and Network Applications (NaNA 2021),
DOI 10.1109/NaNA53684.2021.00031. Our copy is a complete text extraction (Algorithms 1-4 included);
the implementable math, with the garbled price formula's corrected reading [R] and the pseudo-code
typos [T] marked, is ``shared/spec/aonline.md``. Equation and line numbers in comments are the
paper's.

Different from the other wings: the objective is total (weighted) completion time (2), not
utility; an admitted job's allocation is fixed from start to completion ((2c)-(2d): no elasticity,
no preemption); a job may use a server only after its data has arrived there ((2i): transfer delay
:math:`\Delta_{js}`, 1-4 slots to an edge server, 10-40 to the cloud).

Implemented here:

* :mod:`dlsched.aonline.model` -- the edge-cloud system (edge servers + one cloud, worker / PS
  types as per-server slot resources ``w<u>`` / ``ps<v>``), job construction from the paper's
  units, Eq. (1) durations, the instance arrays, and the Sec. VI workload (registered as
  ``"aonline"``; Philly GPUs per edge server, or a documented stand-in). The job model is
  :class:`dlsched.core.jobs.AOnlineModel` (Eq. (1), (2a)-(2f)).
* :mod:`dlsched.aonline.policy` -- A_online (Alg. 1, time points :math:`\tau_i = 2^{i-1}`),
  A_maxsche (Alg. 2), COST_C (Alg. 3), COST_D (Alg. 4), prices (7)-(8) (registered ``"aonline"``).
* :mod:`dlsched.aonline.baselines` -- BatchSche and Preemptive (``"batchsche"``,
  ``"preemptive"``); FIFO and DRF are the shared ones (:mod:`dlsched.baselines`).
* :mod:`dlsched.aonline.offline` -- the offline optimum of (2)-(2l) as a MILP (HiGHS).
* :mod:`dlsched.aonline.checks` -- spec section 11 as check functions (notebook 41).
* :mod:`dlsched.aonline.experiments` / :mod:`dlsched.aonline.explain` -- Figs. 3-14 (notebook 42)
  and the model notebook's tables (notebook 40).
* :mod:`dlsched.aonline.readings` -- which reading restores the claim: Figs. 3-4 and 7-14 under
  the spec's default and each alternative reading, with Fig. 14's ceiling (notebook 42).

Symbols (paper -> code):

==============================  =================================================================
paper                           code
==============================  =================================================================
:math:`S` (edge + cloud)        ``cluster.n_servers``; pools ``"edge"`` and ``"cloud"`` (last)
:math:`U, V`                    :func:`~dlsched.aonline.model.type_counts`; ``params["U"]``, ``["V"]``
:math:`W_{su}`, :math:`P_{sv}`  capacity of resources ``"w<u>"`` / ``"ps<v>"``
                                (:func:`~dlsched.aonline.model.worker_slots`, ``ps_slots``)
:math:`u_j, v_j`                the resources of ``JobSpec.worker_demand`` / ``ps_demand``, one
                                slot each (:func:`~dlsched.aonline.model.job_types`)
:math:`a_j`                     ``JobSpec.arrival`` (0-based slots)
:math:`h_j, c_j`                ``start_slot``, ``completion_slot`` of the result's job table
:math:`E_j, D_j, M_j`           ``AOnlineModel.epochs``, ``.chunks`` (= ``max_workers``),
                                ``.minibatches``; :math:`E_jD_jM_j` = ``.total_work``
:math:`n_j, H_j, 2k_j/B_j`      ``AOnlineModel.compute``, ``.update``, ``.comm`` (slots)
:math:`p_j` (1)                 ``AOnlineModel.speed(colocated)``; :math:`\xi_j` =
                                ``Placement.colocated``
:math:`d_j`                     :func:`~dlsched.aonline.model.duration_slots`
:math:`w_j` (weights)           ``AOnlineModel.weight``
:math:`\Delta_{js}`             ``JobSpec.transfer_delay[s]`` (``JobSpec.delays(cluster)``)
:math:`y_{jsu_j}(t)`            ``Placement.workers`` (server, count) of job ``j`` at slot ``t``
:math:`z_{jsv_j}(t)`            ``Placement.ps`` (exactly one PS, (2b))
(2c)-(2d)                       ``AOnlineModel.elastic`` / ``.preemptible`` False;
                                violation ``fixed_allocation``
(2g)-(2h), (2i)                 checker violations ``capacity``, ``transfer_delay``
:math:`T`                       ``workload.params["T"]``
:math:`\tau_i`                  :func:`~dlsched.aonline.policy.time_point`
:math:`\lambda_{su}, \mu_{sv}`  :func:`~dlsched.aonline.policy.price` ((7)-(8), ``price_reading``)
:math:`\theta_1, \theta_2`      :func:`~dlsched.aonline.policy.theta`; ``AOnline.theta1`` / ``.theta2``
:math:`F_1, F_2`                ``AOnline.F1`` / ``.F2``
:math:`\eta_j`                  job-table column ``eta`` (payoff :math:`w_j` - cost (9))
==============================  =================================================================
"""
