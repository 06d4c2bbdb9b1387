"""Chat configs: every view of every corpus as conversations. Each chat row is checked
against its view row (the same ids, the completion the view's target), against the pure
Python rendering of that row (``chat.<view>.messages``), and against the unified record
(the turns up to the row's alone, each side as its role). The shared corpus test case
also runs on every chat config (features, counts, streaming, processes, and the prefix
test: nothing after the row's turn)."""

import json

import pytest

from loaders.sgd.format import ACTS
from unified_dialogue import chat
from unified_dialogue.chat import state, text

pytestmark = pytest.mark.both_lines

# (corpus, view, the view's corpus options, the responding role)
CASES = [
    ("sgd", "dst", {}, "SYSTEM"),
    ("sgd", "nlg", {"act_names": ACTS}, "SYSTEM"),
    ("sgd", "response", {}, "SYSTEM"),
    ("sgd", "nlu", {}, "SYSTEM"),
    ("ccpe", "response", {}, "ASSISTANT"),
    ("ccpe", "nlu", {}, "ASSISTANT"),
    ("faithdial", "response", {}, "Wizard"),
]
IDS = [f"{corpus}-{view}" for corpus, view, _, _ in CASES]


def records_of(build, corpus):
    return {r["dialogue_id"]: r for ds in build(corpus).values() for r in ds}


def services_until(record, turn):
    """The schemas of the services the record's frames use in turns 0 … ``turn``."""
    schemas = {s["service_name"]: s for s in ((record["knowledge"] or {}).get("value") or {}).get("schema") or []}
    used = dict.fromkeys(f["service"] for t in record["dialog"][:turn + 1] for f in t["frames"] or [])
    return [schemas[s] for s in used if s in schemas]


def turns_shown(view, record, turn):
    """The turns of the record a row's prompt shows, as (role, utterance)."""
    dialog = record["dialog"]
    shown = {"dst": dialog[:turn + 1], "nlu": dialog[turn:turn + 1]}.get(view, dialog[:turn])
    return [("/".join(t["roles"]), t["utterance"]) for t in shown]


def normalised(frames):
    return sorted((f["service"], f["state"]["active_intent"], tuple(sorted(f["state"]["requested_slots"])),
                   tuple(sorted((e["slot"], tuple(e["values"])) for e in f["state"]["slot_values"]))) for f in frames)


@pytest.mark.parametrize("corpus, view, options, responding", CASES, ids=IDS)
def test_chat_rows_are_their_view_rows_as_messages(build, corpus, view, options, responding):
    records = records_of(build, corpus)
    module = chat.MODULES[view]
    for split, chats in build(corpus, f"{view}-chat").items():
        rows = build(corpus, view)[split]
        assert chats.features == chat.FEATURES
        assert chats["id"] == rows["id"]
        for chat_row, row in zip(chats, rows):
            turn = chat_row["turn_index"]
            record = records[chat_row["dialogue_id"]]
            assert chat_row["id"] == f"{record['dialogue_id']}/{turn}"
            prompt, completion = chat_row["prompt"], chat_row["completion"]
            assert chat_row["messages"] == prompt + completion
            assert [m["role"] for m in completion] == ["assistant"] and prompt[0]["role"] == "system"
            # the pure rendering of the view row gives the same messages
            extra = {"act_names": ACTS} if view == "nlg" else {}
            assert module.messages(row, services=services_until(record, turn), **extra) == \
                {"prompt": prompt, "completion": completion}, chat_row["id"]
            # the completion is the view's target
            content = completion[0]["content"]
            if view == "response":
                assert content == row["response"]
            elif view == "nlg":
                assert content == row["target"]
            elif view == "dst":
                frames, problems = state.parse(content, services_until(record, turn))
                assert not problems and normalised(frames) == normalised(row["frames"]), chat_row["id"]
            else:
                assert all(span["text"] in content or text.value(span["text"]) in content for span in row["spans"])
            # the turns shown are exactly those up to the row's turn, each side as its role;
            # turns of one side in a row are one message, none dropped
            shown = turns_shown(view, record, turn)
            sides = [("assistant" if role == responding else "user", u) for role, u in shown]
            if view == "nlu":
                sides = [("user", u) for _, u in shown]
            assert prompt[1:] == text.conversation(sides), chat_row["id"]
            # the user speaks first and last before the completion: an opening user message
            # where the user has no turn before the assistant's first, one after the
            # assistant's last where it spoke just before the completion; every turn kept
            assert prompt[1]["role"] == prompt[-1]["role"] == "user"
            opened = not sides or sides[0][0] == "assistant"
            going_on = bool(sides) and sides[-1][0] == "assistant"
            assert (prompt[1] == {"role": "user", "content": text.OPENING}) == opened, chat_row["id"]
            assert (prompt[-1] == {"role": "user", "content": text.GO_ON}) == going_on, chat_row["id"]
            turns = prompt[1 + opened:len(prompt) - going_on]
            assert "\n".join(m["content"] for m in turns) == "\n".join(u for _, u in shown)
            if view == "dst":
                assert prompt[-1]["role"] == "user"  # the turn tracked
            # the grounding: the services used so far, no other
            names = [s["service_name"] for s in services_until(record, turn)]
            listed = [line.split(":")[0] for line in prompt[0]["content"].split("\n") if line.split(":")[0] in
                      {s["service_name"] for s in (record["knowledge"] or {}).get("value", {}).get("schema") or []}]
            assert listed == names, chat_row["id"]


