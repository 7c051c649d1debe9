"""Public capacities of cloud instance types, shared by the wings' workloads.

The OASiS paper (Sec. V-A) names EC2 instance families for its servers but no numbers; PD-ORS
gives no machine capacities at all. Both wings take capacities from this one table of the public
AWS instance-type pages (GPUs, vCPUs, memory in GiB used as GB; the instances are EBS-only, so
local storage is a workload parameter). ``network_gbps`` is AWS's "network performance" class of
the instance (the "up to" classes are given at their ceiling).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

EC2_INSTANCES: Mapping[str, Mapping[str, float]] = MappingProxyType(
    {
        "p2.xlarge": {"gpu": 1, "cpu": 4, "mem": 61},
        "p2.8xlarge": {"gpu": 8, "cpu": 32, "mem": 488},
        "p2.16xlarge": {"gpu": 16, "cpu": 64, "mem": 732},
        "g3.4xlarge": {"gpu": 1, "cpu": 16, "mem": 122},
        "g3.8xlarge": {"gpu": 2, "cpu": 32, "mem": 244},
        "g3.16xlarge": {"gpu": 4, "cpu": 64, "mem": 488},
        "p3.2xlarge": {"gpu": 1, "cpu": 8, "mem": 61},
        "p3.8xlarge": {"gpu": 4, "cpu": 32, "mem": 244},
        "p3.16xlarge": {"gpu": 8, "cpu": 64, "mem": 488},
        "c4.8xlarge": {"gpu": 0, "cpu": 36, "mem": 60},
    }
)
"""GPUs, vCPUs and memory (GiB, used as GB) of EC2 instances (public AWS instance-type tables;
P2 launched 2016, G3 2017, P3 2017, C4 2015)."""

EC2_NETWORK_GBPS: Mapping[str, float] = MappingProxyType(
    {
        "p2.xlarge": 1.0,  # "High"
        "p2.8xlarge": 10.0,
        "p2.16xlarge": 25.0,
        "g3.4xlarge": 10.0,  # "Up to 10 Gigabit"
        "g3.8xlarge": 10.0,
        "g3.16xlarge": 25.0,
        "p3.2xlarge": 10.0,  # "Up to 10 Gigabit"
        "p3.8xlarge": 10.0,
        "p3.16xlarge": 25.0,
        "c4.8xlarge": 10.0,
    }
)
"""AWS "network performance" of the instances of :data:`EC2_INSTANCES`, Gbps."""

PCIE3_X16_GBPS: float = 126.0
"""Nominal bandwidth of a PCIe 3.0 x16 link, 15.75 GB/s = 126 Gbps (PCI-SIG): the bus between
the GPUs and the host of the P2/P3 instances, our reading of PD-ORS's internal bandwidth."""
