"""Checks the ``agent-chat`` and ``agent-call-chat`` configs of SGD against the source,
dialogue by dialogue, and validates every tool call against its tool's JSON schema.

For each dialogue (the ``original`` config, the source as it is, under the same variant):
the messages are the system message, then per turn the user's or system's utterance, a
system turn with a ``service_call`` preceded by one tool call and one tool message; the
call's name maps back to the frame's service and the call's method, its arguments equal
the call's parameters (in order), the tool message parses back to the ``service_results``
(their refusal where the frame reports the call's failure);
the tools are those of the intents of the dialogue's services. Each ``agent-call-chat``
row is the dialogue's messages before one call, that call, and tools holding its tool.

Schema violations are the source's: SGD's own calls do not always keep to their schema.
They are counted per kind and kept as the data has them.

    python -m unified_dialogue.tools.agent_check --data-dir path/to/sgd [--variant v1] [--examples 3]

needs ``jsonschema`` (a test dependency, not the package's); prints a JSON report.
"""

import argparse
import functools
import json
import sys
from collections import Counter, defaultdict

from unified_dialogue import load
from unified_dialogue.cli import add_no_verify_flag, run_command
from unified_dialogue.chat import agent
from unified_dialogue.core.features import NOTIFY_FAILURE
from unified_dialogue.scoring.tool_calls import gold_text, score_tool_calls
from loaders.sgd import mapping

# The kinds of violation, by the JSON-schema keyword that fails.
KINDS = {
    "enum": "value outside a categorical slot's possible values",
    "required": "required slot absent",
    "additionalProperties": "slot that is not one of the intent's slots",
    "type": "value that is not a string",
}


def expected_messages(dialogue, instruction):
    """The messages a source dialogue (the source's JSON) becomes, as plain messages (the
    keys each has; arguments as dicts), built from the source alone."""
    messages = [{"role": "system", "content": instruction}]
    for turn in dialogue["turns"]:
        if turn["speaker"] == "SYSTEM":
            for frame in turn["frames"]:
                if "service_call" in frame:
                    call = frame["service_call"]
                    name = agent.tool_name(frame["service"], call["method"])
                    messages.append({"role": "assistant", "content": "",
                                     "tool_calls": [{"type": "function",
                                                     "function": {"name": name, "arguments": call["parameters"]}}]})
                    messages.append({"role": "tool", "content": json.dumps(tool_content(frame),
                                                                           ensure_ascii=False), "name": name})
        messages.append({"role": agent.ROLES[turn["speaker"]], "content": turn["utterance"]})
    return messages


def tool_content(frame):
    """What a source frame's tool message holds: its ``service_results``, or where the frame
    reports the call's failure (``NOTIFY_FAILURE``) their refusal (``chat.agent.refusal``)."""
    if any(action["act"] == NOTIFY_FAILURE for action in frame.get("actions", ())):
        return agent.refusal(frame["service_results"])
    return frame["service_results"]


def dialogue_mismatches(dialogue, row, schemas, instruction):
    """What in an ``agent-chat`` row differs from its source dialogue (a list of strings,
    empty when none). ``schemas``: the split's service schemas by name (``schema`` rows)."""
    problems = []
    messages = agent.plain_messages(row["messages"])
    calls = [(t, f) for t, turn in enumerate(dialogue["turns"]) for f in turn["frames"] if "service_call" in f]
    tool_calls = [m for m in messages if "tool_calls" in m]
    if len(tool_calls) != len(calls) or any(len(m["tool_calls"]) != 1 for m in tool_calls):
        problems.append(f"{len(tool_calls)} tool-call messages for {len(calls)} service calls")
    table = agent.tool_table(schemas.values())
    for message, (t, frame) in zip(tool_calls, calls):
        function = message["tool_calls"][0]["function"]
        if table.get(function["name"]) != (frame["service"], frame["service_call"]["method"]):
            problems.append(f"turn {t}: {function['name']} does not map back to {frame['service']}."
                            f"{frame['service_call']['method']}")
        if list(function["arguments"].items()) != list(frame["service_call"]["parameters"].items()):
            problems.append(f"turn {t}: arguments {function['arguments']} != parameters "
                            f"{frame['service_call']['parameters']}")
    tool_messages = [m for m in messages if m["role"] == "tool"]
    for message, (t, frame) in zip(tool_messages, calls):
        if json.loads(message["content"]) != tool_content(frame):
            problems.append(f"turn {t}: the tool message does not parse back to the service results")
    texts = [m["content"] for m in messages[1:] if m["role"] in ("user", "assistant") and "tool_calls" not in m]
    if texts != [turn["utterance"] for turn in dialogue["turns"]]:
        problems.append("the user and assistant texts are not the utterances")
    if messages != expected_messages(dialogue, instruction):
        problems.append("the messages are not the ones the source dialogue gives")
    expected_tools = [tool for service in dialogue["services"] for tool in agent.service_tools(schemas[service])]
    if agent.plain_tools(row["tools"]) != expected_tools:
        problems.append("the tools are not those of the dialogue's services")
    return problems


def turn_messages(messages):
    """Where the message of each turn is in a dialogue's messages (the first is the
    system message; a turn with a call has its call and tool messages before it)."""
    return [k for k, m in enumerate(messages) if k and m["role"] in ("user", "assistant") and not m["tool_calls"]]


