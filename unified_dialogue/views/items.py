"""The item a call finds or books, declared per intent in ``items.json`` (the one place):
the slots whose values identify it (a restaurant by its name, a flight by its airline and
departure time, a booking by its item and date). An intent the file does not list (a
service the file predates, an SGD-X variant's renamed intents) declares no item: what it
finds is judged by the values the user asked for, as a forecast's is (a guess from slot
names would pick ``director_name`` for a film).
"""

import functools
import json
from importlib import resources


@functools.lru_cache(maxsize=None)
def declared():
    """``{intent: [slot, ...]}`` of ``items.json``."""
    data = json.loads(resources.files(__package__).joinpath("items.json").read_text(encoding="utf-8"))
    return {intent: slots for intent, slots in data.items() if not intent.startswith("_")}


def identifying(schema, intent):
    """The slots identifying the item of ``intent`` of a service ``schema`` (a schema
    record), in the declaration's order; empty where its item has none (a forecast).

    Example:
        >>> identifying(restaurants_2, "ReserveRestaurant")
        ['restaurant_name', 'date', 'time']
    """
    names = {slot["name"] for slot in schema.get("slots", ())}
    return [slot for slot in declared().get(intent, ()) if slot in names]


def service_identifying(schema):
    """Every slot identifying an item of any intent of ``schema``, in the schema's order."""
    slots = {slot for intent in schema.get("intents", ()) for slot in identifying(schema, intent["name"])}
    return [slot["name"] for slot in schema.get("slots", ()) if slot["name"] in slots]
