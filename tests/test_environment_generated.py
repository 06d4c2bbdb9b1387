"""The environment on generated SGD copies (``loaders/sgd/strategies.py``: adversarial service,
intent and slot names and values, SGD-X variants): the gold agent, through the TRL binding's
methods (slot names made parameters and mapped back), gets each call's recorded rows and
the dialogue's transactions and final queries, in both modes."""

import inspect
import shutil

from hypothesis import given, settings
from hypothesis import strategies as st

from loaders.sgd import strategies as sgd
from unified_dialogue import load
from unified_dialogue.environment import binding, gold, reward
from unified_dialogue.tools.environment_check import recorded_answers

# A generated corpus costs several dataset builds per example: 4 examples under ``ci``.
EXAMPLES = max(1, round(settings.default.max_examples / 15))


def methods(environment):
    return {name: getattr(environment, name) for name, _ in inspect.getmembers(type(environment), inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")}


@settings(max_examples=EXAMPLES)
@given(corpus=sgd.corpora(), use_variant=st.booleans(), mode=st.sampled_from(["ticket", "replay"]))
def test_the_gold_agent_through_the_methods_gets_the_recorded_rows_and_the_outcome(tmp_path_factory, corpus,
                                                                                    use_variant, mode):
    folder = tmp_path_factory.mktemp("generated")
    try:
        kwargs = corpus.load_kwargs(folder, use_variant)
        options = {**kwargs, "cache_dir": str(folder / "cache")}
        for split in ("train", "validation", "test"):
            rows, factories = binding.trl(split, mode=mode, **options)
            chats = {row["dialogue_id"]: row["messages"] for row in load("sgd", "agent-chat", split=split, **options)}
            recorded = {}
            for call in load("sgd", "database", split=split, **options):
                recorded.setdefault(call["dialogue_id"], []).append(call)
            for row in rows:
                environment = factories[row["environment"]]()
                environment.reset(**{key: value for key, value in row.items() if key != "environment"})
                tools = methods(environment)

                def call(name, arguments):
                    slots = {}
                    for slot in environment._services.tools[name].properties if name in tools and \
                            name != gold.SEND else ():
                        slots[binding.parameter_name(slot, slots)] = slot
                    renamed = {parameter: arguments[slot] for parameter, slot in slots.items() if slot in arguments}
                    unknown = {slot: value for slot, value in arguments.items() if slot not in slots.values()}
                    return tools[name](**renamed, **unknown)

                gold.play(None, gold.actions(chats[row["dialogue_id"]], mode, row["outcome"]), call=call)
                episode = environment._episode
                assert recorded_answers(episode, recorded.get(row["dialogue_id"], [])), row["dialogue_id"]
                parts = reward.parts(episode, None, judge_told=False)
                assert parts["transaction_precision"] == parts["transaction_recall"] == 1.0, row["dialogue_id"]
                assert parts["items_found"] == 1.0 and parts["reward"] == 1.0, row["dialogue_id"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