def call_row_mismatches(row, dialogue_row):
    """What in an ``agent-call-chat`` row differs from the dialogue's ``agent-chat`` row."""
    messages = dialogue_row["messages"]
    position = turn_messages(messages)[row["turn_index"]] - 2  # the call, then the tool message
    if position < 1 or row["completion"] != [messages[position]] or not messages[position]["tool_calls"]:
        return [f"the completion is not the call message of turn {row['turn_index']}"]
    problems = []
    if row["prompt"] != messages[:position]:
        problems.append("the prompt is not the dialogue's messages before the call")
    names = [tool["function"]["name"] for tool in row["tools"]]
    if messages[position]["tool_calls"][0]["function"]["name"] not in names:
        problems.append("the called tool is not among the row's tools")
    if [t for t in dialogue_row["tools"] if t["function"]["name"] in names] != row["tools"]:
        problems.append("the row's tools are not the dialogue's tools of some of its services, in order")
    return problems


@functools.lru_cache(maxsize=None)
def validator(parameters_text):
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(parameters_text))


def violations(row):
    """``(kind, example)`` for every way a tool call of an ``agent-chat`` row breaks its
    tool's JSON schema."""
    parameters = {tool["function"]["name"]: agent.dumps(agent.loaded(tool["function"]["parameters"]))
                  for tool in row["tools"]}
    found = []
    turn = -1
    for message in agent.plain_messages(row["messages"]):
        turn += message["role"] in ("user", "assistant") and "tool_calls" not in message
        for call in message.get("tool_calls", []):
            function = call["function"]
            for error in validator(parameters[function["name"]]).iter_errors(function["arguments"]):
                found.append((KINDS.get(error.validator, error.validator), {
                    "dialogue": row["dialogue_id"], "turn": turn + 1, "tool": function["name"],
                    "at": "/".join(map(str, error.absolute_path)) or None, "problem": error.message}))
    return found


def first_named_in_call_turn(dialogue):
    """Service calls whose service no frame of an earlier turn names."""
    seen, count = set(), 0
    for turn in dialogue["turns"]:
        now = {frame["service"] for frame in turn["frames"]}
        count += sum("service_call" in f and f["service"] not in seen for f in turn["frames"])
        seen |= now
    return count


def gold_round_trip(rows):
    """The scores of the gold calls, written in each form a model might write them."""
    rows = rows.select_columns(["id", "completion", "tools"]).to_list()
    scores = {}
    for form in ("json", "tool_call", "openai"):
        metrics = score_tool_calls({row["id"]: gold_text(row, form) for row in rows}, rows)
        scores[form] = {key: value for key, value in metrics.items() if not key.endswith("_ids")}
    return scores


def check(data_dir, variant=None, examples=3, instruction=None, **load_options):
    """The report of the checks on every split of the SGD copy in ``data_dir``."""
    options = dict(data_dir=data_dir, **load_options)
    if variant is not None:
        options["variant"] = variant
    original = load("sgd", "original", **options)
    schema_rows = load("sgd", "schema", **options)
    chats = load("sgd", "agent-chat", **options)
    call_rows = load("sgd", "agent-call-chat", **options)
    instruction = agent.instruction_text(instruction)
    report = {"variant": variant, "splits": {}}
    for split, dialogues in original.items():
        schemas = {row["service_name"]: row for row in schema_rows[split]}
        counts, kinds, shown, mismatched = Counter(), Counter(), defaultdict(list), []
        by_dialogue = {}
        for row in call_rows[split]:
            by_dialogue.setdefault(row["dialogue_id"], []).append(row)
        for source_row, row in zip(dialogues, chats[split]):
            dialogue = mapping.original_to_source(source_row)
            counts["dialogues"] += 1
            service_calls = sum("service_call" in f for t in dialogue["turns"] for f in t["frames"])
            counts["service_calls"] += service_calls
            counts["tool_calls"] += sum(m["tool_calls"] is not None for m in row["messages"])
            counts["calls_first_naming_their_service"] += first_named_in_call_turn(dialogue)
            problems = [] if row["original_id"] == dialogue["dialogue_id"] else ["another dialogue"]
            problems += dialogue_mismatches(dialogue, row, schemas, instruction)
            own_calls = by_dialogue.pop(row["dialogue_id"], [])
            counts["call_rows"] += len(own_calls)
            if len(own_calls) != service_calls:
                problems.append(f"{len(own_calls)} agent-call-chat rows for {service_calls} service calls")
            for call_row in own_calls:
                problems += call_row_mismatches(call_row, row)
            if problems:
                mismatched.append({"dialogue": row["dialogue_id"], "problems": problems[:5]})
            for kind, example in violations(row):
                kinds[kind] += 1
                if len(shown[kind]) < examples:
                    shown[kind].append(example)
        counts["call_rows_without_dialogue"] = sum(map(len, by_dialogue.values()))
        counts["mismatched_dialogues"] = len(mismatched)
        report["splits"][split] = {"counts": dict(counts), "violations": dict(kinds),
                                   "examples": dict(shown), "mismatches": mismatched[:examples],
                                   "gold_round_trip": gold_round_trip(call_rows[split])}
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--variant")
    parser.add_argument("--examples", type=int, default=3, help="examples kept per kind of problem")
    parser.add_argument("--cache-dir")
    parser.add_argument("--checksums", help="the checksum table of the copy (default: the bundled one)")
    add_no_verify_flag(parser)
    return run_command(parser, work, argv, name="agent_check", flag_hints=True)


def work(args):
    """Print the report; exit status 1 where a dialogue does not match its source."""
    options = {"cache_dir": args.cache_dir}
    if args.checksums:
        options["checksums"] = args.checksums
    if args.no_verify:
        options["verify"] = False
    report = check(args.data_dir, args.variant, args.examples, **options)
    json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 1 if any(s["counts"]["mismatched_dialogues"] for s in report["splits"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
