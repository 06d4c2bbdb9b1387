"""pass^k (``environment.trials``) against values computed by hand."""

import pytest

from unified_dialogue.environment.trials import pass_hat, pass_hat_k


@pytest.mark.parametrize("n, c, k, expected", [
    (1, 1, 1, 1.0), (1, 0, 1, 0.0),
    (3, 3, 3, 1.0), (3, 2, 3, 0.0), (3, 2, 1, 2 / 3), (3, 2, 2, 1 / 3),  # C(2,2)/C(3,2) = 1/3
    (4, 3, 2, 0.5),  # C(3,2)/C(4,2) = 3/6
    (5, 4, 3, 0.4),  # C(4,3)/C(5,3) = 4/10
    (8, 5, 4, 1 / 14),  # C(5,4)/C(8,4) = 5/70
])
def test_pass_hat_k_by_hand(n, c, k, expected):
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


def test_pass_hat_over_episodes_by_hand():
    # Three episodes of 3 trials: 3, 2 and 0 successes.
    # k=1: (3/3 + 2/3 + 0) / 3 = 5/9; k=2: (1 + 1/3 + 0) / 3 = 4/9; k=3: (1 + 0 + 0) / 3 = 1/3.
    episodes = [(3, 3), (3, 2), (3, 0)]
    assert [pass_hat(episodes, k) for k in (1, 2, 3)] == pytest.approx([5 / 9, 4 / 9, 1 / 3])
    assert pass_hat(episodes, 4) is None
    assert pass_hat([], 1) is None


@pytest.mark.parametrize("n, c, k", [(0, 0, 1), (3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4), (3.0, 1, 1)])
def test_pass_hat_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError, match="pass_hat_k"):
        pass_hat_k(n, c, k)
