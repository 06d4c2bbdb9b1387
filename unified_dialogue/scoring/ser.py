"""Slot error rate (SER) of generated SGD system turns, as ``generation/ser.py`` of
google-research's task-oriented-dialogue repository computes it.

A turn is wrong when one of the values of its acts' non-categorical slots (the slots the
schema marks ``is_categorical: false``, whatever that script's comment says) does not occur
in the generated text, lowercased both, as a substring. SER is the percentage of wrong turns,
overall and for the turns of seen and unseen services.

Where that script is wrong, the default here differs, and ``upstream_compat=True`` gives its
numbers (docs/scoring.md lists the differences):

- seen or unseen: here a turn is unseen when the train split's schema lacks its service (as
  the DSTC8 evaluator decides); the script calls a turn unseen when its service's domain is
  one of ``Alarm``, ``Messaging``, ``Payment``, ``Train``, a fixed list where ``Train`` never
  matches SGD's ``Trains`` and the new services of known domains (``Buses_3`` …) count as seen.
"""

from .dst import service_names, service_slots
from .rows import ScoringError

# The script's fixed list of unseen domains, compared with the service name before "_".
UPSTREAM_UNSEEN_DOMAINS = frozenset({"Alarm", "Messaging", "Payment", "Train"})


def noncategorical_slots(schemas):
    """Service name -> the set of its non-categorical slot names, from ``schema.json``
    entries or ``schema`` rows (of every split: the script reads train, dev and test)."""
    slots = {}
    for schema in schemas:
        for service, entries in service_slots([schema]).items():
            slots.setdefault(service, set()).update(name for name, categorical in entries if not categorical)
    return slots


def row_slot_values(row):
    """``(service, slot, values)`` of each act entry of an ``nlg`` row (GEM's ``dialog_acts``
    with the row's ``service``) or of a ``response`` row (unified acts, each with its domain)."""
    acts = row.get("dialog_acts") or []
    if "service" in row:
        return [(row["service"], act["slot"], list(act["values"])) for act in acts]
    return [(act.get("domain"), entry["slot"], [value["value"] for value in entry.get("values") or []])
            for act in acts for entry in act.get("slot_value_table") or []]


def slot_error(slot_values, text, noncategorical):
    """Whether ``text`` misses a value of a non-categorical slot: ``slot_values`` as
    ``row_slot_values`` gives them, ``noncategorical`` as ``noncategorical_slots`` does."""
    text = text.lower()
    return any(value.lower() not in text
               for service, slot, values in slot_values if slot in noncategorical.get(service, ())
               for value in values)


def row_service(row):
    """The service of a row's turn: an ``nlg`` row's ``service``, else its first act's domain."""
    if "service" in row:
        return row["service"]
    for act in row.get("dialog_acts") or []:
        if act.get("domain"):
            return act["domain"]
    return None


def seen_tag(service, train_services, upstream_compat=False):
    """``"seen"`` or ``"unseen"``: by the train schema's services, or, with
    ``upstream_compat``, by the script's fixed list of unseen domains."""
    if upstream_compat:
        return "unseen" if (service or "").split("_")[0] in UPSTREAM_UNSEEN_DOMAINS else "seen"
    if train_services is None:
        raise ScoringError("seen and unseen services need the train split's schema (train_schemas=...), "
                           "or upstream_compat=True for the upstream script's fixed list")
    return "seen" if service in train_services else "unseen"


def ser(errors):
    """SER in percent of a list of per-turn booleans (None when there are no turns)."""
    return errors.count(True) / len(errors) * 100 if errors else None


def train_service_names(train_schemas):
    return None if train_schemas is None else service_names(train_schemas)
