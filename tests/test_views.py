"""The task views on small dialogues, row by row, and views.apply on any unified dataset.
(Every corpus's views are also checked by the shared corpus test case: row counts against
the source, and rows that use nothing after their turn.)"""

import msgspec
import pyarrow as pa
import pytest

from loaders.sgd import format, mapping
from loaders.sgd.format import ACTS
from unified_dialogue import UNIFIED_FEATURES, views
from unified_dialogue.core.errors import ConfigError, SourceFormatError
from unified_dialogue.printing import show
from unified_dialogue.views import dst, nlg, nlu, response

pytestmark = pytest.mark.both_lines

SCHEMA = UNIFIED_FEATURES.arrow_schema


def act(name, slot="", values=(), canonical=None):
    return {"act": name, "slot": slot, "values": list(values), "canonical_values": list(canonical or values)}


def frame(service, actions, state=None, call=None, spans=()):
    out = {"service": service, "slots": list(spans), "actions": actions}
    if state is not None:
        out["state"] = {"active_intent": state[0], "requested_slots": state[1], "slot_values": state[2]}
    if call is not None:
        out["service_call"], out["service_results"] = {"method": call[0], "parameters": call[1]}, []
    return out


# A dinner, then a film near it: the film's location is carried over from the dinner's city
# in the user's state before any act or call of the film service gives its canonical form.
DINNER_THEN_FILM = {"dialogue_id": "9_00001", "services": ["Restaurants_1", "Movies_1"], "turns": [
    {"speaker": "USER", "utterance": "Dinner in SF please", "frames": [
        frame("Restaurants_1", [act("INFORM", "city", ["SF"], ["San Francisco"])],
              ("FindRestaurants", [], {"city": ["SF"]}), spans=[{"slot": "city", "start": 10, "exclusive_end": 12}])]},
    {"speaker": "SYSTEM", "utterance": "Nopa is nice.", "frames": [
        frame("Restaurants_1", [act("OFFER", "restaurant_name", ["Nopa"])],
              call=("FindRestaurants", {"city": "San Francisco"}))]},
    {"speaker": "USER", "utterance": "Good. And a film there?", "frames": [
        frame("Movies_1", [act("INFORM_INTENT", "intent", ["FindMovies"])], ("FindMovies", ["genre"], {"location": ["SF"]})),
        frame("Restaurants_1", [act("SELECT")], ("NONE", [], {"city": ["SF"], "restaurant_name": ["Nopa"]}))]},
    {"speaker": "SYSTEM", "utterance": "Try Up.", "frames": [
        frame("Movies_1", [act("OFFER", "movie_name", ["Up"]), act("INFORM_COUNT", "count", ["2"]),
                           act("CONFIRM", "location", ["SF"], ["SF City"])],
              call=("FindMovies", {"location": "SF City"}))]},
    {"speaker": "USER", "utterance": "Thanks, bye.", "frames": [
        frame("Movies_1", [act("GOODBYE")], ("FindMovies", [], {"location": ["SF"]}))]},
]}


def unified_table(*sources, split="train", unseen=frozenset({"Movies_1"})):
    dialogues = [msgspec.convert(source, format.Dialogue) for source in sources]
    schemas = {s: {"service_name": s} for d in sources for s in d["services"]}
    train = {s for s in schemas if s not in unseen}
    return mapping.dialogues_to_table(dialogues, split, schemas, train, "f.json")


def state_of(row):
    return {s["domain"]: {v["slot"]: (v["values"], v["canonical_value"]) for v in s["slot_values"]}
            for s in row["dialogue_state"]}


