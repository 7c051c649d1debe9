"""Tests of dlsched.core.cluster: servers, pools, constructors, read-only arrays and validation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.core.cluster import POOLS, Cluster, Server

# --------------------------------------------------------------------------------- constructors


def test_homogeneous_builds_identical_unified_servers():
    c = Cluster.homogeneous(3, {"gpu": 4, "cpu": 8})
    assert c.n_servers == 3
    assert [s.name for s in c.servers] == ["s0", "s1", "s2"]
    assert c.pools == ("unified",) * 3
    assert c.resources == ("gpu", "cpu")
    np.testing.assert_array_equal(c.capacity, [[4, 8], [4, 8], [4, 8]])
    np.testing.assert_array_equal(c.transfer_delay, [0, 0, 0])
    assert c.slot_seconds == 3600.0
    # a unified pool hosts both roles
    np.testing.assert_array_equal(c.servers_for("worker"), [0, 1, 2])
    np.testing.assert_array_equal(c.servers_for("ps"), [0, 1, 2])
    np.testing.assert_array_equal(c.total_capacity(), [12, 24])


def test_homogeneous_prefix_pool_and_slot_length():
    c = Cluster.homogeneous(2, {"gpu": 1}, pool="edge", prefix="n", slot_seconds=60)
    assert [s.name for s in c.servers] == ["n0", "n1"]
    assert c.pools == ("edge", "edge")
    assert c.slot_seconds == 60.0


def test_two_pools_splits_roles_and_fills_missing_resources_with_zero():
    c = Cluster.two_pools(2, 1, {"gpu": 4, "cpu": 8}, {"cpu": 16, "bw": 10})
    assert [s.name for s in c.servers] == ["w0", "w1", "p0"]
    assert c.pools == ("worker", "worker", "ps")
    assert c.resources == ("gpu", "cpu", "bw")
    # the PS server has no GPU; the worker servers have no bandwidth entry -> 0
    np.testing.assert_array_equal(c.capacity, [[4, 8, 0], [4, 8, 0], [0, 16, 10]])
    np.testing.assert_array_equal(c.servers_for("worker"), [0, 1])
    np.testing.assert_array_equal(c.servers_for("ps"), [2])
    # per-role totals: workers 2 x (4, 8, 0); PS 1 x (0, 16, 10)
    np.testing.assert_array_equal(c.total_capacity("worker"), [8, 16, 0])
    np.testing.assert_array_equal(c.total_capacity("ps"), [0, 16, 10])


def test_two_pools_accepts_one_capacity_per_server():
    c = Cluster.two_pools(2, 1, [{"gpu": 1}, {"gpu": 3}], [{"cpu": 5}])
    np.testing.assert_array_equal(c.capacity, [[1, 0], [3, 0], [0, 5]])


def test_edge_cloud_pools_and_delays():
    c = Cluster.edge_cloud(
        [{"w": 2, "p": 1}, {"w": 3, "p": 1}], {"w": 10, "p": 5}, edge_delay=[1, 2], cloud_delay=5
    )
    assert [s.name for s in c.servers] == ["edge0", "edge1", "cloud"]
    assert c.pools == ("edge", "edge", "cloud")
    np.testing.assert_array_equal(c.transfer_delay, [1, 2, 5])
    np.testing.assert_array_equal(c.capacity, [[2, 1], [3, 1], [10, 5]])
    # edge and cloud servers host both roles
    np.testing.assert_array_equal(c.servers_for("worker"), [0, 1, 2])
    np.testing.assert_array_equal(c.servers_for("ps"), [0, 1, 2])


def test_edge_cloud_scalar_edge_delay_applies_to_every_edge_server():
    c = Cluster.edge_cloud([{"w": 1}] * 3, {"w": 4}, edge_delay=2.5)
    np.testing.assert_array_equal(c.transfer_delay, [2.5, 2.5, 2.5, 10.0])


@pytest.mark.parametrize(
    ("pool", "worker", "ps"),
    [
        ("worker", True, False),
        ("ps", False, True),
        ("unified", True, True),
        ("edge", True, True),
        ("cloud", True, True),
    ],
)
def test_servers_for_each_pool(pool, worker, ps):
    c = Cluster((Server("x", pool, {"gpu": 1}), Server("u", "unified", {"gpu": 1})))
    assert (0 in c.servers_for("worker").tolist()) is worker
    assert (0 in c.servers_for("ps").tolist()) is ps
    assert set(POOLS) == {"worker", "ps", "unified", "edge", "cloud"}


def test_servers_for_unknown_role():
    c = Cluster.homogeneous(1, {"gpu": 1})
    with pytest.raises(ValueError, match=r"role must be 'worker' or 'ps', got 'chief'"):
        c.servers_for("chief")


def test_explicit_resource_order_and_missing_resource_is_zero():
    c = Cluster(
        (Server("a", "unified", {"gpu": 2}), Server("b", "unified", {"cpu": 3})),
        resources=("cpu", "gpu"),
    )
    assert c.resources == ("cpu", "gpu")
    np.testing.assert_array_equal(c.capacity, [[0, 2], [3, 0]])
    assert c.resource_index("gpu") == 1


# ------------------------------------------------------------------------------ read-only data


def test_capacity_delay_and_hard_arrays_are_read_only():
    c = Cluster.homogeneous(2, {"gpu": 4, "cpu": 8}, compressible=("cpu",))
    for arr in (c.capacity, c.transfer_delay, c.hard):
        assert not arr.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 0
    with pytest.raises(TypeError):
        c.servers[0].capacity["gpu"] = 100  # mapping proxy
    with pytest.raises(AttributeError):
        c.slot_seconds = 1.0  # frozen dataclass


def test_server_capacity_is_copied_from_the_callers_dict():
    cap = {"gpu": 4}
    s = Server("a", "unified", cap)
    cap["gpu"] = 99
    assert s.capacity["gpu"] == 4.0


def test_to_frame_columns_and_values():
    c = Cluster.edge_cloud([{"w": 2, "p": 1}], {"w": 10, "p": 5}, edge_delay=1, cloud_delay=4)
    df = c.to_frame()
    assert list(df.columns) == [
        "server",
        "name",
        "pool",
        "transfer_delay",
        "capacity_w",
        "capacity_p",
    ]
    expected = pd.DataFrame(
        {
            "server": [0, 1],
            "name": ["edge0", "cloud"],
            "pool": ["edge", "cloud"],
            "transfer_delay": [1.0, 4.0],
            "capacity_w": [2.0, 10.0],
            "capacity_p": [1.0, 5.0],
        }
    )
    pd.testing.assert_frame_equal(df, expected, check_dtype=False)


def test_compressible_resources_are_not_hard():
    c = Cluster.homogeneous(2, {"cpu": 8, "mem": 32}, compressible=["cpu"])
    assert c.compressible == ("cpu",)
    np.testing.assert_array_equal(c.hard, [False, True])
    assert Cluster.homogeneous(1, {"cpu": 8}).hard.tolist() == [True]


def test_vector_aligns_a_demand_with_the_resources():
    c = Cluster.homogeneous(1, {"gpu": 4, "cpu": 8, "mem": 16})
    np.testing.assert_array_equal(c.vector({"mem": 2, "gpu": 1}), [1, 0, 2])
    with pytest.raises(ValueError, match=r"demand names resource 'tpu'"):
        c.vector({"tpu": 1})
    with pytest.raises(ValueError, match=r"unknown resource 'tpu'"):
        c.resource_index("tpu")


# --------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("capacity", "pattern"),
    [
        ({"gpu": -1}, r"server 'a': capacity\['gpu'\] must be finite and >= 0, got -1"),
        ({"gpu": math.nan}, r"server 'a': capacity\['gpu'\] must be finite and >= 0, got nan"),
        ({"gpu": math.inf}, r"capacity\['gpu'\] must be finite and >= 0, got inf"),
        ({"gpu": "four"}, r"capacity\['gpu'\] must be a number, got 'four'"),
        ({}, r"server 'a': capacity must be a non-empty mapping"),
    ],
)
def test_server_rejects_bad_capacity(capacity, pattern):
    with pytest.raises(ValueError, match=pattern):
        Server("a", "unified", capacity)


def test_server_non_mapping_capacity_names_the_value():
    with pytest.raises(ValueError, match=r"capacity.*got 3"):
        Server("a", "unified", 3)


def test_server_rejects_unknown_pool_empty_name_and_negative_delay():
    with pytest.raises(ValueError, match=r"server 'a': pool must be one of .* got 'gpu-pool'"):
        Server("a", "gpu-pool", {"gpu": 1})
    with pytest.raises(ValueError, match=r"server name must be a non-empty string, got ''"):
        Server("", "unified", {"gpu": 1})
    with pytest.raises(
        ValueError, match=r"server 'a': transfer_delay must be finite and >= 0, got -2"
    ):
        Server("a", "edge", {"gpu": 1}, transfer_delay=-2)
    with pytest.raises(ValueError, match=r"pool must be one of .* got 'edgy'"):
        Cluster.homogeneous(2, {"gpu": 1}, pool="edgy")


def test_cluster_rejects_empty_and_duplicate_names():
    with pytest.raises(ValueError, match=r"cluster.servers must contain at least one server"):
        Cluster(())
    s = Server("a", "unified", {"gpu": 1})
    with pytest.raises(ValueError, match=r"duplicate server names \['a'\]"):
        Cluster((s, Server("a", "ps", {"gpu": 2})))
    with pytest.raises(TypeError, match=r"must hold Server objects, got dict"):
        Cluster(({"gpu": 1},))


@pytest.mark.parametrize(
    ("slot", "pattern"),
    [
        (0, r"cluster.slot_seconds must be > 0, got 0"),
        (-5, r"cluster.slot_seconds must be finite and >= 0, got -5"),
        (math.nan, r"cluster.slot_seconds must be finite and >= 0, got nan"),
        ("hour", r"cluster.slot_seconds must be a number, got 'hour'"),
    ],
)
def test_cluster_rejects_bad_slot_seconds(slot, pattern):
    with pytest.raises(ValueError, match=pattern):
        Cluster.homogeneous(2, {"gpu": 1}, slot_seconds=slot)


def test_cluster_rejects_bad_resources_and_compressible():
    s = Server("a", "unified", {"gpu": 1})
    with pytest.raises(
        ValueError, match=r"server 'a' has capacity for unknown resources \['gpu'\]"
    ):
        Cluster((s,), resources=("cpu",))
    with pytest.raises(ValueError, match=r"cluster.resources has duplicates: \('gpu', 'gpu'\)"):
        Cluster((s,), resources=("gpu", "gpu"))
    with pytest.raises(ValueError, match=r"cluster.compressible names unknown resources \['cpu'\]"):
        Cluster.homogeneous(2, {"gpu": 1}, compressible=("cpu",))


@pytest.mark.parametrize("n", [0, -1, 2.0, True])
def test_constructors_reject_bad_counts(n):
    with pytest.raises(ValueError, match=rf"n must be a positive integer, got {n!r}"):
        Cluster.homogeneous(n, {"gpu": 1})
    with pytest.raises(ValueError, match=rf"n_ps_servers must be a positive integer, got {n!r}"):
        Cluster.two_pools(1, n, {"gpu": 1}, {"cpu": 1})


def test_constructors_reject_mismatched_lengths():
    with pytest.raises(ValueError, match=r"worker_capacity has 1 entries for 2 servers"):
        Cluster.two_pools(2, 1, [{"gpu": 1}], {"cpu": 1})
    with pytest.raises(ValueError, match=r"edge_delay has 2 entries for 1 edge servers"):
        Cluster.edge_cloud([{"w": 1}], {"w": 2}, edge_delay=[1, 2])
    with pytest.raises(ValueError, match=r"len\(edge_capacity\) must be a positive integer, got 0"):
        Cluster.edge_cloud([], {"w": 2})
