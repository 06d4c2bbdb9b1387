"""Tool-call scores on ``agent-call-chat`` rows: a model's raw output parsed into tool calls
and compared with the row's gold call.

The calls are read from the answer of the output (``core.answer``): never from a reasoning
block before it (a call drafted there is not made), and without a code fence around it.
Parsed encodings (``parse_tool_calls``): a JSON object ``{"name", "arguments"}`` (or
``"parameters"``); a JSON list of such objects; OpenAI's ``{"type": "function",
"function": {"name", "arguments"}}`` with the arguments as a JSON string, or a whole message
with ``tool_calls``; one or more ``<tool_call>…</tool_call>`` blocks (the closing tag may be
cut off; a block that does not parse is passed over) holding such JSON, or the XML of
Qwen3.5 and Nemotron 3 (``<function=NAME><parameter=KEY>VALUE</parameter>``) or of GLM-4.5
(``NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>``); gpt-oss's harmony calls
(``to=functions.NAME … <|message|>ARGS<|call|>``). The JSON may follow some text: the first
JSON value that is a call is taken (the whole answer is tried as JSON first, and a block's
JSON is read to its own end, so that a value may hold the tags). Output with no call in any
of these forms is malformed: a counted miss, its id listed. A call naming none of the row's
tools is readable: counted as ``unknown_tools`` (its id listed), and a miss of the name.

The first call of the output is the prediction (the gold completion holds one call); any
further ones are counted as ``extra_calls``. Metrics, over all rows:

- ``call_accuracy``: the function name is the gold one;
- ``joint_accuracy``: the name and every argument are right, no argument missing or extra;
- ``argument_precision`` / ``argument_recall`` / ``argument_f1``: over (slot, value) pairs,
  micro-averaged; a pair counts as right only in a call of the right function.

Values are compared as text. For a categorical slot (a parameter with ``enum`` in the gold
tool) a predicted value equal to a possible value but for case and surrounding white space
becomes that value, in the schema's spelling. Any other value is normalised before the
comparison: case folded, runs of white space made one space, surrounding white space and
quotes removed. JSON numbers and booleans are written as SGD writes them (``2``, ``True``).
"""

import json
import re

from ..chat.agent import loaded
from ..core.answer import answer, json_text
from ..core.problems import MALFORMED, UNKNOWN_TOOL, Problem
from .rows import ScoringError, counted, pair, row_record

OPEN = "<tool_call>"
BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
DECODER = json.JSONDecoder()
SPACES = re.compile(r"\s*")
JSON_START = re.compile(r"[\[{]")
# The XML the chat templates of Qwen3.5 and Nemotron 3, and of GLM-4.5, write a call in.
FUNCTION = re.compile(r"\s*<function=([^\n>]+)>(.*?)(?:</function>|\Z)", re.S)
PARAMETER = re.compile(r"<parameter=([^>\n]+)>\s*(.*?)\s*</parameter>", re.S)
GLM_CALL = re.compile(r"\s*([^\s<]+)\s*(<arg_key>.*)", re.S)
GLM_ARGUMENT = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.S)
# A harmony call: the recipient in the message's header, the arguments its content.
HARMONY_CALL = re.compile(r"to=functions\.([^\s<]+)(?:(?!<\|message\|>).)*<\|message\|>(.*?)(?:<\|call\|>|\Z)", re.S)


class MalformedOutput(ValueError):
    """Text that holds no tool call in any of the parsed encodings."""


def parse_tool_calls(text):
    """The tool calls in the answer of a model's raw output (``core.answer``), as ``[(name,
    arguments)]``; raises MalformedOutput where there is none (or no answer: a reasoning
    block that never ends). The whole answer as JSON is tried first, then its
    ``<tool_call>`` blocks, then its harmony calls, then the first JSON value of the text
    that is a call."""
    text, problems = answer(text)
    if problems:
        raise MalformedOutput(str(problems[0]))
    try:
        calls = calls_of(json.loads(text))
    except (ValueError, MalformedOutput):  # not one JSON call: blocks, or JSON among other text
        calls = []
    if not calls:
        if OPEN in text:
            calls = block_calls(text)
        elif HARMONY_CALL.search(text):
            calls = [call for found in HARMONY_CALL.finditer(text) for call in _or_none(harmony_call, found)]
        else:
            calls = _or_none(first_calls, text)
    if not calls:
        raise MalformedOutput("no tool call")
    return calls


def _or_none(read, *args):
    """``read(*args)``, or no call where it does not parse."""
    try:
        return read(*args)
    except MalformedOutput:
        return []


