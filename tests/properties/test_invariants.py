"""Invariants of the core, drawn by hypothesis over P, N and every arrangement and dtype."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models.enums import CollectiveName, Dtype, OptimizerKind
from models.presets import PrecisionSpec
from service.answers.bisection import fits, min_gpus_exact
from service.inputs.arrangements import COMPARED
from service.memory.model_states import model_state_bytes, replicated_floor_bytes
from service.time.collectives import ring_bytes_sent, ring_hops

counts = st.integers(min_value=1, max_value=10**15)
world_sizes = st.integers(min_value=1, max_value=10**6)
dtypes = st.sampled_from(list(Dtype))
arrangements = st.sampled_from(list(COMPARED.values()))
precisions = st.builds(
    PrecisionSpec,
    parameter_dtype=dtypes,
    gradient_dtype=dtypes,
    master_dtype=st.one_of(st.none(), dtypes),
    optimizer=st.sampled_from(list(OptimizerKind)),
    optimizer_state_dtype=dtypes,
    optimizer_gradient_dtype=st.one_of(st.none(), dtypes),
    compute_parameter_dtype=st.one_of(st.none(), dtypes),
    parameter_gather_dtype=st.one_of(st.none(), dtypes),
    gradient_reduce_dtype=st.one_of(st.none(), dtypes),
)


@given(elements=counts, n=world_sizes, dtype=dtypes)
def test_all_reduce_is_reduce_scatter_plus_all_gather(elements, n, dtype):
    rs = ring_bytes_sent(CollectiveName.reduce_scatter, elements, n, dtype)
    ag = ring_bytes_sent(CollectiveName.all_gather, elements, n, dtype)
    assert ring_bytes_sent(CollectiveName.all_reduce, elements, n, dtype) == rs + ag
    assert ring_hops(CollectiveName.all_reduce, n) == 2 * (n - 1)


@given(elements=counts, n=world_sizes)
def test_ring_cost_is_the_textbook_fraction_when_it_divides(elements, n):
    # 2(N-1)/N x M for M bytes, exactly, when N divides the element count
    elements = elements - elements % n or n
    assert ring_bytes_sent(CollectiveName.all_reduce, elements, n, Dtype.bf16) == 2 * (n - 1) * (2 * elements) // n


@given(p=counts, n=world_sizes, precision=precisions, sharding=arrangements)
def test_per_gpu_bytes_never_rise_with_n(p, n, precision, sharding):
    assert model_state_bytes(p, n + 1, precision, sharding) <= model_state_bytes(p, n, precision, sharding)


@given(p=counts, n=world_sizes, precision=precisions, sharding=arrangements)
def test_the_floor_is_what_more_gpus_approach_and_never_pass(p, n, precision, sharding):
    floor = replicated_floor_bytes(p, precision, sharding)
    above = model_state_bytes(p, n, precision, sharding) - floor
    # the part above the floor is the sharded part: it never rises with N and never goes negative
    assert 0 <= model_state_bytes(p, n + 1, precision, sharding) - floor <= above
    # at N = P every sharded class is one element per GPU: at most 9 bytes (fp64 or MXFP8) for each of 6
    assert model_state_bytes(p, p, precision, sharding) - floor <= 6 * 9
    # and with nothing sharded, the floor is everything
    if floor == model_state_bytes(p, 1, precision, sharding):
        assert above == 0


@settings(max_examples=200, deadline=None)
@given(p=st.integers(1, 10**13), card=st.integers(1, 10**14), precision=precisions, sharding=arrangements)
def test_minimum_gpus_is_the_exact_integer_boundary(p, card, precision, sharding):
    n = min_gpus_exact(lambda world_size: model_state_bytes(p, world_size, precision, sharding), card, upper=p)
    if n is None:
        assert not fits(model_state_bytes(p, p, precision, sharding), card)
        return
    assert fits(model_state_bytes(p, n, precision, sharding), card)
    if n > 1:
        assert not fits(model_state_bytes(p, n - 1, precision, sharding), card)


def test_fit_boundary_is_integer_exact():
    # 30e9 x 16 / 6 is exactly 80e9 and fits an 80e9-byte card; 1 byte less does not
    zero3 = COMPARED["zero3"]
    precision = PrecisionSpec()
    assert model_state_bytes(30 * 10**9, 6, precision, zero3) == 80 * 10**9

    def per_gpu(world_size):
        return model_state_bytes(30 * 10**9, world_size, precision, zero3)

    assert min_gpus_exact(per_gpu, 80 * 10**9, upper=30 * 10**9) == 6
    assert min_gpus_exact(per_gpu, 80 * 10**9 - 1, upper=30 * 10**9) == 7


@given(
    p=st.lists(counts, min_size=1, max_size=50),
    n=st.lists(world_sizes, min_size=1, max_size=50),
    precision=precisions,
    sharding=arrangements,
)
def test_arrays_equal_scalars(p, n, precision, sharding):
    size = min(len(p), len(n))
    p_arr, n_arr = np.array(p[:size], dtype=np.int64), np.array(n[:size], dtype=np.int64)
    vector = model_state_bytes(p_arr, n_arr, precision, sharding)
    assert [int(v) for v in vector] == [
        model_state_bytes(a, b, precision, sharding) for a, b in zip(p[:size], n[:size], strict=True)
    ]


@settings(max_examples=200, deadline=None)  # a property, not a speed: bisections vary in time under load
@given(
    p=st.integers(1, 10**13),
    card=st.integers(1, 10**14),
    precision=precisions,
    sharding=arrangements,
    guesses=st.lists(st.integers(-5, 10**6), max_size=3),
)
def test_a_guess_never_changes_the_minimum(p, card, precision, sharding, guesses):
    def per_gpu(world_size):
        return model_state_bytes(p, world_size, precision, sharding)

    assert min_gpus_exact(per_gpu, card, upper=p, guesses=tuple(guesses)) == min_gpus_exact(per_gpu, card, upper=p)