def test_each_corpus_grounds_its_system_message_in_what_the_row_may_use(build):
    sgd = build("sgd", "response-chat")["train"]
    with_call = [r for r in sgd if "Service call:" in r["prompt"][0]["content"]]
    assert with_call and all("\nResults:" in r["prompt"][0]["content"] for r in with_call)
    row = build("sgd", "response")["train"][sgd["id"].index(with_call[0]["id"])]
    call = row["query"]
    assert f"Service call: {call['domain']}.{call['method']}(" in with_call[0]["prompt"][0]["content"]
    faithdial = build("faithdial", "response-chat")["train"]
    for chat_row, row in zip(faithdial, build("faithdial", "response")["train"]):
        assert chat_row["prompt"][0]["content"].endswith(f"\n\nKnowledge: {row['knowledge']}")
    ccpe = build("ccpe", "response-chat")["train"]
    assert {r["prompt"][0]["content"] for r in ccpe} == {chat.instruction("response")}
    nlg = build("sgd", "nlg-chat")["train"][0]["prompt"][0]["content"]
    assert "\n\nActs: " in nlg and "Services:\n" in nlg


def test_consecutive_turns_of_one_side_become_one_message_never_dropped(build):
    joined = [m for r in build("ccpe", "response-chat")["train"] for m in r["prompt"][1:] if "\n" in m["content"]]
    assert joined  # CCPE-M has users speaking twice in a row
    assert text.conversation([("user", "a"), ("user", "b"), ("assistant", "c"), ("assistant", "d"), ("user", "e")]) \
        == [{"role": "user", "content": "a\nb"}, {"role": "assistant", "content": "c\nd"},
            {"role": "user", "content": "e"}]


def test_chat_rows_of_all_corpora_concatenate(build):
    import datasets

    parts = [build(corpus, "response-chat")["train"] for corpus in ("sgd", "ccpe", "faithdial")]
    together = datasets.concatenate_datasets(parts)
    assert together.num_rows == sum(p.num_rows for p in parts)


def test_the_instruction_is_the_users_where_given(build):
    rows = build("sgd", "dst-chat", instruction="Track the state.")["validation"]
    assert all(r["prompt"][0]["content"].startswith("Track the state.\n\nServices:\n") for r in rows)
    default = build("sgd", "dst-chat")["validation"][0]["prompt"][0]["content"]
    assert default.startswith(chat.instruction("dst") + "\n\n")
    assert set(chat.templates()) == set(chat.MODULES) | {"agent"}  # agent: the tool-calling configs
    assert all(set(named) >= {"default"} for named in chat.templates().values())


def test_apply_gives_the_loaders_chat_rows_for_any_unified_dataset(build):
    unified = build("ccpe")["train"]
    applied = chat.apply("response", unified, batch_size=3, role="ASSISTANT")
    assert applied.to_list() == build("ccpe", "response-chat")["train"].to_list()
    mine = chat.apply("nlu-chat", unified, instruction="Label it.")
    assert mine[0]["prompt"][0]["content"].startswith("Label it.")


