"""Optimus PS load balancing: PAA vs MXNet's default (Sec. 5.3, Table 3)."""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.optimus.paa import (
    check_paa_invariants,
    check_table3,
    mxnet_default,
    paa,
    resnet50_blocks,
    table3,
)


def test_resnet50_blocks_are_mxnets_157_arrays():
    names, sizes = resnet50_blocks()
    assert len(names) == len(sizes) == 157
    assert len(set(names)) == 157
    assert sum(sizes) == 25_549_486
    assert sum(s >= 1e6 for s in sizes) == 10
    assert max(sizes) == 512 * 512 * 9  # stage-4 3x3 convolutions
    assert names[:3] == ("bn_data_gamma", "bn_data_beta", "conv0_weight")
    assert names[-2:] == ("fc1_weight", "fc1_bias")
    assert sizes[names.index("stage1_unit1_sc_weight")] == 64 * 256


def test_table3_paa_row_is_reproduced():
    claim = check_table3()
    assert claim.holds, claim.summary()
    t = table3()
    assert t["paa"]["total_requests"] == 157
    assert t["paa"]["request_difference"] == 1
    assert t["paa"]["size_difference"] < 0.15e6  # paper: 0.1M
    assert t["mxnet"]["total_requests"] == 247  # paper: 247
    assert t["mxnet"]["size_difference"] > 5 * t["paa"]["size_difference"]


def test_large_block_is_sliced_into_avg_size_partitions():
    a = paa([10, 1, 1], 2)  # avg 6: block 0 -> 6 + 4
    assert a.block_ps()[0] == (0, 1)
    assert [s for b, _, s in a.parts if b == 0] == [6.0, 4.0]
    assert a.total_requests == 4
    assert a.extra_partitions == 1
    assert a.split_blocks() == (0,)
    assert sorted(a.ps_sizes.tolist()) == [6.0, 6.0]


def test_integer_partitions_round_avg_size_up():
    a = paa([20, 1], 2)  # avg 10.5 -> partitions of 11
    assert [s for b, _, s in a.parts if b == 0] == [11.0, 9.0]
    assert a.ps_sizes.sum() == 21


def test_best_fit_and_very_small_blocks():
    # avg = 10; 6 goes to PS 0; 4 fits exactly into PS 0 (room 4) -> best fit; 5 and 5 to PS 1;
    a = paa([6, 5, 4, 5], 2, eps=0.01)
    assert a.block_ps() == {0: (0,), 1: (1,), 2: (0,), 3: (1,)}
    # very small blocks (< eps * avg) go to the PS with the fewest requests
    b = paa([50, 30, 20, 0.1, 0.1, 0.1], 2, eps=0.01)  # avg 50.15
    ps_of = b.block_ps()
    assert ps_of[0] == (0,) and ps_of[1] == (1,) and ps_of[2] == (1,)
    assert [ps_of[i][0] for i in (3, 4, 5)] == [0, 1, 0]  # 2nd: tie on requests -> less assigned
    assert b.request_difference == 0


@pytest.mark.parametrize("seed", range(8))
def test_invariants_on_random_models(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    sizes = np.exp(rng.uniform(0, 15, n)).round() + 1
    for n_ps in (1, 2, 3, 7, 16, 40):
        for eps in (0.0, 0.01, 0.2):
            claim = check_paa_invariants(sizes, n_ps, eps)
            assert claim.holds, claim.summary()


def test_no_large_block_means_one_request_per_block():
    _, sizes = resnet50_blocks()
    for n_ps in (1, 2, 5, 10):
        a = paa(sizes, n_ps)
        assert a.total_requests == 157
        assert a.split_blocks() == ()
    assert paa(sizes, 20).total_requests > 157  # avg 1.28M < 2.36M: the 3x3 stage-4 kernels split


def test_mxnet_default_slices_large_blocks_and_is_seeded():
    sizes = [5, 2_000_001, 7, 3_000_000]
    a = mxnet_default(sizes, 4, 0)
    assert a.total_requests == 2 + 2 * 4
    assert [s for b, _, s in a.parts if b == 1] == [500_001.0, 500_000.0, 500_000.0, 500_000.0]
    assert a.ps_sizes.sum() == sum(sizes)
    b = mxnet_default(sizes, 4, np.random.default_rng(0))
    assert a.parts == b.parts
    many = [mxnet_default([1.0] * 50, 5, s).parts for s in range(3)]
    assert many[0] != many[1] or many[1] != many[2]


def test_bad_input():
    with pytest.raises(ValueError, match="block_sizes"):
        paa([], 2)
    with pytest.raises(ValueError, match=r"block_sizes\[1\]"):
        paa([1.0, -2.0], 2)
    with pytest.raises(ValueError, match="n_ps"):
        paa([1.0], 0)
    with pytest.raises(ValueError, match="eps"):
        paa([1.0], 1, eps=2.0)
    with pytest.raises(ValueError, match="rng"):
        mxnet_default([1.0], 1, -1)
    with pytest.raises(ValueError, match="threshold"):
        mxnet_default([1.0], 1, 0, threshold=0)
    with pytest.raises(ValueError, match="seeds"):
        table3(seeds=0)
