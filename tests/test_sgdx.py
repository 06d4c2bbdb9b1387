"""SGD-X: the name maps, the derivation of variant dialogues rule by rule, and the fixture
dialogues derived for v1 and v5 compared byte for byte with the expected files."""

import csv
import hashlib
import json
import pickle
import shutil
from pathlib import Path

import msgspec
import pytest
from msgspec import UNSET

import datasets

from conftest import checksums, fixture_dir
from loaders.sgd import format, mapping, sgdx
from loaders.sgd.corpus import REPOSITORY
from unified_dialogue import load, registry
from unified_dialogue.api import load_builder
from unified_dialogue.core.errors import ChecksumError, ConfigError, MissingFilesError, SourceFormatError
from unified_dialogue.core.validation import FieldError, Naming, decode_list
from unified_dialogue.testing import ONLY_DATASETS_3, Mirror

SGDX_FIXTURES = fixture_dir("sgd") / "sgd_x"
V1 = {folder: sgdx.variant_schema_path("v1", folder) for folder in sgdx.FOLDERS}


# ---------------------------------------------------------------- records

def slot(name, categorical=False, values=()):
    return format.Slot(name, f"the {name}", categorical, list(values))


def intent(name, required=(), optional=None, result=(), transactional=False):
    return format.Intent(name, f"to {name}", transactional, list(required), dict(optional or {}), list(result))


def service(name, slots, intents=()):
    return format.Service(name, f"the {name} service", [slot(s) if isinstance(s, str) else s for s in slots],
                          list(intents))


def maps_of(*pairs, folder="train"):
    """The maps of one split whose original and variant schemas are ``pairs``."""
    original = {folder: (f"{folder}/schema.json", [o for o, _ in pairs])}
    variant = {folder: (V1[folder], [v for _, v in pairs])}
    return sgdx.name_maps(original, variant)


def action(act, slot_name="", values=(), canonical=None):
    return format.Action(act, slot_name, list(values), list(canonical if canonical is not None else values))


def frame(service_name, actions=(), spans=(), **parts):
    return format.Frame(service_name, list(spans), list(actions), **parts)


def dialogue(*frames, services=None):
    turns = [format.Turn("USER" if i % 2 == 0 else "SYSTEM", f"utterance {i}", [f]) for i, f in enumerate(frames)]
    return format.Dialogue("1_00000", list(services or sorted({f.service for f in frames})), turns)


def derived_frame(maps, source_frame):
    (turn,) = sgdx.variant_dialogue(dialogue(source_frame), maps).turns
    return turn.frames[0]


# Events_2 and its v3 variant, in short: event_type becomes category while category becomes
# subcat, so renaming keys one at a time in place would lose a value.
EVENTS = service("Events_2", ["event_type", "category", "city"],
                 [intent("FindEvents", required=["event_type", "city"], optional={"category": "dontcare"},
                         result=["event_type", "category", "city"])])
EVENTS_V3 = service("Events_23", ["category", "subcat", "city_event"],
                    [intent("SearchForEvents", required=["category", "city_event"], optional={"subcat": "dontcare"},
                            result=["category", "subcat", "city_event"])])
# Homes_2 has a slot named "intent" (buy or rent), besides the acts that name intents.
HOMES = service("Homes_2", ["intent", "area"], [intent("FindHomeByArea", required=["intent", "area"]),
                                                intent("ScheduleVisit")])
HOMES_V1 = service("Homes_21", ["purpose", "town"], [intent("FindAHome", required=["purpose", "town"]),
                                                     intent("SchedulePropertyVisit")])


@pytest.fixture
def maps():
    return maps_of((EVENTS, EVENTS_V3), (HOMES, HOMES_V1))


# ---------------------------------------------------------------- deriving a dialogue

