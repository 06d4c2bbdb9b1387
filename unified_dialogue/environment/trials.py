"""Repeated trials of an episode, and τ-bench's pass^k.

pass^k is the chance that *all* of k independent trials of an episode succeed (reward
1.0), averaged over the episodes: where pass@k rewards an agent that succeeds once in k
tries, pass^k rewards one that succeeds every time, the reliability a user of a deployed
agent meets. From n ≥ k trials of an episode of which c succeeded, the unbiased estimate
of that chance is C(c, k) / C(n, k) (τ-bench, Yao et al. 2024, arXiv:2406.12045, §5.1):
the share of the k-subsets of its trials that all succeeded. pass^1 is the mean success.
"""

from math import comb


def pass_hat_k(n, c, k):
    """The unbiased estimate of pass^k for one episode: ``C(c, k) / C(n, k)``.

    Args:
        n: the trials played (at least 1).
        c: the trials that succeeded (0 … n).
        k: the trials that must all succeed (1 … n).

    Returns:
        A float in [0, 1].

    Raises:
        ValueError: ``n``, ``c`` or ``k`` outside those bounds.

    Example:
        >>> pass_hat_k(4, 3, 2)  # C(3, 2) / C(4, 2) = 3 / 6
        0.5
    """
    if not (isinstance(n, int) and isinstance(c, int) and isinstance(k, int)):
        raise ValueError(f"pass_hat_k({n!r}, {c!r}, {k!r}): give whole numbers")
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_hat_k({n}, {c}, {k}): give 1 <= k <= n and 0 <= c <= n")
    return comb(c, k) / comb(n, k)


def pass_hat(successes, k):
    """The mean over episodes of ``pass_hat_k``: ``successes`` is one ``(n, c)`` pair per
    episode (its trials and those that succeeded); None where there is no episode or an
    episode has fewer than ``k`` trials."""
    pairs = list(successes)
    if not pairs or any(n < k for n, _ in pairs):
        return None
    return sum(pass_hat_k(n, c, k) for n, c in pairs) / len(pairs)


__all__ = ["pass_hat", "pass_hat_k"]
