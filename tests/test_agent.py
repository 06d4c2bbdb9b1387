"""SGD as tool-calling conversations (``agent-chat``, ``agent-call-chat``): tool names and
schemas, the messages checked against the source dialogue by dialogue in every SGD-X
variant, the Json leaves of each datasets line, rendering through ``apply_chat_template``,
schema violations, the check command, and any names and values round trip, through the
tool-call scorer too (whose own tests are in tests/test_scoring_tool_calls.py)."""

import ast
import copy
import json
import keyword
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cases import VARIANTS, build_variant, schema
from unified_dialogue import UNIFIED_FEATURES
from unified_dialogue.chat import agent, agent_call_chat, agent_chat, text
from unified_dialogue.chat.agent import SEPARATOR
from unified_dialogue.chat.build import templates
from unified_dialogue.core.errors import SourceFormatError
from unified_dialogue.scoring.tool_calls import gold_text, parse_tool_calls, score_tool_calls
from unified_dialogue.tools import agent_check
from loaders.sgd import mapping

pytestmark = pytest.mark.both_lines

# Properties of pure functions, fast: 3 times the examples of the hypothesis profile
# (HYPOTHESIS_PROFILE: ci by default, thorough for many more).
PURE = settings(max_examples=3 * settings().max_examples)


# ---------------------------------------------------------------- names and tools

def test_a_tool_name_is_service_and_intent_and_splits_back():
    assert agent.tool_name("Restaurants_1", "FindRestaurants") == "Restaurants_1__FindRestaurants"
    assert agent.split_tool_name("Restaurants_1__FindRestaurants") == ("Restaurants_1", "FindRestaurants")
    assert agent.split_tool_name(agent.tool_name("Events_23", "Search__Events")) == ("Events_23", "Search__Events")


@pytest.mark.parametrize("service,intent", [
    ("Bad service", "Find"),  # a character the rule refuses
    ("A__B", "Find"),  # the separator inside the service
    ("Trailing_", "Find"),  # would split at the wrong place
    ("S" * 40, "I" * 30),  # longer than 64
    ("", "Find"),
    ("_lead", "Find"),  # TRL takes a method beginning with _ for a private one
    ("a-b", "Find"),  # not a Python identifier
])
def test_other_pairs_get_a_valid_name_that_does_not_split(service, intent):
    name = agent.tool_name(service, intent)
    assert agent.NAME.fullmatch(name) and name.isidentifier() and SEPARATOR not in name
    with pytest.raises(ValueError, match="not a tool name"):
        agent.split_tool_name(name)
    assert agent.tool_table([schema(service, intents=[{**schema()["intents"][0], "name": intent}])]) == \
        {name: (service, intent)}


def test_a_name_standing_for_two_pairs_is_an_error_naming_both(monkeypatch):
    monkeypatch.setattr(agent, "tool_name", lambda service, intent: "same")
    two = [schema("A_1"), schema("B_1")]
    with pytest.raises(ValueError, match=r"'same' stands for both \('A_1', 'FindRestaurants'\) and \('B_1'"):
        agent.tool_table(two)


def test_parameters_required_then_optional_with_defaults_enum_for_categorical():
    (tool,) = agent.service_tools(schema())
    assert tool == {"type": "function", "function": {
        "name": "Restaurants_1__FindRestaurants",
        "description": "Find restaurants (service: Restaurant search)",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City"},
                "price": {"type": "string", "description": "Price range", "enum": ["cheap", "moderate"],
                          "default": "dontcare"},
            },
            "required": ["city"],
            "additionalProperties": False,
        }}}
    # a categorical slot without possible values has no enum: JSON schema needs one value at least
    assert agent.slot_property(schema()["slots"][2]) == {"type": "string", "description": "Live music"}


def test_an_intent_naming_an_unknown_slot_is_an_error_naming_it():
    intent = {**schema()["intents"][0], "required_slots": ["town"]}
    with pytest.raises(ValueError, match="Restaurants_1: intent FindRestaurants: required_slots names 'town'"):
        agent.service_tools(schema(intents=[intent]))


def test_results_are_a_json_list_of_objects_that_parses_back():
    result = {"domain": "X_1", "results": [[{"slot": "b", "value": "2"}, {"slot": "a", "value": "é"}], []]}
    text = agent.results_text(result)
    assert text == '[{"b": "2", "a": "é"}, {}]'
    assert json.loads(text) == agent.results_of(result)