def test_slot_names_swapped_in_a_chain_are_renamed_at_once(maps):
    state = format.State("FindEvents", ["category", "event_type"], {"event_type": ["Music"], "category": ["Pop"]})
    out = derived_frame(maps, frame("Events_2", [action("INFORM", "category", ["Pop"])],
                                    [format.Span("event_type", 0, 5)], state=state))
    assert out.service == "Events_23"
    assert out.state == format.State("SearchForEvents", ["subcat", "category"],
                                     {"category": ["Music"], "subcat": ["Pop"]})
    assert list(out.state.slot_values) == ["category", "subcat"]  # the source's order, under the new names
    assert out.actions == [action("INFORM", "subcat", ["Pop"])]
    assert out.slots == [format.Span("category", 0, 5)]


def test_service_call_and_results_are_renamed(maps):
    call = format.ServiceCall("FindEvents", {"category": "Pop", "event_type": "Music", "city": "NYC"})
    results = [{"event_type": "Music", "category": "Pop", "city": "NYC"}, {"city": "LA"}]
    out = derived_frame(maps, frame("Events_2", service_call=call, service_results=results))
    assert out.service_call == format.ServiceCall("SearchForEvents", {"subcat": "Pop", "category": "Music",
                                                                       "city_event": "NYC"})
    assert list(out.service_call.parameters) == ["subcat", "category", "city_event"]
    assert out.service_results == [{"category": "Music", "subcat": "Pop", "city_event": "NYC"}, {"city_event": "LA"}]


def test_no_results_stay_an_empty_list_and_absent_parts_stay_absent(maps):
    out = derived_frame(maps, frame("Events_2", service_call=format.ServiceCall("FindEvents", {}),
                                    service_results=[]))
    assert out.service_results == [] and out.state is UNSET
    assert derived_frame(maps, frame("Events_2")).service_call is UNSET


def test_a_slot_named_intent_is_a_slot_except_in_the_acts_naming_intents(maps):
    actions = [
        action("INFORM", "intent", ["rent"]),
        action("REQUEST", "intent"),
        action("INFORM_INTENT", "intent", ["FindHomeByArea"]),
        action("OFFER_INTENT", "intent", ["ScheduleVisit"], ["ScheduleVisit"]),
    ]
    state = format.State("FindHomeByArea", ["intent"], {"intent": ["rent"], "area": ["SF"]})
    out = derived_frame(maps, frame("Homes_2", actions, [format.Span("intent", 0, 4)], state=state))
    assert out.actions == [
        action("INFORM", "purpose", ["rent"]),
        action("REQUEST", "purpose"),
        action("INFORM_INTENT", "intent", ["FindAHome"]),
        action("OFFER_INTENT", "intent", ["SchedulePropertyVisit"], ["SchedulePropertyVisit"]),
    ]
    assert out.state == format.State("FindAHome", ["purpose"], {"purpose": ["rent"], "town": ["SF"]})
    assert out.slots == [format.Span("purpose", 0, 4)]


def test_intent_acts_map_values_and_canonical_values_each(maps):
    out = derived_frame(maps, frame("Homes_2", [action("INFORM_INTENT", "intent", ["a home"], ["FindHomeByArea"])]))
    assert out.actions == [action("INFORM_INTENT", "intent", ["a home"], ["FindAHome"])]


def test_names_outside_the_schema_pass_through(maps):
    actions = [action("INFORM_COUNT", "count", ["3"]), action("GOODBYE"), action("AFFIRM_INTENT")]
    state = format.State("NONE", [], {})
    out = derived_frame(maps, frame("Events_2", actions, state=state))
    assert out.actions == actions
    assert out.state.active_intent == "NONE"


def test_utterances_ids_values_and_spans_are_kept(maps):
    source = dialogue(frame("Events_2", [action("INFORM", "event_type", ["music"], ["Music"])],
                            [format.Span("event_type", 3, 8)]),
                      frame("Homes_2", [action("OFFER", "area", ["SF"])]))
    out = sgdx.variant_dialogue(source, maps)
    assert out.dialogue_id == source.dialogue_id and out.services == ["Events_23", "Homes_21"]
    assert [(t.speaker, t.utterance) for t in out.turns] == [(t.speaker, t.utterance) for t in source.turns]
    assert out.turns[0].frames[0].actions == [action("INFORM", "category", ["music"], ["Music"])]
    assert out.turns[0].frames[0].slots == [format.Span("category", 3, 8)]
    assert out.turns[1].frames[0].actions == [action("OFFER", "town", ["SF"])]