def test_dst_rows_carry_every_service_forward_with_canonical_values_known_so_far():
    rows = dst.table(unified_table(DINNER_THEN_FILM)).to_pylist()
    assert [r["turn_index"] for r in rows] == [0, 2, 4]
    assert state_of(rows[0]) == {"Restaurants_1": {"city": (["SF"], "San Francisco")}}
    # The film's location: no act or call of Movies_1 has given its canonical form yet.
    assert state_of(rows[1]) == {
        "Restaurants_1": {"city": (["SF"], "San Francisco"), "restaurant_name": (["Nopa"], "Nopa")},
        "Movies_1": {"location": (["SF"], None)},
    }
    # The unified record's belief state has it, from the call of turn 3: the view does not look ahead.
    record = unified_table(DINNER_THEN_FILM).to_pylist()[0]
    movies = next(b for b in record["dialog"][2]["belief_state"] if b["domain"] == "Movies_1")
    assert movies["informed_slot_value_table"][0]["values"][0]["cononical_value"] == "SF City"
    assert state_of(rows[2])["Movies_1"] == {"location": (["SF"], "SF City")}
    assert state_of(rows[2])["Restaurants_1"] == state_of(rows[1])["Restaurants_1"]  # carried, not in the turn
    services = {s["domain"]: s for s in rows[2]["dialogue_state"]}
    assert (services["Movies_1"]["unseen"], services["Restaurants_1"]["unseen"]) == (True, False)
    assert services["Restaurants_1"]["active_intent"] == "NONE"
    assert rows[1]["dialogue_state"][1]["requested_slots"] == ["genre"]


def test_dst_frames_are_the_source_frames_and_context_ends_with_the_turn():
    row = dst.table(unified_table(DINNER_THEN_FILM)).to_pylist()[1]
    assert row["frames"] == [
        {"service": "Movies_1", "slots": [], "state": {"active_intent": "FindMovies", "requested_slots": ["genre"],
                                                       "slot_values": [{"slot": "location", "values": ["SF"]}]}},
        {"service": "Restaurants_1", "slots": [], "state": {
            "active_intent": "NONE", "requested_slots": [],
            "slot_values": [{"slot": "city", "values": ["SF"]}, {"slot": "restaurant_name", "values": ["Nopa"]}]}},
    ]
    assert [c["utterance"] for c in row["context"]] == [t["utterance"] for t in DINNER_THEN_FILM["turns"][:3]]
    first = dst.table(unified_table(DINNER_THEN_FILM)).to_pylist()[0]
    assert first["frames"][0]["slots"] == [{"slot": "city", "start": 10, "exclusive_end": 12}]
    assert (first["dialogue_id"], first["original_id"]) == ("sgd/train/9_00001", "9_00001")


def test_dst_state_starts_empty_in_each_dialogue():
    other = {**DINNER_THEN_FILM, "dialogue_id": "9_00002", "turns": DINNER_THEN_FILM["turns"][2:]}
    rows = dst.table(unified_table(DINNER_THEN_FILM, other)).to_pylist()
    second = [r for r in rows if r["original_id"] == "9_00002"]
    assert [r["turn_index"] for r in second] == [0, 2]
    assert set(state_of(second[0])) == {"Movies_1", "Restaurants_1"}
    assert state_of(second[0])["Restaurants_1"]["city"] == (["SF"], None)  # "San Francisco" was the other dialogue's


def test_nlg_rows_follow_gem():
    rows = nlg.table(unified_table(DINNER_THEN_FILM), role="SYSTEM", act_names=ACTS).to_pylist()
    assert [r["turn_id"] for r in rows] == [1, 3]
    second = rows[1]
    assert second["gem_id"] == "schema_guided_dialog-train-9_00001-3"
    assert second["dialog_acts"] == [{"act": ACTS.index("OFFER"), "slot": "movie_name", "values": ["Up"]},
                                     {"act": ACTS.index("INFORM_COUNT"), "slot": "count", "values": ["2"]},
                                     {"act": ACTS.index("CONFIRM"), "slot": "location", "values": ["SF"]}]
    assert second["context"] == [t["utterance"] for t in DINNER_THEN_FILM["turns"][:3]]
    assert (second["prompt"], second["target"], second["references"]) == (
        "Good. And a film there?", "Try Up.", ["Try Up."])
    assert (second["dialog_id"], second["service"]) == ("9_00001", "Movies_1")
    assert ACTS.index("REQUEST") == 13 and ACTS.index("INFORM_INTENT") == 6  # GEM's numbers