def test_plain_messages_drop_placeholders_and_parse_arguments():
    messages = [{"role": "user", "content": "hi", "tool_calls": None, "name": None},
                {"role": "assistant", "content": "", "name": None,
                 "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": '{"a": "1"}'}}]}]
    assert agent.plain_messages(messages) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function",
                                                             "function": {"name": "f", "arguments": {"a": "1"}}}]}]
    tools = [{"type": "function", "function": {"name": "f", "description": "", "parameters": '{"type": "object"}'}}]
    assert agent.plain_tools(tools)[0]["function"]["parameters"] == {"type": "object"}


# ---------------------------------------------------------------- the configs

def source_dialogues(build, variant):
    """The source dialogues of each split, as the ``original`` config gives them."""
    return {split: [mapping.original_to_source(row) for row in ds]
            for split, ds in build_variant(build, "original", variant).items()}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_message_call_result_and_tool_is_the_sources(build, variant):
    chats = build_variant(build, "agent-chat", variant)
    calls = build_variant(build, "agent-call-chat", variant)
    schemas = {split: {row["service_name"]: row for row in ds}
               for split, ds in build_variant(build, "schema", variant).items()}
    instruction = agent.instruction_text()
    for split, dialogues in source_dialogues(build, variant).items():
        rows = chats[split]
        assert [r["original_id"] for r in rows] == [d["dialogue_id"] for d in dialogues]
        assert [r["id"] for r in rows] == [f"sgd/{split}/{d['dialogue_id']}" for d in dialogues]
        by_dialogue = {}
        for row in calls[split]:
            by_dialogue.setdefault(row["dialogue_id"], []).append(row)
        service_calls = 0
        for dialogue, row in zip(dialogues, rows):
            assert agent_check.dialogue_mismatches(dialogue, row, schemas[split], instruction) == [], row["id"]
            own = by_dialogue.pop(row["id"], [])
            turns = [t for t, turn in enumerate(dialogue["turns"]) for f in turn["frames"] if "service_call" in f]
            assert [r["turn_index"] for r in own] == turns
            assert [r["id"] for r in own] == [f"{row['id']}/{t}" for t in turns]
            for call_row in own:
                assert agent_check.call_row_mismatches(call_row, row) == [], call_row["id"]
            service_calls += len(turns)
        assert not by_dialogue
        assert calls[split].num_rows == service_calls > 0


@pytest.mark.parametrize("variant", ["v1", "v4"])
def test_a_variant_uses_its_own_names_and_descriptions_throughout(build, variant):
    plain = build("sgd", "agent-call-chat")["train"][0]
    varied = build_variant(build, "agent-call-chat", variant)["train"][0]
    assert varied["id"] == plain["id"]
    names = [t["function"]["name"] for t in varied["tools"]]
    assert set(names).isdisjoint(t["function"]["name"] for t in plain["tools"])
    assert [t["function"]["description"] for t in varied["tools"]] != \
        [t["function"]["description"] for t in plain["tools"]]
    (call,) = varied["completion"][0]["tool_calls"]
    assert call["function"]["name"] in names
    properties = agent.loaded(varied["tools"][names.index(call["function"]["name"])]["function"]["parameters"])
    assert set(agent.loaded(call["function"]["arguments"])) <= set(properties["properties"])
    assert [m["content"] for m in varied["prompt"][1:]] == [m["content"] for m in plain["prompt"][1:]]


def test_the_leaves_of_varying_shape_are_json_where_datasets_has_it(build):
    row = build("sgd", "agent-call-chat")["train"][0]
    arguments = row["completion"][0]["tool_calls"][0]["function"]["arguments"]
    parameters = row["tools"][0]["function"]["parameters"]
    if agent.HAS_JSON:
        assert isinstance(arguments, dict) and isinstance(parameters, dict)
    else:  # the same content as JSON text, as json.dumps writes it
        assert isinstance(arguments, str) and isinstance(parameters, str)
        assert agent.dumps(json.loads(arguments)) == arguments
        assert agent.dumps(json.loads(parameters)) == parameters


def test_a_user_instruction_replaces_the_default():
    unified = pa.Table.from_pylist([minimal_record()], schema=UNIFIED_FEATURES.arrow_schema)
    (row,) = agent_chat.table(unified, instruction="Be brief.").to_pylist()
    assert row["messages"][0] == {"role": "system", "content": "Be brief.", "tool_calls": None, "name": None}
    (default,) = agent_chat.table(unified).to_pylist()
    assert default["messages"][0]["content"] == templates()["agent"]["default"]