def block_calls(text):
    """The calls of every ``<tool_call>`` block: its JSON read whole (so that a value may
    hold ``</tool_call>``), or failing that the block up to its closing tag (which may be
    cut off), as JSON or as the XML of a chat template; a block that does not parse is
    passed over."""
    calls, pos = [], 0
    while text.find(OPEN, pos) >= 0:
        start = text.find(OPEN, pos)
        try:
            value, pos = DECODER.raw_decode(text, SPACES.match(text, start + len(OPEN)).end())
            calls += calls_of(value)
            continue
        except (ValueError, MalformedOutput):  # not a call in JSON to its end
            block = BLOCK.match(text, start)
            pos = block.end()
        calls += _or_none(first_calls, block.group(1)) or xml_calls(block.group(1))
    return calls


def first_calls(text):
    """The calls of the first JSON value of ``text`` (starting at a ``{`` or ``[``) that is
    a call."""
    for start in (match.start() for match in JSON_START.finditer(text)):
        try:
            return calls_of(DECODER.raw_decode(text, start)[0])
        except (ValueError, MalformedOutput):
            continue
    raise MalformedOutput("no JSON call")


def xml_calls(block):
    """The call of a block in a chat template's XML (values as written, ``text``), or none."""
    function = FUNCTION.match(block)
    if function:
        return [(function.group(1).strip(), dict(PARAMETER.findall(function.group(2))))]
    glm = GLM_CALL.fullmatch(block)
    if glm:
        return [(glm.group(1), {key.strip(): value for key, value in GLM_ARGUMENT.findall(glm.group(2))})]
    return []


def harmony_call(found):
    """The call of a harmony ``to=functions.NAME`` message (a ``HARMONY_CALL`` match)."""
    return calls_of({"name": found.group(1), "arguments": found.group(2)})


def calls_of(value):
    """The ``(name, arguments)`` of a parsed JSON value in any of the encodings."""
    if isinstance(value, list):
        return [call for item in value for call in calls_of(item)]
    if not isinstance(value, dict):
        raise MalformedOutput(f"a JSON {type(value).__name__} where a tool call was expected")
    if "tool_calls" in value:
        return calls_of(value["tool_calls"])
    if isinstance(value.get("function"), dict):
        return calls_of(value["function"])
    if not isinstance(value.get("name"), str):
        raise MalformedOutput("a JSON object without a function name")
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            raise MalformedOutput("arguments that are a string but not JSON") from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise MalformedOutput("arguments that are not a JSON object")
    return [(value["name"], arguments)]


def as_text(value):
    """A JSON value as SGD writes values: booleans ``True``/``False``, whole numbers
    without a fraction, other structures as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def normalised(text):
    return " ".join(text.casefold().split()).strip("\"'").strip()


def value_key(value, prop):
    """What a value is compared as, given its slot's JSON-schema property (or None)."""
    text = as_text(value)
    for possible in (prop or {}).get("enum", ()):
        if text.strip().casefold() == possible.strip().casefold():
            return possible
    return normalised(text)


def gold_call(row):
    """``(name, arguments, properties of the gold tool)`` of an ``agent-call-chat`` row."""
    completion = row["completion"]
    calls = (completion[0].get("tool_calls") or []) if len(completion) == 1 else []
    if len(calls) != 1:
        raise ScoringError(f"row {row['id']}: the completion is not one assistant message with one tool call")
    name = calls[0]["function"]["name"]
    for tool in row["tools"]:
        if tool["function"]["name"] == name:
            return name, loaded(calls[0]["function"]["arguments"]), loaded(tool["function"]["parameters"])["properties"]
    raise ScoringError(f"row {row['id']}: the gold call {name} is not one of the row's tools")


def gold_of(row):
    """``(name, {slot: compared value}, properties, the names of the row's tools)`` of a
    row's gold call, as ``row_scores`` takes it."""
    name, arguments, properties = gold_call(row)
    return (name, {slot: value_key(value, properties.get(slot)) for slot, value in arguments.items()}, properties,
            frozenset(tool["function"]["name"] for tool in row["tools"]))


