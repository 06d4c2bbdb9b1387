"""SGD as tool-calling conversations, in the format chat LLM trainers take: the service
schemas as ``tools`` (JSON-schema functions), service calls as assistant messages with
``tool_calls``, service results as ``tool`` messages. What the two configs share (their
rows: ``agent_chat``, one per dialogue, and ``agent_call_chat``, one per service call).

Tools: one per intent of a service, named ``<service>__<intent>`` (``tool_name``), with the
intent's description and the service's, and as ``parameters`` a JSON schema: the intent's
required slots, then its optional ones with their defaults, each a string with the slot's
description, a categorical slot's possible values as ``enum``; ``required``; no other
property (``additionalProperties`` false).

Messages: a ``system`` message with the instruction (``templates.json``, ``agent``'s
``default``, or the user's ``instruction`` option), each user turn as ``user``, each
system turn as ``assistant``; a system turn with a service call is preceded by an
``assistant`` message with empty content whose ``tool_calls`` hold the call (its
arguments: the call's parameters, in order), and a ``tool`` message (``name``: the tool)
whose content is the results as a JSON list of objects, one per result, slots in the
source's order (``results_text``); a call the system reported as failed has instead the
refusal object ``{"refused": "The service could not do this.", "offered_instead": {row}}``
(the row the service returned, where it returned one: its alternative; ``refusal``). Every message has the four keys ``role``, ``content``,
``tool_calls`` and ``name``: Arrow needs the same keys everywhere, so ``tool_calls`` and
``name`` are None where a message has none (``plain_messages`` drops them).

Where the shape varies (a call's ``arguments``, a tool's ``parameters``) the value is a
``datasets.Json()`` feature on the datasets lines that have it (4.7 and later: a dict
once read) and a JSON string on the others (3.6); the text is the same on both lines
(``json.dumps`` with ``ensure_ascii=False``). ``plain_messages`` and ``plain_tools`` give
dicts on both lines, as ``apply_chat_template`` takes them.
"""

import hashlib
import json
import re

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..core.errors import SourceFormatError
from ..core.features import INT, NOTIFY_FAILURE, STRING
from ..views.turns import Turns, lengths, relist
from .build import instruction
from .text import OPENING, USER

HAS_JSON = hasattr(datasets, "Json")
# The leaves whose shape varies from one row to the next.
JSON = datasets.Json() if HAS_JSON else STRING

TOOL_CALL = {"type": STRING, "function": {"name": STRING, "arguments": JSON}}
MESSAGE = {"role": STRING, "content": STRING, "tool_calls": [TOOL_CALL], "name": STRING}
TOOL = {"type": STRING, "function": {"name": STRING, "description": STRING, "parameters": JSON}}

DIALOGUE_FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "original_id": STRING,
    "messages": [MESSAGE],
    "tools": [TOOL],
})
CALL_FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "turn_index": INT,
    "prompt": [MESSAGE],
    "completion": [MESSAGE],
    "tools": [TOOL],
})
MESSAGE_TYPE = DIALOGUE_FEATURES.arrow_schema.field("messages").type.value_type
TOOL_TYPE = DIALOGUE_FEATURES.arrow_schema.field("tools").type.value_type

# The speakers of SGD and their chat roles.
ROLES = {"USER": "user", "SYSTEM": "assistant"}

def instruction_text(given=None):
    """The system message: the ``given`` instruction, else the default of ``templates.json``."""
    return instruction("agent", given)


# ---------------------------------------------------------------- tool names

# A name every tool-calling API takes (OpenAI's and Anthropic's ``^[a-zA-Z0-9_-]{1,64}$``,
# Gemini's first letter) that is also a Python identifier, as the methods of an environment
# whose names are its tools must be (unified_dialogue.environment): no ``-``, a letter first
# (TRL takes a name beginning with ``_`` for a private method).
NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_]{0,63}")
SEPARATOR = "__"
DIGEST = 12  # hex digits of the SHA-1 in a name made for a pair without a readable one


def readable(service, intent):
    """Whether ``<service>__<intent>`` is a valid name that splits back at its first ``__``."""
    return bool(service and intent) and SEPARATOR not in service and not service.endswith("_") \
        and NAME.fullmatch(f"{service}{SEPARATOR}{intent}") is not None