def test_a_service_without_a_schema_is_an_error_naming_the_dialogue(build):
    from unified_dialogue.core.errors import SourceFormatError

    unified = build("sgd")["train"].select(range(1))
    record = unified[0]
    record["knowledge"]["value"]["schema"] = record["knowledge"]["value"]["schema"][1:]
    dropped = unified[0]["knowledge"]["value"]["schema"][0]["service_name"]
    damaged = unified.from_list([record], features=unified.features)
    with pytest.raises(SourceFormatError, match=f"dialogue {record['dialogue_id']}: .*no schema of service "
                                                f"'{dropped}'"):
        chat.apply("dst-chat", damaged)


def test_an_sgdx_variant_is_rendered_with_the_variants_schemas(build):
    rows = build("sgd", "dst-chat", variant="v2")["validation"]
    schemas = build("sgd", "schema", variant="v2")["validation"]
    variant_services = {r["service_name"] for r in schemas}
    for row in rows:
        frames, problems = state.parse(row["completion"][0]["content"], schemas)
        assert not problems and {f["service"] for f in frames} <= variant_services


# ---------------------------------------------------------------- the state text and its parser

SCHEMAS = [
    {"service_name": "Restaurants_1", "description": "Find restaurants", "slots": [
        {"name": "city", "description": "City", "is_categorical": False, "possible_values": []},
        {"name": "restaurant_name", "description": "Name", "is_categorical": False, "possible_values": []},
        {"name": "time", "description": "Time", "is_categorical": False, "possible_values": []},
        {"name": "has_live_music", "description": "Music", "is_categorical": True,
         "possible_values": ["True", "False"]},
        {"name": "price_range", "description": "Price", "is_categorical": True,
         "possible_values": ["cheap", "moderate", "ultra high-end"]},
    ], "intents": [{"name": "FindRestaurants", "description": "Find"},
                   {"name": "ReserveRestaurant", "description": "Book"}]},
    {"service_name": "Movies_1", "description": "Films", "slots": [
        {"name": "location", "description": "Where", "is_categorical": False, "possible_values": []},
    ], "intents": [{"name": "FindMovies", "description": "Find"}]},
]


def frame(service, intent="NONE", requested=(), **slot_values):
    return {"service": service, "slots": None, "state": {
        "active_intent": intent, "requested_slots": list(requested),
        "slot_values": [{"slot": slot, "values": list(v)} for slot, v in slot_values.items()]}}


GOLD = [frame("Restaurants_1", "FindRestaurants", ["time", "city"], city=["San Jose", "SJ"],
              restaurant_name=["Ginza | Japanese Sushi Restaurant"], time=['8 o"clock', "4:15 pm"],
              price_range=["ultra high-end"]),
        frame("Movies_1", "NONE", location=[" London, England "])]


def test_the_state_text_is_deterministic_and_reads_back():
    written = state.state_text(GOLD)
    assert written.splitlines() == [
        'Restaurants_1: intent=FindRestaurants; requested=[city, time]; city=San Jose | SJ; '
        'price_range=ultra high-end; restaurant_name="Ginza | Japanese Sushi Restaurant"; '
        'time="8 o\\"clock" | 4:15 pm',
        'Movies_1: intent=NONE; location=" London, England "',
    ]
    frames, problems = state.parse(written, SCHEMAS)
    assert problems == [] and normalised(frames) == normalised(GOLD)
    assert frames[0]["slots"] is None  # no spans: slot tagging is not scored


@pytest.mark.parametrize("written, expected", [
    # spaces, case of every name, categorical values given back in the schema's spelling
    ("  restaurants_1 :  INTENT = findrestaurants ;  City =  san jose  ; HAS_LIVE_MUSIC= true;price_range=Cheap ",
     [frame("Restaurants_1", "FindRestaurants", city=["san jose"], has_live_music=["True"], price_range=["cheap"])]),
    # quotes of either kind; items in any order; requested without brackets
    ("Restaurants_1: city='San Jose'; requested=time, city; restaurant_name=\"Nopa\"; intent=ReserveRestaurant",
     [frame("Restaurants_1", "ReserveRestaurant", ["time", "city"], city=["San Jose"], restaurant_name=["Nopa"])]),
    # two frames on one line; a service named twice is one frame
    ("Movies_1: intent=FindMovies; location=SF; Restaurants_1: city=SF\nMovies_1: location=LA",
     [frame("Movies_1", "FindMovies", location=["LA"]), frame("Restaurants_1", city=["SF"])]),
    # a bare quote inside a value is part of the value
    ('Restaurants_1: time=8 o"clock; city=SF', [frame("Restaurants_1", time=['8 o"clock'], city=["SF"])]),
    ("Restaurants_1: intent=none", [frame("Restaurants_1")]),
    # an empty text: a turn without frames
    ("", []),
])
def test_the_parser_reads_noisy_text(written, expected):
    frames, problems = state.parse(written, SCHEMAS)
    assert problems == [] and normalised(frames) == normalised(expected)