def test_the_input_is_left_unchanged_and_shares_no_list_with_the_output(maps):
    state = format.State("FindEvents", ["city"], {"event_type": ["Music"]})
    source = dialogue(frame("Events_2", [action("INFORM", "city", ["NYC"])], [format.Span("city", 0, 3)],
                            state=state, service_call=format.ServiceCall("FindEvents", {"city": "NYC"}),
                            service_results=[{"city": "NYC"}]))
    before = msgspec.json.encode(source)
    out = sgdx.variant_dialogue(source, maps)
    assert msgspec.json.encode(source) == before
    out_frame, in_frame = out.turns[0].frames[0], source.turns[0].frames[0]
    out_frame.actions[0].values.append("LA")
    out_frame.state.slot_values["category"].append("Pop")
    out.services.append("X")
    assert msgspec.json.encode(source) == before and in_frame.actions[0].values == ["NYC"]


def test_a_service_the_maps_do_not_know_is_an_error(maps):
    with pytest.raises(FieldError) as error:
        sgdx.variant_dialogue(dialogue(frame("Events_2"), frame("Hotels_1"), services=["Events_2"]), maps)
    assert error.value.field == "turns[1].frames[0].service" and "Hotels_1" in error.value.problem
    with pytest.raises(FieldError) as error:
        sgdx.variant_dialogue(dialogue(frame("Events_2"), services=["Hotels_1", "Events_2"]), maps)
    assert error.value.field == "services[0]"


# ---------------------------------------------------------------- building the maps

def test_maps_pair_services_slots_and_intents_by_position(maps):
    events = maps.services["Events_2"]
    assert events.name == "Events_23"
    assert events.slots == {"event_type": "category", "category": "subcat", "city": "city_event"}
    assert events.intents == {"FindEvents": "SearchForEvents"}
    assert pickle.loads(pickle.dumps(maps)) == maps  # the maps travel to worker processes


def test_every_split_pairs_a_service_alike():
    train = [EVENTS, HOMES]
    dev = [HOMES]
    original = {"train": ("train/schema.json", train), "dev": ("dev/schema.json", dev)}
    variant = {"train": (V1["train"], [EVENTS_V3, HOMES_V1]), "dev": (V1["dev"], [HOMES_V1])}
    assert set(sgdx.name_maps(original, variant).services) == {"Events_2", "Homes_2"}


def error_of(original, variant):
    with pytest.raises(SourceFormatError) as error:
        sgdx.name_maps(original, variant)
    return error.value


def test_a_split_that_pairs_a_slot_differently_is_an_error_naming_both_files():
    swapped = service("Homes_21", ["town", "purpose"], [intent("FindAHome", required=["town", "purpose"]),
                                                        intent("SchedulePropertyVisit")])
    # listed dev first: the folders are still taken in train, dev, test order
    error = error_of({"dev": ("dev/schema.json", [HOMES]), "train": ("train/schema.json", [HOMES])},
                     {"dev": (V1["dev"], [swapped]), "train": (V1["train"], [HOMES_V1])})
    assert (error.file, error.record, error.field) == (V1["dev"], "service #0 (service_name 'Homes_21')", "slots")
    assert "intent -> 'town'" in error.problem and V1["train"] in error.problem


def test_a_split_that_renames_a_service_differently_is_an_error():
    renamed = service("Homes_29", ["purpose", "town"], HOMES_V1.intents)
    error = error_of({"train": ("train/schema.json", [HOMES]), "test": ("test/schema.json", [HOMES])},
                     {"train": (V1["train"], [HOMES_V1]), "test": (V1["test"], [renamed])})
    assert (error.file, error.field) == (V1["test"], "service_name") and "'Homes_21'" in error.problem