def tool_name(service, intent):
    """The function name of a service's intent, for any two strings: ``<service>__<intent>``
    where that is valid (``NAME``) and splits back at its first ``__``, as every SGD and
    SGD-X name does. Any other pair: its ASCII letters and digits, each other run of
    characters one ``_``, after ``t_`` where it would not begin with a letter, cut to 50
    characters, then ``_`` and 12 hex digits of the SHA-1 of service and intent. Such a
    name never holds ``__``, so it never reads as the first form; it maps back through the
    table of the tools' schemas (``tool_table``), which refuses a name standing for two
    pairs. Every name is a Python identifier and no keyword."""
    if readable(service, intent):
        return f"{service}{SEPARATOR}{intent}"
    digest = hashlib.sha1(f"{service}\0{intent}".encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST]
    clean = re.sub(r"[^a-zA-Z0-9]+", "_", f"{service}_{intent}").strip("_")
    if not clean[:1].isalpha():
        clean = f"t_{clean}".rstrip("_")
    return f"{clean[:64 - 1 - DIGEST].rstrip('_')}_{digest}"


def split_tool_name(name, table=None):
    """``(service, intent)`` of a name ``tool_name`` made: a readable one by itself, any
    other through ``table`` (``tool_table`` of the schemas whose tools name it)."""
    if table is not None and name in table:
        return table[name]
    service, found, intent = name.partition(SEPARATOR)
    if not found or not readable(service, intent) or tool_name(service, intent) != name:
        where = "in the table" if table is not None else "without the table of its schemas (tool_table)"
        raise ValueError(f"{name!r} is not a tool name of the form <service>__<intent>, nor one {where}")
    return service, intent


def tool_table(schemas):
    """``{tool name: (service, intent)}`` of the intents of ``schemas`` (service schema
    records); a name given to two pairs is an error naming both."""
    table = {}
    for schema in schemas:
        for intent in schema["intents"]:
            pair = (schema["service_name"], intent["name"])
            name = tool_name(*pair)
            if table.setdefault(name, pair) != pair:
                raise ValueError(f"the tool name {name!r} stands for both {table[name]} and {pair}")
    return table


# ---------------------------------------------------------------- tools

def slot_property(slot):
    """A slot as a JSON-schema property: a string, its description, and for a categorical
    slot with possible values, those values as ``enum``."""
    prop = {"type": "string", "description": slot["description"]}
    if slot["is_categorical"] and slot["possible_values"]:
        prop["enum"] = list(slot["possible_values"])
    return prop


def parameters(schema, intent):
    """The JSON schema of an intent's arguments: its required slots, then its optional
    ones with their defaults, in the schema's order; no other slot."""
    slots = {slot["name"]: slot for slot in schema["slots"]}

    def prop(name, field):
        if name not in slots:
            raise ValueError(f"{schema['service_name']}: intent {intent['name']}: {field} names {name!r}, "
                             f"which is not a slot of the service")
        return slot_property(slots[name])

    properties = {name: prop(name, "required_slots") for name in intent["required_slots"]}
    for pair in intent["optional_slots"]:
        properties[pair["slot"]] = {**prop(pair["slot"], "optional_slots"), "default": pair["value"]}
    return {"type": "object", "properties": properties, "required": list(intent["required_slots"]),
            "additionalProperties": False}


def tool_description(schema, intent):
    return f"{intent['description']} (service: {schema['description']})"


def service_tools(schema):
    """The tools of one service schema (a ``schema`` record), one per intent, in order;
    ``parameters`` as a dict."""
    return [{"type": "function", "function": {"name": tool_name(schema["service_name"], intent["name"]),
                                              "description": tool_description(schema, intent),
                                              "parameters": parameters(schema, intent)}}
            for intent in schema["intents"]]


# ---------------------------------------------------------------- calls and results

def dumps(value):
    return json.dumps(value, ensure_ascii=False)


def arguments_of(query):
    """A unified ``query``'s parameters as the call's arguments, in the source's order."""
    return {pair["slot"]: pair["value"] for pair in query["parameters"]}


def results_of(querying_result):
    """A unified ``querying_result`` as the source's list of result objects."""
    return [{pair["slot"]: pair["value"] for pair in result} for result in querying_result["results"]]


# A transaction the service refused (SGD's system said NOTIFY_FAILURE): what the tool
# message holds instead of rows, with the alternative the service offered where it did.
REFUSED = "The service could not do this."
OFFERED = "offered_instead"


def refusal(rows):
    """The answer to a refused transaction: ``{"refused": REFUSED}``, and under
    ``offered_instead`` the first row the service returned (its alternative), if any."""
    return {"refused": REFUSED, **({OFFERED: rows[0]} if rows else {})}


def results_text(querying_result, refused=False):
    """The content of a tool message: the results as a JSON list of objects, or for a
    refused call its ``refusal``."""
    rows = results_of(querying_result)
    return dumps(refusal(rows) if refused else rows)


def refused_call(call, acts):
    """Whether the system turn holding ``call`` reported the call's failure
    (``NOTIFY_FAILURE`` for its service)."""
    return any(act["act"] == NOTIFY_FAILURE and act["domain"] == call["domain"] for act in acts or ())


def loaded(value):
    """A Json leaf as a Python value: JSON text (datasets 3.6) parsed, a dict kept."""
    return json.loads(value) if isinstance(value, str) else value