@pytest.mark.parametrize("written, expected, problem, kind", [
    # a cut-off end: what is there is read, an unfinished name is reported
    ("Restaurants_1: intent=FindRestaurants; requested=[time, ci",
     [frame("Restaurants_1", "FindRestaurants", ["time"])], "unknown slot 'ci' requested", "unknown_slot"),
    ('Restaurants_1: intent=FindRestaurants; city="San Jo',
     [frame("Restaurants_1", "FindRestaurants", city=["San Jo"])], None, None),
    ("Restaurants_1: intent=FindRestaurants; cit", [frame("Restaurants_1", "FindRestaurants")], "is not name=value",
     "malformed"),
    ("Hotels_9: intent=X; city=Y\nMovies_1: location=SF", [frame("Movies_1", location=["SF"])],
     "unknown service 'Hotels_9'", "unknown_service"),
    ("Restaurants_1: cuisine=Thai", [frame("Restaurants_1")], "unknown slot 'cuisine'", "unknown_slot"),
    # an intent the schema does not have is kept as written (scored wrong), and reported
    ("Restaurants_1: intent=BookTable", [frame("Restaurants_1", "BookTable")], "unknown intent 'BookTable'",
     "unknown_intent"),
    ("city=SF", [], "before any service", "malformed"),
    ("I am not sure what you mean.", [], "before any service", "malformed"),
    (None, [], "no text", "malformed"),
])
def test_the_parser_reports_what_it_cannot_read_and_never_raises(written, expected, problem, kind):
    frames, problems = state.parse(written, SCHEMAS)
    assert normalised(frames) == normalised(expected)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in str(p) for p in problems), problems
        assert {p.kind for p in problems} == {kind}


def frames_table(*rows):
    """A pa.Table of dst rows holding only ``frames``, typed as the view types them."""
    import pyarrow as pa

    from unified_dialogue.views import dst as dst_view

    return pa.table({"frames": pa.array(rows, dst_view.SCHEMA.field("frames").type)})


def test_the_table_path_writes_the_state_text_of_each_row():
    empty = frame("Hotels_2", None)
    empty["state"]["active_intent"] = ""
    twice = frame("Movies_1", "NONE", location=["b"], **{"location-x": ["a"]})
    twice["state"]["slot_values"].append({"slot": "location", "values": ["a"]})  # a slot twice: by value too
    rows = [GOLD, GOLD[1:], [], [empty, GOLD[0]], [twice]]
    assert chat.MODULES["dst"].targets(frames_table(*rows)).to_pylist() == [state.state_text(r) for r in rows]


def test_the_table_path_writes_the_nlu_text_of_each_row():
    import pyarrow as pa

    from unified_dialogue.views import nlu as nlu_view

    def span(domain, kind, text="x"):
        return {"domain": domain, "label": "L", "type": kind, "text": text, "start": 0, "end": 1}

    rows = [{"spans": [span(None, None), span("", ""), span("D", "T", "a; b")], "intents": ["I", "J"]},
            {"spans": [], "intents": None}, {"spans": [span("D", None)], "intents": []}]
    schema = nlu_view.SCHEMA
    table = pa.table({name: pa.array([row[name] for row in rows], schema.field(name).type) for name in rows[0]})
    module = chat.MODULES["nlu"]
    assert module.targets(table).to_pylist() == [module.target(row) for row in rows]


@pytest.mark.parametrize("path", ["text", "table"])
def test_a_slot_named_like_a_keyword_is_written_quoted_and_reads_back(path):
    frames = [GOLD[1], {"service": "X_1", "slots": None, "state": {
        "active_intent": "NONE", "requested_slots": ["requested"],
        "slot_values": [{"slot": "intent", "values": ["x"]}, {"slot": "requested", "values": ["y"]}]}}]
    written = state.state_text(frames) if path == "text" else \
        chat.MODULES["dst"].targets(frames_table(GOLD, frames)).to_pylist()[1]
    assert written.splitlines()[1] == 'X_1: intent=NONE; requested=["requested"]; "intent"=x; "requested"=y'
    schemas = SCHEMAS + [{"service_name": "X_1", "intents": [], "slots": [{"name": "intent"}, {"name": "requested"}]}]
    assert state.parse(written, schemas) == (frames, [])