@pytest.mark.parametrize("bad, field, words", [
    (service("Homes_21", ["purpose"], HOMES_V1.intents), "slots", "1 slots, where the original Homes_2 has 2"),
    (service("Homes_21", ["purpose", "town"], HOMES_V1.intents[:1]), "intents", "1 intents"),
    (service("Homes_21", ["purpose", "purpose"], HOMES_V1.intents), "slots[1].name", "names two slots"),
    (service("Homes_21", [slot("purpose", True, ["buy", "rent"]), "town"], HOMES_V1.intents),
     "slots[0].is_categorical", "Homes_2.intent"),
    (service("Homes_21", ["purpose", "town"], [intent("FindAHome", required=["town", "purpose"]),
                                               intent("SchedulePropertyVisit")]),
     "intents[0].required_slots", "FindHomeByArea"),
    (service("Homes_21", ["purpose", "town"], [intent("FindAHome", required=["purpose", "town"]),
                                               intent("SchedulePropertyVisit", transactional=True)]),
     "intents[1].is_transactional", "ScheduleVisit"),
])
def test_a_variant_service_that_does_not_pair_is_an_error_naming_file_service_and_field(bad, field, words):
    error = error_of({"dev": ("dev/schema.json", [EVENTS, HOMES])}, {"dev": (V1["dev"], [EVENTS_V3, bad])})
    assert (error.file, error.record, error.field) == (V1["dev"], "service #1 (service_name 'Homes_21')", field)
    assert words in error.problem
    assert str(error).startswith(f"{V1['dev']}: service #1 (service_name 'Homes_21'): field '{field}': ")


def test_a_variant_schema_with_another_number_of_services_is_an_error():
    error = error_of({"train": ("train/schema.json", [EVENTS, HOMES])}, {"train": (V1["train"], [EVENTS_V3])})
    assert (error.file, error.record, error.field) == (V1["train"], "whole file", "(top level)")
    assert "1 services, where train/schema.json has 2" in error.problem


def test_two_services_with_one_variant_name_are_an_error():
    twin = service("Events_23", ["purpose", "town"], HOMES_V1.intents)
    error = error_of({"train": ("train/schema.json", [EVENTS, HOMES])}, {"train": (V1["train"], [EVENTS_V3, twin])})
    assert (error.file, error.field) == (V1["train"], "service_name") and "Events_2" in error.problem


def test_a_missing_variant_schema_is_an_error():
    with pytest.raises(MissingFilesError, match="dev/"):
        sgdx.name_maps({"dev": ("dev/schema.json", [HOMES])}, {"train": (V1["train"], [HOMES_V1])})


# ---------------------------------------------------------------- paths and tables

def test_variant_option_and_schema_paths():
    assert sgdx.checked_variant("v3") == "v3"
    with pytest.raises(ConfigError, match="v1, v2, v3, v4, v5"):
        sgdx.checked_variant("v6")
    assert sgdx.variant_schema_paths("v2") == [
        "sgd_x/data/v2/train/schema.json", "sgd_x/data/v2/dev/schema.json", "sgd_x/data/v2/test/schema.json"]


def table_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_the_checksum_table_lists_the_15_variant_schemas():
    rows = table_rows(Path(sgdx.__file__).with_name("checksums_sgdx.tsv"))
    assert sorted(r["path"] for r in rows) == sorted(p for v in sgdx.VARIANTS for p in sgdx.variant_schema_paths(v))
    assert all(int(r["num_bytes"]) > 40_000 and len(r["sha256"]) == 64 for r in rows)


def test_the_fixture_table_matches_the_fixture_schemas():
    rows = [r for r in table_rows(fixture_dir("sgd") / "SHA256SUMS.tsv") if r["path"].startswith("sgd_x/")]
    assert [r["path"] for r in rows] == sorted(p for v in sgdx.VARIANTS for p in sgdx.variant_schema_paths(v))
    for row in rows:
        data = (fixture_dir("sgd") / row["path"]).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (int(row["num_bytes"]), row["sha256"]), row["path"]