def plain_messages(messages):
    """Messages as ``apply_chat_template`` takes them: the keys a message has (no None
    placeholders), tool-call arguments as dicts."""
    plain = []
    for message in messages:
        message = {key: value for key, value in message.items() if value is not None}
        if "tool_calls" in message:
            message["tool_calls"] = [{**call, "function": {**call["function"],
                                                           "arguments": loaded(call["function"]["arguments"])}}
                                     for call in message["tool_calls"]]
        plain.append(message)
    return plain


def plain_tools(tools):
    """Tools as ``apply_chat_template`` takes them: ``parameters`` as dicts."""
    return [{**tool, "function": {**tool["function"], "parameters": loaded(tool["function"]["parameters"])}}
            for tool in tools]


# ---------------------------------------------------------------- Arrow

def json_array(texts, arrow_type):
    """JSON texts as an array of a Json leaf's type (the ``arrow.json`` extension type on
    datasets lines with ``Json``, a string elsewhere)."""
    if isinstance(arrow_type, pa.ExtensionType):
        return pa.ExtensionArray.from_storage(arrow_type, pa.array(texts, arrow_type.storage_type))
    return pa.array(texts, arrow_type)


def struct(arrow_type, columns, mask=None):
    return pa.StructArray.from_arrays([columns[f.name] for f in arrow_type], fields=list(arrow_type), mask=mask)


def function_array(arrow_type, **columns):
    """The ``function`` struct of tool calls or tools from Python lists; its Json leaf
    (``arguments`` or ``parameters``) from JSON texts."""
    arrays = {name: json_array(values, arrow_type.field(name).type) if name in ("arguments", "parameters")
              else pa.array(values, pa.string()) for name, values in columns.items()}
    return struct(arrow_type, arrays)


class ServiceTools:
    """The tools of the services of a batch of unified records, each service's made once:
    ``array`` (every tool, Arrow), ``span[service] = (first, count)`` in it, ``tool_names``
    by service, and each dialogue's service names in knowledge order (``services``)."""

    def __init__(self, unified):
        knowledge = unified.column("knowledge").combine_chunks()
        schemas = pc.struct_field(pc.struct_field(knowledge, "value"), "schema")
        flat = pc.list_flatten(schemas)
        names = pc.struct_field(flat, "service_name").to_pylist()
        sizes = lengths(schemas)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        self.services = [names[bounds[d]:bounds[d + 1]] for d in range(len(sizes))]
        first = {}
        for index, name in enumerate(names):
            first.setdefault(name, index)
        self.span, tools = {}, []
        picked = flat.take(pa.array(list(first.values()), pa.int64())).to_pylist() if first else []
        for name, schema in zip(first, picked):
            try:
                made = service_tools(schema)
            except ValueError as error:
                raise SourceFormatError("(unified records)", f"service {name}", "knowledge.value.schema",
                                        str(error)) from None
            self.span[name] = (len(tools), len(made))
            tools.extend(made)
        try:
            tool_table(picked)
        except ValueError as error:
            raise SourceFormatError("(unified records)", "the batch's services", "knowledge.value.schema",
                                    str(error)) from None
        functions = [tool["function"] for tool in tools]
        function = function_array(TOOL_TYPE.field("function").type, name=[f["name"] for f in functions],
                                  description=[f["description"] for f in functions],
                                  parameters=[dumps(f["parameters"]) for f in functions])
        self.array = struct(TOOL_TYPE, {"type": pa.array(["function"] * len(tools), pa.string()),
                                        "function": function})
        self.tool_names = {service: [tools[k]["function"]["name"] for k in range(first, first + count)]
                           for service, (first, count) in self.span.items()}

    def indices(self, services):
        """The positions in ``array`` of the tools of ``services``, in that order."""
        return [first + k for service in services for first, count in [self.span[service]] for k in range(count)]


