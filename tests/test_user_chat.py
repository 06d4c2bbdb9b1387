"""user-chat: SGD's user turns as chat, the roles swapped, each row's system message the
user's goal for the whole dialogue (the text of the environment's ticket mode). Checked
against the unified records: the goal is the whole dialogue's and holds every value a user
turn informs, the turns before the row's are each side's as its swapped role, the last user
turn ends with the stop marker; the pure rendering of a row gives the same messages. The
shared corpus test case runs on the config too (features, counts, streaming, and the prefix
test: nothing after the row's turn but the goal, one per dialogue)."""

import pyarrow as pa
import pytest
from datasets import Features
from hypothesis import given, strategies as st

from loaders.sgd.corpus import CLOSING_ACTS
from unified_dialogue import chat, views
from unified_dialogue.chat import text, user
from unified_dialogue.chat.ticket import ticket
from unified_dialogue.core.answer import answer
from unified_dialogue.core.features import DIALOG_ACT
from unified_dialogue.testing.strategies.text import names, values
from unified_dialogue.views.goals import canonical, goal

SPLITS = ("train", "validation", "test")


def records_of(build, split):
    return {r["dialogue_id"]: r for r in build("sgd")[split]}


def schemas_of(record):
    return {s["service_name"]: s for s in record["knowledge"]["value"]["schema"]}


def acts_of(turn):
    return [act["act"] for act in turn["dialog_acts"] or ()]


@pytest.mark.parametrize("split", SPLITS)
def test_each_row_is_a_user_turn_with_the_whole_dialogues_goal_and_the_roles_swapped(build, split):
    records = records_of(build, split)
    rows = build("sgd", "user-chat")[split]
    assert rows.features == chat.FEATURES
    seen = set()
    for row in rows:
        record = records[row["dialogue_id"]]
        dialog, turn = record["dialog"], row["turn_index"]
        assert dialog[turn]["roles"] == ["USER"] and row["id"] == f"{record['dialogue_id']}/{turn}"
        prompt, completion = row["prompt"], row["completion"]
        assert row["messages"] == prompt + completion
        # the system message: the instruction, then the goal of the whole dialogue
        goal_text = ticket(goal(dialog, schemas_of(record)), schemas_of(record))
        assert prompt[0] == {"role": "system", "content": user.system_message(goal_text)}
        assert user.STOP in prompt[0]["content"] and "{stop}" not in prompt[0]["content"]
        # the turns before, the user's as the assistant's; the user's turn the completion
        sides = [("assistant" if t["roles"] == ["USER"] else "user", t["utterance"]) for t in dialog[:turn]]
        assert prompt[1:] == text.conversation(sides), row["id"]
        last = max(k for k, t in enumerate(dialog) if t["roles"] == ["USER"])
        ends = user.closes(acts_of(dialog[turn]), CLOSING_ACTS)
        assert ends == (turn == last), row["id"]  # the corpus's rule holds on the fixtures
        assert completion == [{"role": "assistant", "content": user.completion_text(dialog[turn]["utterance"], ends)}]
        assert user.reading(completion[0]["content"]) == (dialog[turn]["utterance"].strip(), ends, [])
        seen.add((record["dialogue_id"], turn))
    assert seen == {(d, k) for d, r in records.items() for k, t in enumerate(r["dialog"]) if t["roles"] == ["USER"]}


def test_every_value_a_user_turn_informs_is_in_its_rows_goal(build):
    checked = 0
    for split in SPLITS:
        records = records_of(build, split)
        for row in build("sgd", "user-chat")[split]:
            record = records[row["dialogue_id"]]
            wanted = goal(record["dialog"], schemas_of(record))
            constraints = {(entry["service"], c["slot"]): c["values"] for entry in wanted["intents"]
                           for c in entry["constraints"]}
            for act in record["dialog"][row["turn_index"]]["dialog_acts"] or ():
                if act["act"] != "INFORM":
                    continue
                for pair in act["slot_value_table"]:
                    for value in pair["values"]:
                        assert canonical(value) in constraints[(act["domain"], pair["slot"])], row["id"]
                        assert canonical(value) in row["prompt"][0]["content"], row["id"]
                        checked += 1
    assert checked == 15  # counted in the fixture files: the user INFORM acts' values


