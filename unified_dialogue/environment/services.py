"""The services an episode offers, read from their schemas: each tool (named as
``agent-call-chat`` names it), its intent, the JSON schema of its arguments, and how a
call's arguments are checked and compared.

Arguments are compared as the tool-call scorer compares them (``scoring.tool_calls.
value_key``: a categorical slot's value in the schema's spelling, any other value case
folded, white space made one space, quotes removed), after the schema's defaults are
applied: an optional slot the call leaves out has its default. Two calls are the same
call when their tool and compared arguments are equal (``Services.key``).
"""

import json
from dataclasses import dataclass
from typing import Dict, Tuple

from ..core.features import DONTCARE
from ..chat.agent import parameters, slot_property, tool_name
from ..scoring.tool_calls import as_text, value_key
from ..views import items



@dataclass(frozen=True)
class Tool:
    """One intent of a service as a tool: ``properties`` and ``required`` as in its JSON
    schema, ``defaults`` of its optional slots, ``slots`` (every slot of the service, by
    name, its JSON-schema property), ``result_slots``."""

    name: str
    service: str
    intent: str
    transactional: bool
    properties: Dict[str, dict]
    required: Tuple[str, ...]
    defaults: Dict[str, str]
    slots: Dict[str, dict]
    result_slots: Tuple[str, ...]

    def compared(self, arguments):
        """``{slot: compared value}`` of a call's arguments, the defaults applied; a slot
        that is no argument of the tool is compared by the service's slot, or as text."""
        compared = {slot: value_key(value, self.properties.get(slot) or self.slots.get(slot))
                    for slot, value in arguments.items()}
        for slot, default in self.defaults.items():
            compared.setdefault(slot, value_key(default, self.properties[slot]))
        return compared

    def key(self, arguments):
        """The text that identifies a call of this tool with ``arguments``: the tool and its
        compared arguments, sorted (JSON)."""
        return json.dumps([self.name, sorted(self.compared(arguments).items())], ensure_ascii=False)

    def problems(self, arguments):
        """What is wrong with a call's arguments, as sentences a model can act on (empty
        where nothing is): a slot that is no argument of the tool, a required one missing,
        a value that is not text, a value outside a categorical slot's possible values."""
        problems = []
        unknown = [slot for slot in arguments if slot not in self.properties]
        if unknown:
            problems.append(f"{self.name} has no argument {', '.join(map(repr, unknown))} "
                            f"(its arguments: {', '.join(self.properties) or 'none'})")
        missing = [slot for slot in self.required if slot not in arguments]
        if missing:
            problems.append(f"{self.name} needs the argument{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(map(repr, missing))}")
        for slot, value in arguments.items():
            prop = self.properties.get(slot)
            if prop is None:
                continue
            if isinstance(value, (dict, list)) or value is None:
                problems.append(f"the argument {slot!r} of {self.name} is text, not {json.dumps(value)}")
            elif "enum" in prop and value_key(value, prop) not in prop["enum"] and \
                    value_key(value, prop) != DONTCARE:
                problems.append(f"the argument {slot!r} of {self.name} takes one of "
                                f"{', '.join(map(repr, prop['enum']))} (or {DONTCARE!r}), not {as_text(value)!r}")
        return problems

    def confirmation(self, arguments):
        """The result of a transaction the corpus did not record: one row, the call's
        arguments as text with the defaults of those it leaves out."""
        row = {slot: as_text(value) for slot, value in arguments.items()}
        for slot, default in self.defaults.items():
            row.setdefault(slot, default)
        return [row]


class Services:
    """The tools of some service schemas (``schema`` records): ``tools`` by name, in the
    schemas' order, intent by intent."""

    def __init__(self, schemas):
        self.schemas = list(schemas)
        self.tools = {}
        for schema in self.schemas:
            slots = {slot["name"]: slot for slot in schema["slots"]}
            for intent in schema["intents"]:
                params = parameters(schema, intent)
                name = tool_name(schema["service_name"], intent["name"])
                if name in self.tools:
                    raise ValueError(f"the tool name {name!r} stands for two intents")
                self.tools[name] = Tool(
                    name=name, service=schema["service_name"], intent=intent["name"],
                    transactional=bool(intent["is_transactional"]), properties=params["properties"],
                    required=tuple(params["required"]),
                    defaults={pair["slot"]: pair["value"] for pair in intent["optional_slots"]},
                    slots={slot: slot_property(slots[slot]) for slot in slots},
                    result_slots=tuple(intent["result_slots"]))

    def tool(self, service, intent):
        return self.tools[tool_name(service, intent)]

    def key(self, service, intent, arguments):
        return self.tool(service, intent).key(arguments)

    def identity(self, tool):
        """What identifies the item of a row of ``tool``, as a function of the row: its
        ``views.items`` slots; for an intent declared without an item (a forecast), the
        values of its arguments (a city and a date); a row lacking any of them, or of an
        intent not declared, is its own item."""
        schema = next(schema for schema in self.schemas if schema["service_name"] == tool.service)
        declared = tool.intent in items.declared()
        slots = items.identifying(schema, tool.intent) or (list(tool.properties) if declared else [])

        def identity(row):
            if not slots or any(slot not in row for slot in slots):
                return json.dumps(row, sort_keys=True, ensure_ascii=False)
            return json.dumps([value_key(row[slot], tool.slots.get(slot))
                               for slot in slots], ensure_ascii=False)
        return identity

    def row_values(self, tool, row):
        """``{slot: compared value}`` of one result row of ``tool``."""
        return {slot: value_key(value, tool.slots.get(slot)) for slot, value in row.items()}