def row_scores(text, gold):
    """The per-row scores of one output: ``(scores, problems)``, where ``gold`` is
    ``gold_of(row)`` and ``text`` None means no prediction; ``problems``: a
    ``core.problems.Problem`` of kind ``malformed`` (no call could be read) or
    ``unknown_tool`` (the call names none of the row's tools, ``name``), or none.

    ``scores``: ``call_accuracy`` and ``joint_accuracy`` (1.0 or 0.0), ``argument_f1`` (the
    row's own F1 over (slot, value) pairs; 0.0 for a wrong function or an unreadable
    output; 1.0 for a right call where neither side has an argument), and the counts the
    corpus's micro-averaged argument precision and recall add up: ``arguments_right``,
    ``arguments_predicted``, ``arguments_gold``, ``extra_calls``."""
    name, gold, properties, tool_names = gold
    scores = dict(call_accuracy=0.0, joint_accuracy=0.0, argument_f1=0.0, arguments_right=0,
                  arguments_predicted=0, arguments_gold=len(gold), extra_calls=0)
    if text is None:
        return scores, []
    try:
        (predicted_name, predicted_arguments), *extra = parse_tool_calls(text)
    except MalformedOutput as error:
        return scores, [Problem(MALFORMED, str(error))]
    problems = [] if predicted_name in tool_names else [Problem(UNKNOWN_TOOL, f"no tool {predicted_name!r}",
                                                                predicted_name)]
    predicted = {slot: value_key(value, properties.get(slot)) for slot, value in predicted_arguments.items()}
    scores.update(arguments_predicted=len(predicted), extra_calls=len(extra))
    if predicted_name == name:
        right = sum(slot in gold and gold[slot] == value for slot, value in predicted.items())
        precision = right / len(predicted) if predicted else float(not gold)
        recall = right / len(gold) if gold else float(not predicted)
        scores.update(call_accuracy=1.0, joint_accuracy=float(predicted == gold), arguments_right=right,
                      argument_f1=2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return scores, problems


def score_tool_calls(predictions, rows, *, allow_missing=False, per_row=False):
    """Score predicted tool calls against ``agent-call-chat`` rows.

    Args:
        predictions: ``{row id: a model's raw output}``.
        rows: the ``agent-call-chat`` rows predicted (a ``datasets.Dataset`` or a list of
            dicts), from either ``datasets`` line.
        allow_missing: count a row without a prediction as a miss, instead of an error.
        per_row: add ``"per_row"``: each row's ``{"id", ...}`` of ``row_scores``, with its
            ``malformed``, ``missing`` and ``problems`` (``rows.row_record``), in the rows' order. ``call_accuracy`` and ``joint_accuracy`` are the means of the rows';
            the argument precision and recall are the ratios of their summed counts.

    Returns:
        ``{"rows", "call_accuracy", "joint_accuracy", "argument_precision",
        "argument_recall", "argument_f1", "extra_calls", "malformed", "malformed_ids",
        "unknown_tools", "unknown_tools_ids", "missing", "missing_ids"}``; a malformed or
        missing prediction counts as a call with the wrong name and no arguments; a
        readable call whose name is none of the row's tools is counted as unknown (not
        malformed), and scored as a call of the wrong name.

    Example:
        >>> rows = load("sgd", "agent-call-chat", split="validation")
        >>> score_tool_calls({rows[0]["id"]: '{"name": "Restaurants_2__FindRestaurants", '
        ...                   '"arguments": {"location": "San Jose"}}'}, rows, allow_missing=True)
    """
    totals = dict(rows=0, names=0, joint=0, right=0, predicted=0, gold=0, extra=0)
    pairs = pair(predictions, rows, allow_missing=allow_missing)
    problems_of, records = pairs.problems, []
    for row, text in pairs:
        scores, problems = row_scores(text, gold_of(row))
        if problems:
            problems_of[row["id"]] = problems
        totals["rows"] += 1
        for total, key in (("names", "call_accuracy"), ("joint", "joint_accuracy"), ("right", "arguments_right"),
                           ("predicted", "arguments_predicted"), ("gold", "arguments_gold"), ("extra", "extra_calls")):
            totals[total] += scores[key]
        if per_row:
            records.append((row["id"], scores))
    result = metrics(totals, problems_of, pairs.absent)
    if per_row:
        absent = set(pairs.absent)
        result["per_row"] = [row_record(identifier, scores, problems_of.get(identifier, []), identifier in absent)
                             for identifier, scores in records]
    return result


def metrics(totals, problems_of, missing):
    def ratio(part, whole):
        return part / whole if whole else 1.0

    # With no pair on one side, the ratio is 1 only where the other side has none either.
    precision = ratio(totals["right"], totals["predicted"]) if totals["predicted"] else float(not totals["gold"])
    recall = ratio(totals["right"], totals["gold"]) if totals["gold"] else float(not totals["predicted"])
    return {
        "rows": totals["rows"],
        "call_accuracy": ratio(totals["names"], totals["rows"]),
        "joint_accuracy": ratio(totals["joint"], totals["rows"]),
        "argument_precision": precision,
        "argument_recall": recall,
        "argument_f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "extra_calls": totals["extra"],
        **counted(problems_of, (MALFORMED, UNKNOWN_TOOL)),
        "missing": len(missing),
        "missing_ids": missing,
    }


def gold_text(row, form="json"):
    """The gold call of a row as a model might write it: ``json`` (``{"name",
    "arguments"}``), ``tool_call`` (that object in a ``<tool_call>`` block) or ``openai``
    (``{"type": "function", "function": {"name", "arguments": "<JSON text>"}}``), in JSON
    that is its own answer (``core.answer.json_text``)."""
    name, arguments, _ = gold_call(row)
    call = {"name": name, "arguments": arguments}
    if form == "json":
        return json_text(call)
    if form == "tool_call":
        return f"<tool_call>\n{json_text(call)}\n</tool_call>"
    if form == "openai":
        return json_text({"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}})
    raise ValueError(f"unknown form {form!r}: json, tool_call or openai")
