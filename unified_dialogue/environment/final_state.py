"""The final-state criterion: the transactions an episode made against the gold's, and the
attempts the gold made that the service refused.

- ``transaction_precision`` / ``transaction_recall``: the episode's transactions (calls
  of transactional intents that the service carried out, compared as
  ``services.Tool.key``) against the outcome's, as multisets (1.0 where both are empty;
  with one side empty, 0.0). A refused call is no transaction, on either side.
- ``attempts_made``: the share of the outcome's refused calls, of intents the outcome has
  no transaction of, that the episode made (1.0 where there are none): an episode whose
  only booking was refused is judged on the attempt made with the user's values, the last
  of its intent (a value the user changed between attempts is the ticket's last one).
"""

from collections import Counter

from .episode import gold_keys


def ratio(part, whole, other):
    """``part / whole``; with ``whole`` 0, 1.0 only where ``other`` is 0 too."""
    return part / whole if whole else float(not other)


def unanswered_refusals(outcome):
    """The outcome's refused calls whose intent has no transaction, the last of each intent
    (the one made with the user's final values; the earlier ones the user gave up)."""
    booked = {(call["service"], call["intent"]) for call in outcome["transactions"]}
    last = {(call["service"], call["intent"]): call for call in outcome.get("refused") or ()}
    return [call for key, call in last.items() if key not in booked]


def parts(episode):
    """``{transaction_precision, transaction_recall, attempts_made, state_ok}`` of an
    episode (``state_ok``: the transactions equal the gold's and every attempt was made)."""
    gold = Counter(gold_keys(episode.services, episode.outcome["transactions"]))
    made = Counter(key for _, key in episode.transactions)
    matched = sum((gold & made).values())
    total_gold, total_made = sum(gold.values()), sum(made.values())
    attempts = gold_keys(episode.services, unanswered_refusals(episode.outcome))
    tried = [key in episode.made for key in attempts]
    return {"transaction_precision": ratio(matched, total_made, total_gold),
            "transaction_recall": ratio(matched, total_gold, total_made),
            "attempts_made": ratio(sum(tried), len(tried), 0),
            "state_ok": gold == made and all(tried)}
