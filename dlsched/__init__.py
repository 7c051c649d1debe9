"""dlsched: a reproducible companion to five papers on scheduling distributed deep-learning jobs.

See README.md for the quick start; ``dlsched.registry`` lists every policy and workload.
"""

__version__ = "0.1.0"