# ---------------------------------------------------------------- the fixture dialogues

def read_services(root, relpath):
    return list(decode_list((root / relpath).read_bytes(), relpath, format.Service, Naming("service", "service_name")))


def fixture_maps(variant):
    original = {f: (f"{f}/schema.json", read_services(fixture_dir("sgd"), f"{f}/schema.json")) for f in sgdx.FOLDERS}
    paths = {f: sgdx.variant_schema_path(variant, f) for f in sgdx.FOLDERS}
    return sgdx.name_maps(original, {f: (p, read_services(fixture_dir("sgd"), p)) for f, p in paths.items()})


@pytest.mark.parametrize("variant", sgdx.VARIANTS)
def test_every_fixture_variant_schema_pairs_with_its_original(variant):
    maps = fixture_maps(variant)
    assert sorted(maps.services) == ["Alarm_1", "Media_1", "Media_2", "Movies_2", "Music_1", "Music_2", "Weather_1"]
    assert all(names.name == f"{service}{variant[1]}" for service, names in maps.services.items())


def upstream_json(records):
    """Serialised as the SGD-X generator writes its files, so that they compare byte for byte."""
    return json.dumps(msgspec.to_builtins(records), indent=2, separators=(",", ": "), sort_keys=True).encode()


EXPECTED = sorted(SGDX_FIXTURES.glob("expected/v*/*/dialogues_*.json"))


def test_the_expected_files_cover_two_variants_and_every_fixture_file():
    assert len(EXPECTED) == 2 * len(list(fixture_dir("sgd").glob("*/dialogues_*.json"))) == 8


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: "/".join(p.parts[-3:]))
def test_fixture_dialogues_derive_to_the_expected_files(expected):
    variant, folder = expected.parts[-3], expected.parts[-2]
    relpath = f"{folder}/{expected.name}"
    source = list(decode_list((fixture_dir("sgd") / relpath).read_bytes(), relpath, format.Dialogue,
                              Naming("dialogue", "dialogue_id"), format.check_dialogue))
    derived = [sgdx.variant_dialogue(d, fixture_maps(variant)) for d in source]
    assert upstream_json(derived) == expected.read_bytes()
    assert upstream_json(derived) != upstream_json(source)


# ---------------------------------------------------------------- the loader's variant option

@pytest.mark.parametrize("variant", sgdx.VARIANTS)
@pytest.mark.parametrize("config", registry.get("sgd").config_names)
def test_every_config_of_every_variant_loads_with_the_original_counts(build, variant, config):
    original, renamed = build("sgd", config), build("sgd", config, variant=variant)
    assert {s: d.num_rows for s, d in renamed.items()} == {s: d.num_rows for s, d in original.items()}
    for split in original:
        assert renamed[split].features == original[split].features


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: "/".join(p.parts[-3:]))
def test_the_loaded_variant_rebuilds_what_upstreams_generator_writes(build, expected):
    variant, folder = expected.parts[-3], expected.parts[-2]
    split = {"train": "train", "dev": "validation", "test": "test"}[folder]
    wanted = json.loads(expected.read_bytes())
    ids = {d["dialogue_id"] for d in wanted}
    for config, to_source in (("unified", mapping.unified_to_source), ("original", mapping.original_to_source)):
        rebuilt = [to_source(r) for r in build("sgd", config, variant=variant)[split] if
                   r.get("original_id", r.get("dialogue_id")) in ids]
        assert json.dumps(rebuilt, indent=2, separators=(",", ": "), sort_keys=True).encode() == expected.read_bytes()


def test_unseen_services_and_knowledge_follow_the_variant_schemas(build):
    schema = {s: {row["service_name"]: row for row in ds} for s, ds in build("sgd", "schema", variant="v3").items()}
    assert all(name.endswith("3") for rows in schema.values() for name in rows)
    for split, ds in build("sgd", variant="v3").items():
        for record in ds:
            assert record["knowledge"]["value"]["schema"] == [schema[split][s] for s in record["domain"]]
            assert record["unseen_domains"] == [s for s in record["domain"] if s not in schema["train"]]
    original = [r["unseen_domains"] for r in build("sgd")["validation"]]
    assert any(original)
    assert [[s + "3" for s in u] for u in original] == [r["unseen_domains"] for r in build("sgd", variant="v3")["validation"]]


