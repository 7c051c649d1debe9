r"""Optimus: dynamic resource scheduling driven by online-fitted performance models.

Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, "Optimus: An Efficient Dynamic Resource Scheduler for
Deep Learning Clusters", EuroSys 2018, doi 10.1145/3190508.3190517. Formulas and their provenance
are in ``shared/spec/optimus.md``.

Modules:

* :mod:`dlsched.optimus.curves` -- real training-loss curves of small scikit-learn models
  (stored in ``data/loss_curves``), the data behind the convergence model (Figs. 5-7).
* :mod:`dlsched.optimus.fitting` -- Sec. 3.1 convergence model (outlier removal, normalisation,
  NNLS fit of Eq. (1), closed-form convergence epoch, online refitting) and Sec. 3.2 speed model
  (NNLS fit of Eqs. (3)/(4), noisy speed samples from the ground-truth Eq. (2)).
* :mod:`dlsched.optimus.allocation` -- Sec. 4.1 marginal-gain allocation, Eqs. (5)-(9).
* :mod:`dlsched.optimus.placement` -- Sec. 4.2 placement by Theorem 1; brute-force checks.
* :mod:`dlsched.optimus.paa` -- Sec. 5.3 parameter assignment (PAA) and the MXNet default.
* :mod:`dlsched.optimus.baselines` -- Tetris packing with Optimus's estimates.
* :mod:`dlsched.optimus.policy` -- the policies ``optimus`` and ``tetris`` of the registry.
* :mod:`dlsched.optimus.workload` -- the Sec. 6.1 workload (Table 1 job types, testbed, arrivals).
* :mod:`dlsched.optimus.checks` -- every checkable claim (spec Sec. 8) as a check function.
* :mod:`dlsched.optimus.analysis`, :mod:`dlsched.optimus.experiments` -- notebook support.

The ground-truth job model (step time of Eq. (2)) is :class:`dlsched.core.jobs.OptimusModel`.

Symbols (paper -> code):

=================================  ===========================================================
paper                              code
=================================  ===========================================================
:math:`k`, :math:`l`               ``epochs``, ``losses`` of :func:`~.fitting.fit_loss_curve`
:math:`\beta_0,\beta_1,\beta_2`    ``LossFit.beta0``, ``.beta1``, ``.beta2`` (normalised loss)
max loss so far                    ``LossFit.normalizer``
:math:`\delta` (convergence)       ``delta`` of :func:`~.fitting.remaining_epochs` (normalised)
:math:`Q_j`                        :func:`~.fitting.remaining_epochs`
:math:`p`, :math:`w`               ``p``, ``w`` (PS, workers)
:math:`f(p,w)`                     ``SpeedFit.predict(p, w)``, ``OptimusModel.speed(p, w)``
:math:`\theta_0..\theta_4`         ``SpeedFit.theta`` (Table 2's :math:`\theta_1..\theta_5`)
:math:`M`                          ``SpeedFit.M``, ``OptimusModel.batch`` (sync)
=================================  ===========================================================
"""
