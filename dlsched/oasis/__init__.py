r"""OASiS: Online Algorithm for Scheduling ML jobs.

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018, pp. 495-503; arXiv:1801.00936 (long version with Appendices A-E). The formulas
and their provenance are in ``shared/spec/oasis.md``; algorithm line numbers are the PDF's.

Implemented here:

* :mod:`dlsched.oasis.model` -- the Sec. V-A simulation workload and the Sec. V-B testbed setting;
  the job model itself is :class:`dlsched.core.jobs.OasisModel` (Sec. III-B, constraints (2)-(7)).
* :mod:`dlsched.oasis.policy` -- price functions (22)-(26), Algorithm 1 (admission, irrevocable
  plans, price updates) and Algorithm 2 (enumerate completion slots, DP_COST, greedy COST_t).
* :mod:`dlsched.oasis.offline` -- the offline problem (1)-(13) as a MILP (HiGHS via scipy).
* :mod:`dlsched.oasis.baselines` -- RRH (Irwin et al., HPDC'04) and Dorm (Sun et al.,
  SmartComp'17) in OASiS's model; FIFO and DRF come from :mod:`dlsched.baselines`.
* :mod:`dlsched.oasis.checks` -- Theorems 1-4, Lemma 3 and Appendix A as check functions.

Symbols (paper -> code):

=====================  ==========================================================
paper                  code
=====================  ==========================================================
:math:`a_i`            ``JobSpec.arrival`` (slots are 0-based here, 1-based in the paper)
:math:`\hat t_i`       ``completion_slot`` / ``planned_completion``
:math:`H, K`           worker / PS servers: ``Cluster.two_pools(H, K, ...)``
:math:`c_h^r, c_k^r`   ``cluster.capacity``
:math:`w_i^r, s_i^r`   ``JobSpec.worker_demand``, ``JobSpec.ps_demand``
:math:`b_i, B_i`       ``OasisModel.worker_bw``, ``OasisModel.ps_bw``
:math:`N_i,M_i,E_i`    ``OasisModel.chunks``, ``.minibatches``, ``.epochs``
:math:`\tau_i`         ``OasisModel.tau`` (slots)
:math:`e_i/b_i`        ``OasisModel.comm`` (slots)
:math:`f_i`            ``JobSpec.utility`` (:class:`dlsched.core.jobs.Sigmoid`)
:math:`y_{ih}(t)`      workers of job i on server h in slot t (``Placement.workers``)
:math:`z_{ik}(t)`      PS of job i on server k in slot t (``Placement.ps``)
:math:`g_h^r(t)`       ``OASiS.g`` (allocated, per slot/server/resource)
:math:`p_h^r, q_k^r`   prices ``OASiS.prices(...)``
:math:`U_1^r,U_2^r`    ``PriceParameters.u1``, ``.u2``
:math:`L_1, L_2`       ``PriceParameters.l1``, ``.l2``
:math:`\eta_1,\eta_2`  ``PriceParameters.eta1``, ``.eta2``
:math:`\mu_i`          ``payoff`` column of the result's job table
=====================  ==========================================================
"""
