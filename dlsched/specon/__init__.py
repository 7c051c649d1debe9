r"""SpeCon: speculative container scheduling for deep-learning training in Kubernetes.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307 (v1, 21 Oct 2020); IEEE Systems
Journal, doi:10.1109/JSYST.2021.3129974. Our copy is the arXiv text
(``shared/papers/004_*.txt``); the implementable reading, with every reconstructed piece marked
[R], is ``shared/spec/specon.md``. Algorithm line numbers in comments are the paper's.

Implemented here:

* :mod:`dlsched.specon.model` -- worker nodes sharing CPU among containers (spec 3.3), progress
  vs CPU share and the evaluation function from real loss curves (spec 7.2-7.4,
  :class:`~dlsched.specon.model.SpeconJob`, a :class:`dlsched.core.jobs.SpeconModel`), the
  migration pause of Figs. 2-3, and the paper's schedules (workload ``"specon"``, Figs. 5-7, 12,
  Table III).
* :mod:`dlsched.specon.policy` -- Algorithm 1 (Container Monitor), Algorithm 2 (Speculative
  Scheduling), Algorithm 3 (Rebalance) and the DS baseline (``k8s_default``); Algorithm 1's tick
  and Algorithm 2's choice are also pure functions (``categorise``, ``speculative_target``) that
  the testbed reuses.
* :mod:`dlsched.specon.checks` -- the spec's section 8 as check functions (notebook 51).
* :mod:`dlsched.specon.experiments` -- Sec. VI: DS and SpeCon on the paper's schedules, the
  paper's numbers beside ours (Figs. 5-12, Table III; notebook 52).
* :mod:`dlsched.specon.readings` -- which reading restores the claim (issue 22): the alternative
  readings side by side at paper scale and the first-come-first-served ceiling (notebook 52).
* :mod:`dlsched.specon.explain` -- helpers of notebook 50 (sharing table, Fig. 1 statistic).
* :mod:`dlsched.specon.testbed` (+ ``testbed_job``) -- the same algorithms on real training
  processes pinned to disjoint CPU sets, migrating through ``.npz`` checkpoints.

Symbols (paper -> code):

================================  ==============================================================
paper                             code
================================  ==============================================================
:math:`w_i \in W`, :math:`|W|`    servers ``Worker-1..n`` of the workload's ``Cluster``
                                  (:func:`~dlsched.specon.model.make_cluster`)
:math:`c_j` (one job)             a ``JobSpec`` whose placement is one worker on one server
16 cores, 64 GB per worker        ``cores``, ``mem_gb`` (resources ``cpu``, ``mem``)
:math:`C^{use}` (80 % of cores)   ``cpu_usable`` x ``cores`` (``SpeconModel.cpu_usable``)
:math:`s_j` (CPU share)           ``SpeconModel.cores(spec, placement, ctx)``
:math:`\kappa` (cap reading)      ``cpu_cap`` with ``cpu_sharing="cap"``
:math:`S_k`, :math:`x_j`          ``SpeconJob.work`` (steps), ``work_done``
:math:`\tau_j`, :math:`g`         ``SpeconJob.solo_seconds`` (``calibrate_solo_seconds``),
                                  ``SpeconJob.g`` (``progress``)
:math:`L_k`                       ``curve_losses(SpeconJob.curve)``; types: ``TYPE_CURVES``
:math:`E_{w_i,c_j}(t)`            ``SpeconJob.evaluation(work_done)`` (``eval_window`` steps)
:math:`E_{first}`                 ``SpeconJob.first_value``
save + restore pause :math:`p`    ``SpeconJob.migration_pause`` (``switch_pause``), 5 s
launch times                      ``JobSpec.arrival`` (slots of 0.1 s), ``submit_time`` (s)
================================  ==============================================================
"""