def test_nlg_act_without_a_slot_and_act_of_another_vocabulary():
    record = unified_table(DINNER_THEN_FILM).to_pylist()[0]
    table = pa.Table.from_pylist([record], schema=SCHEMA)
    goodbye = nlg.table(table, role="USER", act_names=ACTS).to_pylist()[2]
    assert goodbye["dialog_acts"] == [{"act": ACTS.index("GOODBYE"), "slot": "", "values": []}]
    assert goodbye["prompt"] == "Try Up."
    with pytest.raises(SourceFormatError) as caught:
        nlg.table(table, role="SYSTEM", act_names=[a for a in ACTS if a != "INFORM_COUNT"])
    turn = next(t for t, turn in enumerate(DINNER_THEN_FILM["turns"])
                if any(a["act"] == "INFORM_COUNT" for f in turn["frames"] for a in f["actions"]))
    assert (caught.value.record, caught.value.field) == ("dialogue sgd/train/9_00001", f"dialog[{turn}].dialog_acts.act")
    assert caught.value.problem.startswith("'INFORM_COUNT' is not one of the nlg view's act names")


def faithdial_like():
    turns = [
        {"roles": ["Seeker"], "utterance": "Tell me about bees."},
        {"roles": ["Wizard"], "utterance": "Bees make honey.", "knowledge_to_select": "Bees make honey.",
         "dialog_acts": [{"act": "Ack."}, {"act": "Edification"}],
         "original_response": {"utterance": None, "begin": ["Entailment"]}},
    ]
    return {"dialogue_id": "x/train/1", "original_id": "1", "corpus": "x", "split": "train", "dialog": turns}


def test_response_rows_hold_the_context_before_the_turn_and_its_grounding():
    table = pa.Table.from_pylist([faithdial_like()], schema=SCHEMA)
    (row,) = response.table(table, role="Wizard", full_names={"Ack.": "Acknowledgment"}).to_pylist()
    assert row["context"] == [{"role": "Seeker", "utterance": "Tell me about bees."}]
    assert (row["role"], row["response"], row["knowledge"]) == ("Wizard", "Bees make honey.", "Bees make honey.")
    assert [a["act"] for a in row["dialog_acts"]] == ["Ack.", "Edification"]
    assert row["act_names"] == ["Acknowledgment", "Edification"]
    assert row["original_response"] == {"utterance": None, "begin": ["Entailment"]}
    assert row["query"] is None and row["corpus"] == "x"
    sgd_rows = response.table(unified_table(DINNER_THEN_FILM), role="SYSTEM").to_pylist()
    assert sgd_rows[0]["query"] == {"domain": "Restaurants_1", "method": "FindRestaurants",
                                    "parameters": [{"slot": "city", "value": "San Francisco"}]}
    assert sgd_rows[0]["querying_result"] == {"domain": "Restaurants_1", "results": []}


def test_nlu_spans_come_from_slot_spans_and_from_every_annotation_of_a_segment():
    rows = nlu.table(unified_table(DINNER_THEN_FILM)).to_pylist()
    assert rows[0]["spans"] == [{"start": 10, "end": 12, "text": "SF", "label": "city", "type": None,
                                 "domain": "Restaurants_1"}]
    assert rows[2]["intents"] == ["FindMovies"] and rows[1]["intents"] is None
    segment = {"start": 7, "end": 11, "text": "Dune", "annotations": [
        {"annotation_type": "ENTITY_NAME", "entity_type": "MOVIE_OR_SERIES"},
        {"annotation_type": "ENTITY_PREFERENCE", "entity_type": "MOVIE_OR_SERIES"}]}
    record = {"dialogue_id": "c/train/x", "dialog": [{"roles": ["USER"], "utterance": "I love Dune", "segments": [segment]}]}
    (row,) = nlu.table(pa.Table.from_pylist([record], schema=SCHEMA)).to_pylist()
    assert [(s["label"], s["type"], s["text"], s["start"], s["end"]) for s in row["spans"]] == [
        ("ENTITY_NAME", "MOVIE_OR_SERIES", "Dune", 7, 11), ("ENTITY_PREFERENCE", "MOVIE_OR_SERIES", "Dune", 7, 11)]
    for start, end in [(6, 10), (7, 40), (None, None)]:  # offsets that do not locate the text are left out
        record["dialog"][0]["segments"][0].update(start=start, end=end)
        (row,) = nlu.table(pa.Table.from_pylist([record], schema=SCHEMA)).to_pylist()
        assert [(s["text"], s["start"], s["end"]) for s in row["spans"]] == [("Dune", None, None)] * 2


