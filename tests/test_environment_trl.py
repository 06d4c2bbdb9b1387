"""The TRL binding: tools as methods that ``transformers.utils.get_json_schema`` reads as
``agent-call-chat``'s tools (on the fixtures and on generated schemas with keywords,
non-identifiers and unicode for names, and any descriptions), slot names made parameters
and mapped back, tools found as TRL finds them, and everything pickles."""

import inspect
import json
import keyword
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from transformers.utils import get_json_schema

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.chat.agent import service_tools
from unified_dialogue.environment import binding, gold
from unified_dialogue.testing.strategies.text import names, values

PURE = pytest.mark.filterwarnings("ignore")


def trl_tools(environment):
    """The tools as TRL 1.16 lists them: the class's functions but reset, get_reward and
    the private ones, bound to the instance."""
    return [getattr(environment, name) for name, _ in inspect.getmembers(type(environment), predicate=inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")]


def expected_schema(tool):
    """An ``agent-call-chat`` tool as get_json_schema gives it from the method: no
    ``additionalProperties``, the default said in the description, ``required`` left out
    where empty, the parameters named by ``binding.parameter_name``."""
    function = tool["function"]
    properties, taken = {}, {}
    for slot, prop in function["parameters"]["properties"].items():
        name = binding.parameter_name(slot, taken)
        taken[name] = slot
        text = binding.argument_text(prop, slot, name)
        properties[name] = {**{k: v for k, v in prop.items() if k != "default"}, "description": text}
    renamed = {slot: name for name, slot in taken.items()}
    parameters = {"type": "object", "properties": properties}
    if function["parameters"]["required"]:
        parameters["required"] = [renamed[slot] for slot in function["parameters"]["required"]]
    return {"type": "function", "function": {"name": function["name"],
                                             "description": binding.one_line(function["description"])
                                             or function["name"],
                                             "parameters": parameters}}


def assert_tools_as_agent_call_chat(schemas, mode):
    environment = binding.Factory(json.dumps(schemas), mode, "unused.sqlite")()
    made = {method.__name__: get_json_schema(method) for method in trl_tools(environment)}
    expected = {tool["function"]["name"]: expected_schema(tool) for schema in schemas for tool in service_tools(schema)}
    if mode == "replay":
        assert made.pop("send_message_to_user")["function"]["parameters"]["required"] == ["message"]
    assert made == expected


@pytest.fixture(scope="module")
def fixture_episodes(tmp_path_factory):
    options = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"),
               "cache_dir": str(tmp_path_factory.mktemp("trl"))}
    return options, binding.trl("validation", mode="replay", get_reward=True, **options)


def test_the_fixtures_tools_read_back_as_agent_call_chats(fixture_episodes):
    options, (rows, factories) = fixture_episodes
    schemas = list(load("sgd", "schema", split="validation", **options))
    for mode in ("ticket", "replay"):
        assert_tools_as_agent_call_chat(schemas, mode)
    for schema in schemas:  # SGD's descriptions are kept as they are
        for tool in service_tools(schema):
            assert binding.one_line(tool["function"]["description"]) == tool["function"]["description"]
            for slot, prop in tool["function"]["parameters"]["properties"].items():
                default = f" (default: {prop['default']})" if "default" in prop else ""
                assert binding.argument_text(prop, slot, slot) == prop["description"] + default
    assert set(factories) == set(rows["environment"])


def test_the_gold_agent_through_the_methods_earns_1_and_everything_pickles(fixture_episodes):
    options, (rows, factories) = fixture_episodes
    chats = {row["dialogue_id"]: row["messages"] for row in load("sgd", "agent-chat", split="validation", **options)}
    factories = pickle.loads(pickle.dumps(factories))
    function = pickle.loads(pickle.dumps(binding.reward_function()))
    for row in rows:
        environment = factories[row["environment"]]()
        environment.reset(**{key: value for key, value in row.items() if key != "environment"})
        tools = {method.__name__: method for method in trl_tools(environment)}
        final = gold.play(None, gold.actions(chats[row["dialogue_id"]], "replay"),
                          call=lambda name, arguments: tools[name](**arguments))
        again = pickle.loads(pickle.dumps(environment))
        completion = [{"role": "assistant", "content": final}]
        assert environment.get_reward() == again.get_reward() == 1.0
        assert function(prompts=[row["prompt"]], completions=[completion], environments=[again]) == [1.0]
        assert function(completions=[[{"role": "assistant", "content": "", "tool_calls": [{}]}]],
                        environments=[factories[row["environment"]]()]) == [0.0]  # never reset, cut short
    plain = binding.trl("validation", **options).environment_factory
    assert all(not hasattr(factory(), "get_reward") for factory in plain.values())


def test_a_tool_before_reset_and_an_unknown_part_say_what_to_do():
    schema = {"service_name": "S_1", "description": "", "slots": [], "intents": [
        {"name": "Q", "description": "", "is_transactional": False, "required_slots": [], "optional_slots": [],
         "result_slots": []}]}
    environment = binding.Factory(json.dumps([schema]), "ticket", "unused.sqlite")()
    assert json.loads(environment.S_1__Q()) == {"error": binding.NOT_BEGUN}
    with pytest.raises(ValueError, match="no reward part 'joy'"):
        binding.reward_function("joy")


# ---------------------------------------------------------------- any names, any descriptions

SLOT_NAMES = st.one_of(st.sampled_from(["from", "class", "self", "lambda", "a b", "2nd", "", "ünï", "x-y", "from_",
                                        "Args", "None", "_", "__init__"]), names())


@st.composite
def schemas(draw):
    slots = draw(st.lists(SLOT_NAMES, min_size=1, max_size=5, unique=True))
    described = st.one_of(values(), st.sampled_from(["Args: x", "XArgs: y", "a Returns: b", '(choices: ["a"])', "",
                                                      "Returns:\nno", "a\n\nb"]))
    slot_records = [{"name": slot, "description": draw(described), "is_categorical": draw(st.booleans()),
                     "possible_values": draw(st.lists(values(), max_size=3, unique=True))} for slot in slots]
    required = draw(st.lists(st.sampled_from(slots), unique=True))
    optional = [{"slot": slot, "value": draw(values())} for slot in slots if slot not in required]
    return [{"service_name": draw(st.sampled_from(["Trains_1", "a b", "ünï", "S"])), "description": draw(described),
             "slots": slot_records,
             "intents": [{"name": draw(st.sampled_from(["Find", "class", "x y"])), "description": draw(described),
                          "is_transactional": True, "required_slots": required, "optional_slots": optional,
                          "result_slots": slots}]}]


@PURE
@given(schemas(), st.sampled_from(["ticket", "replay"]))
def test_any_schema_reads_back_as_agent_call_chats_tools(made, mode):
    assert_tools_as_agent_call_chat(made, mode)


@PURE
@given(schemas())
def test_each_parameter_maps_back_to_its_slot(made):
    environment = binding.Factory(json.dumps(made), "ticket", "unused.sqlite")()
    calls = []
    environment._episode = type("Recorder", (), {"call": lambda self, name, arguments: calls.append(arguments)})()
    (method,) = trl_tools(environment)
    parameters = list(inspect.signature(method).parameters)
    assert all(p.isidentifier() and p.isascii() and not keyword.iskeyword(p) for p in parameters)
    method(**{parameter: f"v{k}" for k, parameter in enumerate(parameters)})
    slots = [slot for slot in made[0]["intents"][0]["required_slots"]] + \
        [pair["slot"] for pair in made[0]["intents"][0]["optional_slots"]]
    assert calls == [{slot: f"v{k}" for k, slot in enumerate(slots)}]


@pytest.mark.parametrize("slot,parameter", [("from", "from_"), ("class", "class_"), ("self", "self_"),
                                            ("number of rooms", "number_of_rooms"), ("2nd", "slot_2nd"),
                                            ("ünï", "_n_"), ("", "slot_"), ("city", "city")])
def test_the_parameter_rule(slot, parameter):
    assert binding.parameter_name(slot) == parameter
    assert binding.parameter_name(slot, {parameter: "taken"}) == parameter + "_"
