"""The shared corpus test: every loader, on its fixtures, through the same checks."""

from collections import Counter

import datasets
import pytest

from conftest import checksums, expected_counts, fixture_dir
from unified_dialogue import UNIFIED_FEATURES, load

CORPORA = ["sgd", "ccpe", "faithdial"]
# Per corpus, splits declared to be unions of other splits ({union: parts}): their
# dialogues also appear in the parts.
DECLARED_UNIONS = {
    "faithdial": {"validation": ("validation_random", "validation_topic"), "test": ("test_random", "test_topic")},
}
# Corpora whose source annotates no character spans.
WITHOUT_SPANS = {"faithdial"}


def spans_of(turn):
    """(field, value, start, end) of every span-annotated value of a unified turn."""
    for act in turn["dialog_acts"] or []:
        for entry in act["slot_value_table"] or []:
            for v in entry["values"]:
                if v["start"] is not None or v["end"] is not None:
                    yield "dialog_acts", v["value"], v["start"], v["end"]
    for entity in turn["named_entity_recognition"] or []:
        for v in entity["values"]:
            yield "named_entity_recognition", v["value"], v["start"], v["end"]
    for aspect in turn["aspects"] or []:
        for part in ("target", "opinion"):
            if aspect[part] is not None:
                yield f"aspects.{part}", aspect[part]["value"], aspect[part]["start"], aspect[part]["end"]
    for span in turn["characters"] or []:
        yield "characters", span["value"], span["start"], span["end"]
    for segment in turn["segments"] or []:
        yield "segments", segment["text"], segment["start"], segment["end"]


def content_key(record):
    return tuple((tuple(t["roles"]), t["utterance"]) for t in record["dialog"])


@pytest.mark.parametrize("corpus", CORPORA)
def test_features_are_the_shared_definition(build, corpus):
    for split, ds in build(corpus).items():
        assert ds.features == UNIFIED_FEATURES, split
        assert ds.features.arrow_schema == UNIFIED_FEATURES.arrow_schema


@pytest.mark.parametrize("corpus", CORPORA)
def test_exact_counts_per_split(build, corpus):
    dsd = build(corpus)
    expected = expected_counts(corpus)
    assert sorted(dsd) == sorted(expected)
    for split, ds in dsd.items():
        assert ds.num_rows == expected[split]["dialogues"], split
        assert sum(len(r["dialog"]) for r in ds) == expected[split]["turns"], split


@pytest.mark.parametrize("corpus", CORPORA)
def test_ids_unique_and_consistent(build, corpus):
    seen = set()
    for split, ds in build(corpus).items():
        for record in ds:
            assert record["dialogue_id"] not in seen
            seen.add(record["dialogue_id"])
            assert record["corpus"] == corpus and record["split"] == split
            assert record["dialogue_id"] == f"{corpus}/{split}/{record['original_id']}"


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_span_text_equals_its_value(build, corpus):
    checked = 0
    for ds in build(corpus).values():
        for record in ds:
            for t, turn in enumerate(record["dialog"]):
                for field, value, start, end in spans_of(turn):
                    assert turn["utterance"][start:end] == value, (record["dialogue_id"], t, field)
                    checked += 1
    assert checked == 0 if corpus in WITHOUT_SPANS else checked > 0


@pytest.mark.parametrize("corpus", CORPORA)
def test_no_dialogue_in_two_splits(build, corpus):
    unions = DECLARED_UNIONS.get(corpus, {})
    owner = {}
    for split, ds in build(corpus).items():
        if split in unions:
            continue
        for record in ds:
            key = content_key(record)
            assert key not in owner, f"{record['dialogue_id']} also in {owner.get(key)}"
            owner[key] = split


@pytest.mark.parametrize("corpus", sorted(DECLARED_UNIONS))
def test_declared_unions_hold_exactly_their_parts(build, corpus):
    dsd = build(corpus)
    for union, parts in DECLARED_UNIONS[corpus].items():
        in_parts = sum((Counter(content_key(r) for r in dsd[part]) for part in parts), Counter())
        assert Counter(content_key(r) for r in dsd[union]) == in_parts, union
        assert all(in_parts[key] == 1 for key in in_parts), union  # the parts do not overlap


@pytest.mark.parametrize("corpus", CORPORA)
def test_streaming_yields_the_prepared_records(build, corpus):
    prepared = build(corpus)
    for split, ds in prepared.items():
        streamed = load(corpus, "unified", split=split, data_dir=str(fixture_dir(corpus)),
                        checksums=checksums(corpus), streaming=True)
        assert isinstance(streamed, datasets.IterableDataset)
        assert list(streamed) == ds.to_list(), split


@pytest.mark.parametrize("corpus", CORPORA)
def test_two_processes_give_the_same_records(build, corpus):
    one, two = build(corpus), build(corpus, num_proc=2)
    for split in one:
        assert two[split].to_list() == one[split].to_list(), split
