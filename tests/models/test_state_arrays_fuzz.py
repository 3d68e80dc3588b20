"""models.state_arrays under random headers (issue 41): whatever the pickle says about a tensor's offset, sizes
and strides, whatever the storage entry holds and however the file is cut or flipped, the reader returns the
very elements the header names or refuses the file (UnknownLayout, DamagedCheckpoint); it never reads out of
bounds (a native crash ends the run). A small budget here; `make soak` sets CLARIFY_FUZZ_EXAMPLES to run it at
full size."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.reliability.checkpoints import crafted_checkpoint
from models.state_arrays import DamagedCheckpoint, UnknownLayout, read_state_arrays

pytestmark = pytest.mark.reliability

EXAMPLES = int(os.environ.get("CLARIFY_FUZZ_EXAMPLES", "80"))
HUGE = [1 << 40, -(1 << 40), 2**62, -(2**63), 2**64 + 1]


def _mostly(common, rare):  # one draw in eight from ``rare``
    return st.integers(0, 7).flatmap(lambda pick: rare if pick == 0 else common)


sizes = _mostly(st.integers(0, 7), st.sampled_from([10**6, 2**31, 2**62]))
strides = _mostly(st.integers(-8, 8), st.sampled_from(HUGE))
junk = st.sampled_from([None, 1.5, "3", True, [2, 2], (1.0,)])


@st.composite
def headers(draw):
    numel = draw(_mostly(st.integers(0, 40), st.sampled_from([2**31, -1, 2**62])))
    offset = draw(_mostly(st.integers(-3, 45), st.sampled_from(HUGE) | junk))
    ndim = draw(st.integers(0, 4))
    size = draw(_mostly(st.tuples(*[sizes] * ndim), junk))
    stride = draw(_mostly(st.tuples(*[strides] * ndim), st.tuples(*[strides] * (ndim + 1)) | junk))
    return numel, offset, size, stride


def _expected(values: np.ndarray, offset: int, size: tuple, stride: tuple) -> np.ndarray:
    """The tensor by its definition, element by element: value[i] = storage[offset + sum(i_k * stride_k)]."""
    out = np.empty(size, dtype=values.dtype)
    for index in np.ndindex(*size):
        out[index] = values[offset + sum(i * s for i, s in zip(index, stride, strict=True))]
    return out


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(
    header=headers(),
    stored_more=_mostly(st.just(0), st.integers(-4, 4)),
    byteorder=st.sampled_from([b"little", b"big", b"middle"]),
    cut=_mostly(st.none(), st.integers(0, 2000)),
    flips=_mostly(st.just([]), st.lists(st.tuples(st.integers(0, 2000), st.integers(1, 255)), max_size=3)),
)
# found at 2,000 examples: a flipped bit in an entry's header asks zipfile for "zip file version 8.4" or a password
@example(header=(6, 0, (0, 0, 0, 0), (0, 0, 0, 0)), stored_more=0, byteorder=b"little", cut=None, flips=[(386, 64)])
@example(header=(6, 0, (0, 0, 0, 0), (0, 0, 0, 0)), stored_more=0, byteorder=b"little", cut=None, flips=[(388, 64)])
def test_random_headers_read_their_elements_or_are_refused(
    tmp_path_factory, header, stored_more, byteorder, cut, flips
):
    numel, offset, size, stride = header
    stored = max(0, min(numel, 64) + stored_more)  # mostly what the header declares
    storage = np.arange(stored, dtype="<f4" if byteorder != b"big" else ">f4").tobytes()
    data = bytearray(crafted_checkpoint({"w": header}, storage, byteorder))
    intact = cut is None and not flips
    if cut is not None:
        data = data[:cut]
    for position, mask in flips:
        if position < len(data):
            data[position] ^= mask
    path = tmp_path_factory.mktemp("fuzz") / "policy.pt"
    path.write_bytes(bytes(data))
    try:
        arrays = read_state_arrays(path)
    except (UnknownLayout, DamagedCheckpoint):
        return
    assert set(arrays) == {"w"} and isinstance(arrays["w"], np.ndarray)
    if intact:  # a header the reader accepted names elements inside the storage it declared
        assert numel == stored and min(stride, default=0) >= 0
        values = np.arange(stored, dtype=np.float32)
        np.testing.assert_array_equal(arrays["w"], _expected(values, offset, size, stride))