def test_variant_schemas_come_from_the_sgdx_commit_and_dialogues_from_sgds():
    builder = load_builder("sgd", variant="v2")
    assert builder.url("sgd_x/data/v2/dev/schema.json") == (
        f"{REPOSITORY}/e852981ae34990f4358979625854259302feaa78/sgd_x/data/v2/dev/schema.json")
    assert builder.url("dev/dialogues_001.json") == f"{REPOSITORY}/2aaccde45fd85e9c7d9887280a0c7acddc605107/dev/dialogues_001.json"


def test_a_variant_downloads_from_a_mirror_and_is_verified(build, tmp_path):
    mirror = Mirror(fixture_dir("sgd"), "sgd")
    try:
        downloaded = load("sgd", "dst", base_url=mirror.url, checksums=checksums("sgd"), variant="v5",
                          cache_dir=str(tmp_path))
        assert "sgd_x/data/v5/train/schema.json" in mirror.fetched()
        assert not any(p.startswith("sgd_x/data/v1") for p in mirror.fetched())
        for split, ds in build("sgd", "dst", variant="v5").items():
            assert downloaded[split].to_list() == ds.to_list()
        mirror.corrupted.add("sgd_x/data/v5/dev/schema.json")
        with pytest.raises(ChecksumError, match="sgd_x/data/v5/dev/schema.json"):
            load("sgd", base_url=mirror.url, checksums=checksums("sgd"), variant="v5", cache_dir=str(tmp_path / "b"))
    finally:
        mirror.close()


def test_a_copy_without_the_variant_schemas_is_an_error_naming_them(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    shutil.rmtree(copy / "sgd_x" / "data" / "v4" / "dev")
    with pytest.raises(MissingFilesError, match="sgd_x/data/v4/dev/schema.json"):
        load("sgd", data_dir=str(copy), checksums=checksums("sgd"), variant="v4", cache_dir=str(tmp_path / "a"))
    with pytest.raises(MissingFilesError, match="sgd_x/data/v4/dev/schema.json is missing"):
        load("sgd", data_dir=str(copy), variant="v4", cache_dir=str(tmp_path / "b"), verification_mode="no_checks")


def test_a_checksum_table_without_the_variant_schemas_is_completed_by_the_bundled_one(tmp_path):
    table = tmp_path / "sgd-only.tsv"
    lines = Path(checksums("sgd")).read_text().splitlines(keepends=True)
    table.write_text("".join(line for line in lines if not line.startswith("sgd_x/")))
    with pytest.raises(ChecksumError, match="size mismatch for sgd_x/data/v2/"):  # the fixtures are excerpts
        load("sgd", data_dir=str(fixture_dir("sgd")), checksums=str(table), variant="v2", cache_dir=str(tmp_path / "a"))
    assert load("sgd", split="test", data_dir=str(fixture_dir("sgd")), checksums=str(table),
                cache_dir=str(tmp_path / "b")).num_rows > 0  # without a variant, the table is enough


def test_an_unknown_variant_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="option variant takes one of 'v1', 'v2', 'v3', 'v4', 'v5', not 'v6'"):
        load("sgd", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"), variant="v6", cache_dir=str(tmp_path))


@ONLY_DATASETS_3
def test_load_dataset_takes_the_variant_too(build, tmp_path):
    scripted = datasets.load_dataset(registry.get("sgd").folder, "dst", variant="v3", data_dir=str(fixture_dir("sgd")),
                                     checksums=checksums("sgd"), cache_dir=str(tmp_path), trust_remote_code=True)
    for split, ds in build("sgd", "dst", variant="v3").items():
        assert scripted[split].to_list() == ds.to_list()
