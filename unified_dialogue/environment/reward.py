"""The reward of an episode, τ-bench's way: the final state against the gold outcome, and
what the user was told.

``parts(episode, final_answer)``:

- ``transaction_precision`` / ``transaction_recall``: the episode's transactions (calls
  of transactional intents that returned a row, compared as ``services.Tool.key``) against
  the outcome's, as multisets (1.0 where both are empty; with one side empty, 0.0);
- ``call_accuracy``: the share of the outcome's calls (its transactions and final
  queries) that the episode made, with the same compared arguments (1.0 where there are
  none);
- ``requested_values_given``: the share of the values the user asked for (the outcome's
  ``told``) that reached the user (1.0 where there are none): a value reached the user
  when its text, as said or canonical (case folded, white space made one space), is in a
  message the agent sent the user or in its final answer; a value of a yes-or-no slot
  (possible values ``True`` and ``False``) is said in words in SGD ("they do", "no outdoor
  seating", and in about one answer in six not at all), so it counts as given when a row
  the agent read holds it;
- ``reward``: 1.0 when the transactions equal the outcome's (a missing, wrong or extra one
  fails), every requested value was given and, for a dialogue without a transaction,
  every final query was made; else 0.0. An episode whose simulated user spoke its most
  turns without ending the conversation fails.
"""

from collections import Counter

from ..scoring.tool_calls import value_key
from .episode import gold_keys
from .user import MAX_TURNS

# The version of this reward, written in each episode's line: lines judged by another
# version are neither resumed nor mixed with these.
REWARD_VERSION = "1"
PARTS = ("reward", "transaction_precision", "transaction_recall", "call_accuracy", "requested_values_given")
YES_NO = frozenset({"true", "false"})


def plain(text):
    return " ".join(text.casefold().split())


def ratio(part, whole, other):
    """``part / whole``; with ``whole`` 0, 1.0 only where ``other`` is 0 too."""
    return part / whole if whole else float(not other)


def yes_no(tool_slots, slot):
    prop = tool_slots.get(slot) or {}
    return {value.casefold() for value in prop.get("enum", ())} == YES_NO


def told(episode, entry, text):
    """Whether a requested value (an outcome's ``told`` entry) reached the user."""
    tools = [tool for tool in episode.services.tools.values() if tool.service == entry["service"]]
    slots = tools[0].slots if tools else {}
    if yes_no(slots, entry["slot"]):
        wanted = {value_key(value, slots[entry["slot"]]) for value in entry["values"]}
        return any((tool.name, entry["slot"], value) in episode.read for tool in tools for value in wanted)
    return any(plain(value) and plain(value) in text for value in entry["values"])


def parts(episode, final_answer=None, judge_told=True):
    """The reward of ``episode`` and its parts (see the module's docstring).

    Args:
        episode: an ``episode.Episode`` after the agent's turns.
        final_answer: the agent's last message, without a tool call (None: none, or unseen).
        judge_told: whether the requested values are judged (``requested_values_given``
            and the reward's part of it); False where the final answer cannot be seen.

    Returns:
        ``{part: value}`` for each of ``PARTS``.

    Example:
        >>> parts(episode, "Your table is booked.")["reward"]
        1.0
    """
    outcome, services = episode.outcome, episode.services
    gold = Counter(gold_keys(services, outcome["transactions"]))
    made = Counter(key for _, key in episode.transactions)
    matched = sum((gold & made).values())
    total_gold, total_made = sum(gold.values()), sum(made.values())
    queries = gold_keys(services, outcome["queries"])
    called = set(episode.made)
    wanted = list(gold) + queries
    text = plain("\n".join([*episode.messages, final_answer or ""]))
    given = [told(episode, entry, text) for entry in outcome["told"]] if judge_told else []
    result = {
        "transaction_precision": ratio(matched, total_made, total_gold),
        "transaction_recall": ratio(matched, total_gold, total_made),
        "call_accuracy": ratio(sum(key in called for key in wanted), len(wanted), 0),
        "requested_values_given": ratio(sum(given), len(given), 0),
    }
    success = gold == made and all(given) and (total_gold > 0 or all(key in called for key in queries)) and \
        getattr(episode.user, "ended", None) != MAX_TURNS
    return {"reward": float(success), **result}


__all__ = ["PARTS", "REWARD_VERSION", "parts"]