@pytest.mark.parametrize("instruction", ["Do it.", ""])
def test_system_messages_made_by_arrow_are_those_made_row_by_row(instruction):
    import pyarrow as pa

    parts = [["Services:\nA", "", None, "Services:\nB", ""], ["Acts: X", "Acts: Y", "", None, ""]]
    services = pa.array(parts[0]).dictionary_encode()
    made = text.system_texts(instruction, services, pa.array(parts[1])).to_pylist()
    assert made == [text.system_text(instruction, a or "", b or "") for a, b in zip(*parts)]


@pytest.mark.parametrize("variant", [None, "v1", "v2", "v3", "v4", "v5"])
def test_gold_completions_read_back_and_score_1_everywhere(build, variant):
    from unified_dialogue.scoring.dst_chat import score_dst_chat

    options = {"variant": variant} if variant else {}
    schemas = build("sgd", "schema", **options)
    for split, chats in build("sgd", "dst-chat", **options).items():
        references = build("sgd", "dst", **options)[split]
        predictions = {r["id"]: r["completion"][0]["content"] for r in chats}
        for row in references:
            frames, problems = state.parse(predictions[row["id"]], schemas[split])
            assert not problems and normalised(frames) == normalised(row["frames"]), row["id"]
        metrics = score_dst_chat(predictions, chats, references=references, schemas=schemas[split],
                                 train_schemas=schemas["train"])
        groups = {k: v for k, v in metrics.items() if isinstance(v, dict)}
        assert {value for group in groups.values() for value in group.values()} == {1.0}, split
        assert (metrics["malformed"], metrics["frames_not_predicted"], metrics["missing"]) == (0, 0, 0)


def test_the_tail_of_a_json_value_is_read_leniently():
    assert text.read_value('"a \\"b\\" c"') == 'a "b" c'
    assert text.read_value('"cut') == "cut"
    assert text.read_value("'quoted'") == "quoted"
    assert text.split_outside_quotes('a="x;y"; b=z', ";") == ['a="x;y"', " b=z"]
    assert json.loads(text.value("a|b")) == "a|b" and text.value("plain words") == "plain words"


def test_the_printer_shows_a_chat_row_message_by_message(build):
    from unified_dialogue.printing import show

    row = build("faithdial", "response-chat")["train"][0]
    lines = show(row).splitlines()
    assert lines[0] == f"id={row['id']}" and lines[1] == "[system]"
    assert lines[-2] == "[assistant]  (completion)"
    assert lines[-1].strip() == row["completion"][0]["content"] or lines[-1].endswith("…")


CONVERSATIONS = [
    [],
    [("assistant", "Hi.")],
    [("user", "a"), ("assistant", "b"), ("assistant", "c")],
    [("assistant", "a"), ("user", "b"), ("user", "c")],
    [("user", "a")],
]


def test_the_user_speaks_first_and_last_before_the_completion_in_both_renderings():
    from unified_dialogue.chat import build as chat_build

    assert text.conversation([]) == [{"role": "user", "content": text.OPENING}]
    assert text.conversation(CONVERSATIONS[1]) == [{"role": "user", "content": text.OPENING},
                                                   {"role": "assistant", "content": "Hi."},
                                                   {"role": "user", "content": text.GO_ON}]
    assert text.conversation(CONVERSATIONS[2])[1:] == [{"role": "assistant", "content": "b\nc"},
                                                       {"role": "user", "content": text.GO_ON}]
    # the Arrow rendering of a whole table gives the same messages
    import numpy as np
    import pyarrow as pa

    turns = [turn for conversation in CONVERSATIONS for turn in conversation]
    made = chat_build.turn_messages([len(c) for c in CONVERSATIONS], pa.array([u for _, u in turns], pa.string()),
                                    np.array([side == "assistant" for side, _ in turns], dtype=bool))
    assert made.to_pylist() == [text.conversation(c) for c in CONVERSATIONS]