def minimal_record(method="FindRestaurants"):
    """A unified SGD record of two turns, the system turn with a call."""
    def turn(role, utterance, **parts):
        return {"roles": [role], "utterance": utterance, "frames": [{"service": "Restaurants_1", "unseen": False,
                                                                    "slots": []}], "dialog_acts": [], **parts}
    return {
        "dialogue_id": "sgd/train/1_00000", "original_id": "1_00000", "corpus": "sgd", "split": "train",
        "domain": ["Restaurants_1"],
        "knowledge": {"type": "schema", "value": {"text": None, "schema": [schema()]}},
        "dialog": [
            turn("USER", "Find me a place in Paris."),
            turn("SYSTEM", "Here is one.",
                 query={"domain": "Restaurants_1", "method": method,
                        "parameters": [{"slot": "city", "value": "Paris"}]},
                 querying_result={"domain": "Restaurants_1", "results": [[{"slot": "city", "value": "Paris"}]]}),
        ],
    }


def test_a_call_of_an_intent_outside_the_schemas_is_an_error_naming_dialogue_and_turn():
    unified = pa.Table.from_pylist([minimal_record("BookTable")], schema=UNIFIED_FEATURES.arrow_schema)
    with pytest.raises(SourceFormatError, match=r"dialogue sgd/train/1_00000: field 'dialog\[1\]\.query': "
                                                r"Restaurants_1\.BookTable is not an intent"):
        agent_call_chat.table(unified)


def test_a_schema_the_tools_cannot_take_is_an_error_naming_the_service():
    record = minimal_record()
    record["knowledge"]["value"]["schema"][0]["intents"][0]["required_slots"] = ["town"]
    unified = pa.Table.from_pylist([record], schema=UNIFIED_FEATURES.arrow_schema)
    with pytest.raises(SourceFormatError, match=r"service Restaurants_1: field 'knowledge.value.schema': .*'town'"):
        agent_chat.table(unified)


def test_results_without_a_call_are_an_error_naming_the_turn():
    record = minimal_record()
    record["dialog"][1]["query"] = None
    unified = pa.Table.from_pylist([record], schema=UNIFIED_FEATURES.arrow_schema)
    with pytest.raises(SourceFormatError,
                       match=r"field 'dialog\[1\]\.querying_result': the turn has results but no call"):
        agent_chat.table(unified)


# ---------------------------------------------------------------- schema violations

def test_the_fixture_calls_keep_to_their_schemas(build):
    pytest.importorskip("jsonschema")
    for ds in build("sgd", "agent-chat").values():
        assert [v for row in ds for v in agent_check.violations(row)] == []


def test_violations_are_counted_per_kind():
    pytest.importorskip("jsonschema")
    unified = pa.Table.from_pylist([minimal_record()], schema=UNIFIED_FEATURES.arrow_schema)
    (row,) = agent_chat.table(unified).to_pylist()
    broken = copy.deepcopy(row)
    call = broken["messages"][2]["tool_calls"][0]["function"]
    call["arguments"] = agent.dumps({"price": "Cheap", "stars": "5"})  # no city; a price outside; an unknown slot
    kinds = sorted(kind for kind, _ in agent_check.violations(broken))
    assert kinds == sorted([agent_check.KINDS["required"], agent_check.KINDS["enum"],
                            agent_check.KINDS["additionalProperties"]])
    (example,) = [e for k, e in agent_check.violations(broken) if k == agent_check.KINDS["enum"]]
    assert (example["dialogue"], example["turn"], example["tool"], example["at"]) == \
        ("sgd/train/1_00000", 1, "Restaurants_1__FindRestaurants", "price")


# ---------------------------------------------------------------- apply_chat_template

TOOLS_TEMPLATE = (
    "{%- if tools %}<tools>{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}</tools>{% endif %}"
    "{%- for message in messages %}<|{{ message.role }}|>{% if message.name %}[{{ message.name }}]{% endif %}"
    "{{ message.content }}{% if message.tool_calls %}{% for call in message.tool_calls %}"
    "<tool_call>{{ call.function | tojson }}</tool_call>{% endfor %}{% endif %}<|end|>{% endfor %}"
    "{%- if add_generation_prompt %}<|assistant|>{% endif %}"
)


