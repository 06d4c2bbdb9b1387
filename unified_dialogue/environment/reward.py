"""The reward of an episode: the combination of three criteria, one module each (as
τ²-bench combines its evaluators), over a gold the environment certifies by replaying it
(``environment.certify``):

- the final state (``final_state``): the transactions made equal the gold's, and a booking
  the service refused in the gold was attempted (``transaction_precision``,
  ``transaction_recall``, ``attempts_made``);
- the item found (``found``): each search of a service without a booking returned the
  item the user settled on (``items_found``); the search's arguments are not judged;
- what the user was told (``told``): each value asked about stated for its item and for no
  other, each booking confirmed, each item found named, a refusal told
  (``requested_values_given``, ``bookings_confirmed``, ``items_named``,
  ``refusals_told``).

``reward`` is 1.0 when every part is 1.0 and, with a simulated user, the user ended the
conversation before its most turns; else 0.0. Where the final answer cannot be seen
(``judge_told`` false) what the user was told is not judged. ``REWARD_VERSION`` names
these rules; an evaluation records it.
"""

from . import final_state, found, told
from .user import MAX_TURNS

# The version of the rules below; changed whenever a rule changes what an episode earns.
REWARD_VERSION = "3"
TOLD_PARTS = ("requested_values_given", "bookings_confirmed", "items_named", "refusals_told")
PARTS = ("reward", "transaction_precision", "transaction_recall", "attempts_made", "items_found", *TOLD_PARTS)


def parts(episode, final_answer=None, judge_told=True):
    """The reward of ``episode`` and its parts (see the module's docstring).

    Args:
        episode: an ``episode.Episode`` after the agent's turns.
        final_answer: the agent's last message, without a tool call (None: none, or unseen).
        judge_told: whether what the user was told is judged; False where the final
            answer cannot be seen (each of ``TOLD_PARTS`` is then 1.0).

    Returns:
        ``{part: value}`` for each of ``PARTS``.

    Example:
        >>> parts(episode, "Your table at Lalla Grill is booked for 6:30 pm today.")["reward"]
        1.0
    """
    state = final_state.parts(episode)
    item = found.parts(episode)
    said = told.parts(episode, final_answer) if judge_told else {**dict.fromkeys(TOLD_PARTS, 1.0), "told_ok": True}
    success = state["state_ok"] and item["found_ok"] and said["told_ok"] and \
        getattr(episode.user, "ended", None) != MAX_TURNS
    merged = {**state, **item, **said}
    return {"reward": float(success), **{part: merged[part] for part in PARTS[1:]}}


__all__ = ["PARTS", "REWARD_VERSION", "parts"]