class Conversations:
    """The messages of a batch of unified SGD records, built once for both configs: every
    message of every dialogue in one Arrow array (``messages``), where each dialogue's
    begin (``dialogue_first``), where each turn's begin (``turn_first``), and each
    service call's turn (``call_turns``) and message (``call_messages``)."""

    def __init__(self, unified, instruction=None):
        self.turns = turns = Turns(unified)
        self.tools = ServiceTools(unified)
        self.dialogue_ids = unified.column("dialogue_id").to_pylist()
        system = instruction_text(instruction)
        roles = turns.roles()
        utterances = turns.field("utterance").to_pylist()
        query, result = turns.field("query"), turns.field("querying_result")
        self.call_turns = np.flatnonzero(query.is_valid().to_numpy(zero_copy_only=False))
        self.check_results(np.flatnonzero(result.is_valid().to_numpy(zero_copy_only=False)))
        calls = query.take(pa.array(self.call_turns)).to_pylist()
        results = result.take(pa.array(self.call_turns)).to_pylist()
        acts = turns.field("dialog_acts").take(pa.array(self.call_turns)).to_pylist()
        call_at = dict(zip(self.call_turns.tolist(), zip(calls, results, acts)))

        role, content, name = [], [], []
        call_names, call_arguments, self.call_messages = [], [], []
        self.turn_first = np.empty(len(turns), dtype=np.int64)
        sizes = lengths(unified.column("dialog").combine_chunks())
        self.dialogue_first = np.empty(len(sizes), dtype=np.int64)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        for dialogue in range(len(sizes)):
            self.dialogue_first[dialogue] = len(role)
            role.append("system"), content.append(system), name.append(None)
            if bounds[dialogue] < bounds[dialogue + 1] and roles[bounds[dialogue]] != "USER":
                # as in every chat config: templates that need the user first take the row
                role.append(USER), content.append(OPENING), name.append(None)
            known = {n for s in self.tools.services[dialogue] for n in self.tools.tool_names[s]}
            for turn in range(bounds[dialogue], bounds[dialogue + 1]):
                self.turn_first[turn] = len(role)
                speaker = roles[turn]
                if speaker not in ROLES:
                    self.fail(turn, "roles", f"{speaker!r} is neither of SGD's speakers ({', '.join(ROLES)})")
                if turn in call_at:
                    call, results, acts = call_at[turn]
                    function = tool_name(call["domain"], call["method"])
                    if function not in known:
                        self.fail(turn, "query", f"{call['domain']}.{call['method']} is not an intent of the "
                                                 f"dialogue's service schemas")
                    self.call_messages.append(len(role))
                    call_names.append(function), call_arguments.append(dumps(arguments_of(call)))
                    role.append("assistant"), content.append(""), name.append(None)
                    role.append("tool"), content.append(results_text(results, refused_call(call, acts))), name.append(function)
                role.append(ROLES[speaker]), content.append(utterances[turn]), name.append(None)
        self.size = len(role)
        self.messages = self.message_array(role, content, name, call_names, call_arguments)

    def message_array(self, role, content, name, call_names, call_arguments):
        call_type = MESSAGE_TYPE.field("tool_calls").type
        call = struct(call_type.value_type, {
            "type": pa.array(["function"] * len(call_names), pa.string()),
            "function": function_array(call_type.value_type.field("function").type, name=call_names,
                                       arguments=call_arguments),
        })
        has_call = np.zeros(len(role), dtype=bool)
        has_call[self.call_messages] = True
        tool_calls = relist(has_call.astype(np.int64), call, valid=has_call)
        return struct(MESSAGE_TYPE, {"role": pa.array(role, pa.string()), "content": pa.array(content, pa.string()),
                                     "tool_calls": tool_calls, "name": pa.array(name, pa.string())})

    def check_results(self, result_turns):
        """Service results come with a call of the same turn, and the other way round."""
        if np.array_equal(result_turns, self.call_turns):
            return
        odd = sorted(set(result_turns.tolist()) ^ set(self.call_turns.tolist()))[0]
        has = "results" if odd in set(result_turns.tolist()) else "a call"
        self.fail(odd, "query" if has == "a call" else "querying_result",
                  f"the turn has {has} but no {'call' if has == 'results' else 'results'}")

    def fail(self, turn, field, problem):
        dialogue = self.dialogue_ids[self.turns.dialogue[turn]]
        raise SourceFormatError("(unified records)", f"dialogue {dialogue}",
                                f"dialog[{self.turns.position[turn]}].{field}", problem)

    def dialogue_sizes(self):
        return np.diff(np.concatenate([self.dialogue_first, [self.size]]))

    def tools_of(self, services_per_row):
        """The ``tools`` column for rows whose services are ``services_per_row``."""
        picks = [self.tools.indices(services) for services in services_per_row]
        flat = pa.array([k for pick in picks for k in pick], pa.int64())
        return relist([len(pick) for pick in picks], self.tools.array.take(flat))


def services_named(chats, calls):
    """For each call turn, the dialogue's services (in its order) that a frame of one of
    its turns up to the call's has named."""
    turns = chats.turns
    frames = turns.field("frames")
    frame_services = pc.struct_field(pc.list_flatten(frames), "service").to_pylist()
    bounds = np.concatenate([[0], np.cumsum(lengths(frames))]).tolist()
    wanted = set(calls.tolist())
    named, seen, dialogue = [], set(), -1
    for turn in range(len(turns)):
        if turns.dialogue[turn] != dialogue:
            dialogue, seen = turns.dialogue[turn], set()
        seen.update(frame_services[bounds[turn]:bounds[turn + 1]])
        if turn in wanted:
            named.append([s for s in chats.tools.services[dialogue] if s in seen])
    return named