@pytest.fixture(scope="module")
def tokenizer():
    pytest.importorskip("transformers")
    pytest.importorskip("jinja2")  # transformers renders chat templates with it
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = Tokenizer(models.WordLevel({"[UNK]": 0, "<|end|>": 1}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    made = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]", eos_token="<|end|>")
    made.chat_template = TOOLS_TEMPLATE
    return made


def render(tokenizer, messages, tools, **options):
    return tokenizer.apply_chat_template(agent.plain_messages(messages), tools=agent.plain_tools(tools),
                                         tokenize=False, **options)


def test_apply_chat_template_renders_every_tool_call_and_result(build, tokenizer):
    for ds in build("sgd", "agent-chat").values():
        for row in ds:
            text = render(tokenizer, row["messages"], row["tools"])
            for tool in agent.plain_tools(row["tools"]):
                function = tool["function"]
                assert json.dumps(function["name"]) in text and function["description"] in text
                for slot, prop in function["parameters"]["properties"].items():
                    assert json.dumps(slot) in text and prop["description"] in text
            position = 0
            for message in agent.plain_messages(row["messages"]):
                position = text.index(f"<|{message['role']}|>", position)  # in order
                assert text.startswith(message["content"], text.index("|>", position) + 2 +
                                       (len(message["name"]) + 2 if "name" in message else 0))
                for call in message.get("tool_calls", []):
                    rendered = json.loads(text[text.index("<tool_call>", position) + 11:
                                               text.index("</tool_call>", position)])
                    assert rendered == call["function"]


def test_apply_chat_template_prompt_then_completion_as_trl_renders_them(build, tokenizer):
    for ds in build("sgd", "agent-call-chat", variant="v3").values():
        for row in ds:
            prompt = render(tokenizer, row["prompt"], row["tools"], add_generation_prompt=True)
            whole = render(tokenizer, row["prompt"] + row["completion"], row["tools"])
            assert prompt.endswith("<|assistant|>")
            assert whole.startswith(prompt[:-len("<|assistant|>")])
            call = agent.plain_messages(row["completion"])[0]["tool_calls"][0]["function"]
            assert whole.endswith(f"<tool_call>{json.dumps(call, ensure_ascii=False)}</tool_call><|end|>") or \
                json.loads(whole[whole.rindex("<tool_call>") + 11:whole.rindex("</tool_call>")]) == call


# ---------------------------------------------------------------- the configs at load time, and their check

def test_the_instruction_is_an_option_given_at_load_time(build):
    from conftest import checksums, fixture_dir
    from unified_dialogue import load

    for config in ("agent-chat", "agent-call-chat"):
        ds = build("sgd", config, instruction="Call the tools.")["validation"]
        key = "messages" if config == "agent-chat" else "prompt"
        assert {row[key][0]["content"] for row in ds} == {"Call the tools."}
        streamed = load("sgd", config, split="validation", streaming=True, instruction="Call the tools.",
                        data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"))
        assert list(streamed) == ds.to_list()


def test_the_check_command_on_the_fixtures(tmp_path, capsys):
    pytest.importorskip("jsonschema")
    from conftest import checksums, fixture_dir

    status = agent_check.main(["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
                               "--cache-dir", str(tmp_path), "--variant", "v2"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["variant"] == "v2"
    for split in report["splits"].values():
        assert split["counts"]["mismatched_dialogues"] == 0
        assert split["counts"]["tool_calls"] == split["counts"]["service_calls"] == split["counts"]["call_rows"]
        assert {form: scores["joint_accuracy"] for form, scores in split["gold_round_trip"].items()} == \
            {"json": 1.0, "tool_call": 1.0, "openai": 1.0}


# ---------------------------------------------------------------- any names, any values

NAMES = ["Restaurants_1", "FindRestaurants", "", " ", "a b", "a.b", "A__B", "Trailing_", "_lead", "__", "-", "1st",
         "a\nb", "é", "東京", "🙂", "<tool_call>", "</tool_call>", '"', "\\", "{}", "S" * 70, "x__y__z"]
TEXTS = st.one_of(st.sampled_from(NAMES + ["dontcare", "True", "```", "```json\n{}\n```", "\u2028", "x" * 5000]),
                  st.text(max_size=10))


@PURE
@given(TEXTS, TEXTS)
def test_any_service_and_intent_get_a_valid_name_that_maps_back(service, intent):
    name = agent.tool_name(service, intent)
    assert agent.NAME.fullmatch(name) and name.isidentifier() and not keyword.iskeyword(name)
    table = agent.tool_table([schema(service, intents=[{**schema()["intents"][0], "name": intent}])])
    assert agent.split_tool_name(name, table) == (service, intent)
    if agent.readable(service, intent):
        assert agent.split_tool_name(name) == (service, intent)
    else:
        assert SEPARATOR not in name
        with pytest.raises(ValueError, match="without the table of its schemas"):
            agent.split_tool_name(name)


@PURE
@given(st.lists(st.tuples(TEXTS, TEXTS), min_size=2, max_size=8, unique=True))
def test_distinct_pairs_get_distinct_names(pairs):
    assert len({agent.tool_name(*pair) for pair in pairs}) == len(pairs)


def record_of(service, intent, slots, arguments, results):
    """A unified record of one call of ``service``'s ``intent`` with ``arguments``."""
    record = minimal_record()
    slot_records = [{"name": name, "description": name, "is_categorical": False, "possible_values": []}
                    for name in slots]
    record["knowledge"]["value"]["schema"] = [schema(service, slots=slot_records, intents=[{
        "name": intent, "description": intent, "is_transactional": False, "required_slots": list(arguments),
        "optional_slots": [], "result_slots": []}])]
    record["domain"] = [service]
    for turn in record["dialog"]:
        turn["frames"][0]["service"] = service
    call = record["dialog"][1]
    call["query"] = {"domain": service, "method": intent,
                     "parameters": [{"slot": k, "value": v} for k, v in arguments.items()]}
    call["querying_result"] = {"domain": service, "results": [[{"slot": k, "value": v} for k, v in result.items()]
                                                              for result in results]}
    return record


@st.composite
def calls(draw):
    slots = draw(st.lists(TEXTS, min_size=1, max_size=4, unique=True))
    arguments = {slot: draw(TEXTS) for slot in draw(st.lists(st.sampled_from(slots), unique=True))}
    results = draw(st.lists(st.fixed_dictionaries({slot: TEXTS for slot in slots}), max_size=2))
    return record_of(draw(TEXTS), draw(TEXTS), slots, arguments, results), arguments, results


@settings(max_examples=settings().max_examples)  # two small tables an example
@given(calls())
def test_any_arguments_and_results_round_trip_and_the_gold_call_scores_1_in_every_form(drawn):
    record, arguments, results = drawn
    unified = pa.Table.from_pylist([record], schema=UNIFIED_FEATURES.arrow_schema)
    (row,) = agent_call_chat.table(unified).to_pylist()
    (call,) = row["completion"][0]["tool_calls"]
    assert agent.loaded(call["function"]["arguments"]) == arguments
    (chat,) = agent_chat.table(unified).to_pylist()
    assert json.loads(next(m for m in chat["messages"] if m["role"] == "tool")["content"]) == results
    for form in ("json", "tool_call", "openai"):
        text = gold_text(row, form)
        assert parse_tool_calls(text) == [(call["function"]["name"], arguments)], form
        scores = score_tool_calls({row["id"]: text}, [row])
        assert (scores["joint_accuracy"], scores["argument_f1"], scores["malformed"], scores["unknown_tools"]) == \
            (1.0, 1.0, 0, 0), form


def imports_of(module):
    """The modules and names a module imports from (``from . import x``, ``from .x import y``)."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    found = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    return {alias.name for node in found for alias in node.names} | {node.module or "" for node in found}


def test_the_agent_modules_import_one_way():
    assert not {"agent_chat", "agent_call_chat"} & imports_of(agent)
    assert "agent_call_chat" not in imports_of(agent_chat) and "agent_chat" not in imports_of(agent_call_chat)


def test_a_dialogue_the_system_opens_begins_with_the_opening_user_message():
    record = minimal_record()
    record["dialog"] = record["dialog"][1:]  # the system turn, with its call, first
    unified = pa.Table.from_pylist([record], schema=UNIFIED_FEATURES.arrow_schema)
    (chat,) = agent_chat.table(unified).to_pylist()
    assert [m["role"] for m in chat["messages"][:3]] == ["system", "user", "assistant"]
    assert chat["messages"][1]["content"] == text.OPENING and chat["messages"][2]["tool_calls"]
    (call,) = agent_call_chat.table(unified).to_pylist()
    assert [m["role"] for m in call["prompt"]] == ["system", "user"]
    (opened_by_user,) = agent_chat.table(pa.Table.from_pylist([minimal_record()],
                                                              schema=UNIFIED_FEATURES.arrow_schema)).to_pylist()
    assert text.OPENING not in [m["content"] for m in opened_by_user["messages"]]