def test_apply_gives_the_loaders_view_for_any_unified_dataset(build):
    unified = build("sgd")["validation"]
    applied = views.apply("nlg", unified, batch_size=2, role="SYSTEM", act_names=ACTS)
    assert applied.to_list() == build("sgd", "nlg")["validation"].to_list()
    assert applied.features == build("sgd", "nlg")["validation"].features
    with pytest.raises(ConfigError, match="unknown view 'summary'"):
        views.apply("summary", unified)


@pytest.mark.parametrize("name, options, problem", [
    ("nlg", {"role": "SYSTEM"}, r"takes role, act_names, dataset \(optional\) \(missing: act_names\)"),
    ("response", {}, r"missing: role"),
    ("dst", {"role": "USER"}, r"takes no options \(unknown: role\)"),
    ("response", {"role": "SYSTEM", "names": {}}, r"unknown: names"),
])
def test_a_view_names_the_options_it_lacks_or_does_not_take(name, options, problem):
    with pytest.raises(ConfigError, match=f"the {name} view .*{problem}"):
        views.config(name, **options)


def test_the_printer_shows_turns_rows_and_label_names(build):
    record = build("sgd")["train"][0]
    text = show(record)
    assert text.splitlines()[0].startswith("sgd/train/2_00089  domains: Media_1")
    assert "      USER: I would like to watch The birds movie." in text
    assert "acts: INFORM(title=The birds movie); INFORM_INTENT(intent=PlayMovie)" in text
    rows = build("sgd", "nlg")["train"]
    text = show(rows[0], rows.features)
    assert "dialog_acts: [{act=CONFIRM, slot=title, values=[Suburban Birds]}; {act=CONFIRM" in text
    assert "act=2, slot=title" in show(rows[0])  # without the features: the class numbers


def test_the_dst_view_scored_against_itself_scores_1_everywhere(build):
    from unified_dialogue.scoring.dst import score_dst

    for variant in (None, "v2"):
        options = {"variant": variant} if variant else {}
        rows, schemas = build("sgd", "dst", **options)["test"], build("sgd", "schema", **options)
        predictions = [{"dialogue_id": r["dialogue_id"], "turn_index": r["turn_index"], "frames": r["frames"]}
                       for r in rows]
        metrics = score_dst(predictions, rows, schemas["test"], schemas["train"])
        assert set(metrics["#ALL_SERVICES"].values()) == {1.0}
        assert "#UNSEEN_SERVICES" in metrics


@pytest.mark.parametrize("corpus, view", [("sgd", "dst"), ("sgd", "nlg"), ("sgd", "response"), ("sgd", "nlu"),
                                          ("ccpe", "response"), ("ccpe", "nlu"), ("faithdial", "response")])
def test_every_view_row_has_an_id_of_its_dialogue_and_turn_first_and_unique(build, corpus, view):
    for split, ds in build(corpus, view).items():
        assert ds.column_names[0] == "id"
        dialogues = ds["dialogue_id"] if "dialogue_id" in ds.column_names else None
        turns = ds["turn_index"] if "turn_index" in ds.column_names else ds["turn_id"]
        if dialogues is None:  # nlg: GEM's columns name the source dialogue; the id names the unified one
            dialogues = [f"{corpus}/{split}/{d}" for d in ds["dialog_id"]]
        assert ds["id"] == [f"{d}/{t}" for d, t in zip(dialogues, turns)], split
        assert len(set(ds["id"])) == ds.num_rows, split


def test_row_ids_name_the_unified_dialogue_and_the_turn():
    rows = nlg.table(unified_table(DINNER_THEN_FILM), role="SYSTEM", act_names=ACTS).to_pylist()
    assert [r["id"] for r in rows] == ["sgd/train/9_00001/1", "sgd/train/9_00001/3"]
    assert [r["id"] for r in dst.table(unified_table(DINNER_THEN_FILM)).to_pylist()] == [
        "sgd/train/9_00001/0", "sgd/train/9_00001/2", "sgd/train/9_00001/4"]