def test_the_pure_rendering_of_a_row_gives_the_built_messages(build):
    for split in SPLITS:
        records = records_of(build, split)
        user_rows = {r["id"]: r for r in views.apply("response", build("sgd")[split], role="USER")}
        for row in build("sgd", "user-chat")[split]:
            record = records[row["dialogue_id"]]
            goal_text = ticket(goal(record["dialog"], schemas_of(record)), schemas_of(record))
            assert user.messages(user_rows[row["id"]], goal_text=goal_text, closing=CLOSING_ACTS) == \
                {"prompt": row["prompt"], "completion": row["completion"]}, row["id"]


def test_every_row_of_a_dialogue_has_one_system_message_and_one_turn_ends(build):
    for split in SPLITS:
        by_dialogue = {}
        for row in build("sgd", "user-chat")[split]:
            by_dialogue.setdefault(row["dialogue_id"], []).append(row)
        for dialogue_id, rows in by_dialogue.items():
            assert len({r["prompt"][0]["content"] for r in rows}) == 1, dialogue_id
            ends = [user.reading(r["completion"][0]["content"])[1] for r in rows]
            assert ends == [False] * (len(rows) - 1) + [True], dialogue_id


def test_the_instruction_is_the_users_where_given_with_the_stop_marker_for_its_placeholder(build):
    rows = build("sgd", "user-chat", instruction="Be the user; end with {stop}.")["validation"]
    assert all(r["prompt"][0]["content"].startswith(f"Be the user; end with {user.STOP}.\n\nHere is what I need")
               for r in rows)
    assert chat.instruction("user").count("{stop}") == 1


def test_apply_gives_the_loaders_rows_for_any_unified_dataset(build):
    unified = build("sgd")["train"]
    applied = chat.apply("user", unified, batch_size=2, role="USER", closing=CLOSING_ACTS)
    assert applied.to_list() == build("sgd", "user-chat")["train"].to_list()


def test_an_sgdx_variant_writes_the_goal_with_the_variants_descriptions(build):
    original = build("sgd", "user-chat")["validation"]
    variant = build("sgd", "user-chat", variant="v5")["validation"]
    assert original["completion"] == variant["completion"] and original["id"] == variant["id"]
    assert original["prompt"] != variant["prompt"]


# ---------------------------------------------------------------- the stop marker and the closing acts

@given(values(), st.booleans())
def test_a_completion_reads_back_as_its_words_and_whether_it_ends(words, ends):
    if words.rstrip().endswith(user.STOP) or answer(words)[0] != words.strip():
        return  # words the marker, or a reasoning marker in them, cannot tell apart (docs/views.md)
    assert user.reading(user.completion_text(words, ends)) == (words.strip(), ends, [])


def test_a_models_turn_is_read_without_a_reasoning_block_or_a_fence():
    assert user.reading(f"<think>They are done.</think>Bye! {user.STOP}\n") == ("Bye!", True, [])
    assert user.reading("Somewhere in SF. ") == ("Somewhere in SF.", False, [])
    assert user.reading(f"```\nThanks. {user.STOP}\n```") == ("Thanks.", True, [])
    assert user.reading(f"{user.STOP} is what I say at the end") == (f"{user.STOP} is what I say at the end", False, [])
    words, ends, problems = user.reading("<think>The user wants a table, so")
    assert (words, ends, [problem.kind for problem in problems]) == ("", False, ["malformed"])


ACT_NAMES = st.lists(st.sampled_from(["GOODBYE", "NEGATE", "THANK_YOU", "INFORM", "SELECT", "AFFIRM"]), max_size=4)


@given(st.lists(ACT_NAMES, min_size=1, max_size=6), st.lists(st.lists(names(), min_size=1, max_size=2), max_size=3))
def test_the_closing_rows_are_the_turns_whose_acts_close(rows, closing):
    closing = [tuple(acts) for acts in closing] + [("GOODBYE",), ("NEGATE", "THANK_YOU")]
    acts = pa.array([[{"act": name, "slot_value_table": None, "domain": None} for name in names_]
                     for names_ in rows], Features({"acts": [DIALOG_ACT]}).arrow_schema.field("acts").type)
    assert user.closing_rows(acts, closing).tolist() == [user.closes(names_, closing) for names_ in rows]


def test_the_closing_acts_are_every_act_of_one_set():
    assert user.closes(["THANK_YOU", "GOODBYE"], CLOSING_ACTS)
    assert user.closes(["NEGATE", "THANK_YOU"], CLOSING_ACTS)
    assert not user.closes(["THANK_YOU"], CLOSING_ACTS) and not user.closes(["NEGATE"], CLOSING_ACTS)
    assert not user.closes(["GOODBYE"], ())
