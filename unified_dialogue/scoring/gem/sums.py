"""numpy 1.x's float sums, means and standard deviations, in plain Python.

GEM-metrics averages with numpy and needs numpy 1.x (it imports numpy.NaN, gone in 2.0).
numpy 1.x sums a float64 array in blocks of 8192 (its buffer size), each block pairwise
(blocks of at most 128 by eight running sums); numpy 2 sums otherwise, which can change the
last digit. These functions sum as numpy 1.x does, whatever numpy is installed.
"""

import math

import numpy as np

_BUFFER = 8192
_BLOCK = 128


def _pairwise(values, start, count):
    if count < 8:
        total = 0.0
        for value in values[start:start + count]:
            total += value
        return total
    if count <= _BLOCK:
        sums = list(values[start:start + 8])
        end = start + count - count % 8
        for offset in range(start + 8, end, 8):
            for k in range(8):
                sums[k] += values[offset + k]
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]))
        for value in values[end:start + count]:
            total += value
        return total
    half = count // 2
    half -= half % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, count - half)


def numpy1_sum(values):
    """``numpy.add.reduce`` of a list of floats as numpy 1.x computes it."""
    values = [float(value) for value in values]
    total = 0.0
    for start in range(0, len(values), _BUFFER):
        total += _pairwise(values, start, min(_BUFFER, len(values) - start))
    return total


def numpy1_mean(values):
    """``numpy.mean`` of a list of numbers as numpy 1.x computes it."""
    return np.float64(numpy1_sum(values) / len(values)) if len(values) else np.float64("nan")


def numpy1_std(values):
    """``numpy.std`` of a list of numbers as numpy 1.x computes it."""
    mean = numpy1_mean(values)
    deviations = [float(value) - float(mean) for value in values]
    return np.float64(math.sqrt(numpy1_sum([d * d for d in deviations]) / len(values)))
