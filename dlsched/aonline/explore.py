"""A_online explorer: the prices (7)-(8) of a round and what they charge a job.

Notebook ``40_aonline_model`` displays :func:`round_prices` (see :mod:`dlsched.explore`).
"""

from __future__ import annotations

from dlsched import plotting
from dlsched.aonline import explain
from dlsched.aonline.policy import AOnlinePrices
from dlsched.explore import Control, Explorer

__all__ = ["round_prices"]


def round_prices(S: int, U: int, V: int, *, T: int = 1024, max_slots: int = 64) -> Explorer:
    """Sliders over the price functions (7)-(8) of A_maxsche within one round.

    Parameters
    ----------
    S, U, V : int
        Servers, worker types and PS types (:math:`\\theta_1 = 2TSUF_1+1`, :math:`\\theta_2 =
        2TSVF_2+1`, :math:`F_1 = F_2 = 1`).
    T : int, default 1024
        Default horizon :math:`T` (slider ``log2_T``: ``T = 2**log2_T``).
    max_slots : int, default 64
        Largest schedule length ``d`` on its slider.

    Controls: ``log2_T``; ``used`` (the share :math:`f/W` of a (server, type)'s slots already
    allocated in this round); ``d`` (slots a new worker would hold there). Both readings of (7)
    are drawn (corrected [R] and literal).

    Readout: :math:`\\theta_1`, the unit price :math:`\\lambda(f)` (corrected), the cost (9) of one
    worker held ``d`` slots at that price, and the payoff :math:`\\eta = 1 - \\text{cost}` of a job
    of weight 1 that needs only it (A_maxsche admits iff :math:`\\eta > 0`, Alg. 2 line 10).
    """
    log2_default = max(3, min(12, int(T).bit_length() - 1))

    def render(log2_T: int, used: float, d: int):
        horizon = 2 ** int(log2_T)
        prices = {r: AOnlinePrices.of(horizon, S, U, V, reading=r) for r in ("corrected", "literal")}
        curve = explain.price_curve(prices)
        fig, ax = plotting.subplots(1, 1, figsize=(7.5, 3.8))
        plotting.draw("lineplot", curve, x="utilisation", y="price", hue="function", style="prices", ax=ax)
        ax.axvline(used, color="tab:red", linestyle=":")
        ax.set(yscale="symlog", xlabel="share of the type's slots in use f/W", ylabel="unit price (symlog)",
               title=f"prices (7)-(8), T = {horizon}, S = {S}, U = {U}, V = {V}")
        unit = float(prices["corrected"].worker(used, 1.0))
        cost = d * unit
        text = (f"T = {horizon}: theta1 = {prices['corrected'].theta1:.4g}; at f/W = {used:.2f} lambda = "
                f"{unit:.4g}; one worker for {d} slots costs {cost:.4g}, payoff eta = {1 - cost:.4g} -> "
                + ("admitted" if 1 - cost > 0 else "rejected"))
        return fig, text

    controls = [
        Control("log2_T", "log2 T", 3, 14, 1, log2_default, integer=True),
        Control("used", "f/W in use", 0.0, 1.0, 0.01, 0.05),
        Control("d", "slots d", 1, max_slots, 1, 8, integer=True),
    ]
    return Explorer("A_online: the prices of one round (7)-(8)", controls, render)
