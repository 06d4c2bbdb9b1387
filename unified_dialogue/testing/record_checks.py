"""The checks of what a corpus builds, part of ``CorpusTestCase``: features, counts, ids,
spans, splits and their unions, one record written out, the round trip to the source files,
and the rows of the task views (as many as the source has turns for them, none using a later
turn)."""

import json
from collections import Counter
from pathlib import Path

from .. import UNIFIED_FEATURES, load
from .loads import read_json, write_checksums


class RecordChecks:
    """What is built from the excerpt; ``CorpusTestCase`` holds the declarations these read."""

    def test_features_are_the_declared_ones(self, build, config):
        for split, ds in build(self.corpus, config).items():
            assert ds.features == self.info.config(config).features, split
        if config == "unified":
            assert self.info.config(config).features == UNIFIED_FEATURES

    def test_exact_counts_per_split(self, build):
        dsd = build(self.corpus)
        assert sorted(dsd) == sorted(self.expected_counts)
        for split, ds in dsd.items():
            turns = sum(len(r["dialog"]) for r in ds)
            assert (ds.num_rows, turns) == (self.expected_counts[split]["dialogues"],
                                            self.expected_counts[split]["turns"]), split
        for config, rows in self.expected_rows.items():
            assert {s: ds.num_rows for s, ds in build(self.corpus, config).items()} == rows, config

    def test_each_view_has_as_many_rows_as_the_source_has_turns_for_it(self, build, view):
        for split, ds in build(self.corpus, view).items():  # a chat config has its view's rows
            assert ds.num_rows == self.source_rows(view.removesuffix("-chat"), split) > 0, split

    def test_view_rows_use_nothing_after_their_turn(self, build, tmp_path, view):
        """The row of turn t built from the source dialogue cut after t (mapped to the
        unified schema, canonical values and all, then viewed) is the row built from the
        whole dialogue. A row about a whole dialogue (no turn) is checked on the cut after
        the dialogue's last turn. Where a view's rows hold something of their whole dialogue
        by design (``Config.given``: the user's goal of ``user-chat``), the rest of the row
        is checked so, and that part must be one for all the rows of a dialogue."""
        copy = self.copy(tmp_path)
        origin = {}  # (split, id of a cut) -> (id of its dialogue, t)
        last = {}  # (split, id of a dialogue) -> its last turn with a cut
        for split in self.expected_counts:
            for relpath in self.data_files(split):
                cuts = []
                for record in json.loads((copy / relpath).read_text(encoding="utf-8")):
                    for t, cut, cut_id, record_id in self.prefixes(record):
                        cuts.append(cut)
                        origin[(split, cut_id)] = (record_id, t)
                        last[(split, record_id)] = max(t, last.get((split, record_id), t))
                (copy / relpath).write_text(json.dumps(cuts, ensure_ascii=False), encoding="utf-8")
        built = load(self.corpus, view, data_dir=str(copy), checksums=write_checksums(copy),
                     cache_dir=str(tmp_path / "cache"))
        given = self.info.config(view).given or (lambda row: (None, row))
        checked = 0
        for split, ds in build(self.corpus, view).items():
            # A turn may have several rows (d3st: one per frame), told apart by the end of their ids.
            whole, parts = {}, {}
            for row in ds:
                part, rest = given(without_ids(row))
                whole[(original_of(row), turn_of(row), within_turn(row))] = rest
                parts.setdefault(original_of(row), []).append(part)
            assert all(part == group[0] for group in parts.values() for part in group), split
            for row in built[split]:
                dialogue, t = origin[(split, original_of(row))]
                turn = turn_of(row)
                if turn == t or (turn is None and t == last[(split, dialogue)]):
                    rest = given(without_ids(row))[1]
                    assert rest == whole[(dialogue, turn, within_turn(row))], (split, dialogue, t)
                    checked += 1
            assert checked, split
        assert checked == sum(ds.num_rows for ds in build(self.corpus, view).values())

    def test_splits_are_declared_in_order(self, build):
        assert list(build(self.corpus)) == [s for s in self.info.splits if s in self.expected_counts]

    def test_ids_unique_and_consistent(self, build):
        seen = set()
        for split, ds in build(self.corpus).items():
            for position, record in enumerate(ds):
                assert record["dialogue_id"] not in seen
                seen.add(record["dialogue_id"])
                assert (record["corpus"], record["split"]) == (self.corpus, split)
                original = record["original_id"]
                own_id = original if original is not None else f"#{position}"
                assert record["dialogue_id"] == f"{self.corpus}/{split}/{own_id}"

    def test_every_span_text_equals_its_value(self, build):
        checked = 0
        for ds in build(self.corpus).values():
            for record in ds:
                for t, turn in enumerate(record["dialog"]):
                    for field, value, start, end in spans_of(turn):
                        assert turn["utterance"][start:end] == value, (record["dialogue_id"], t, field)
                        checked += 1
        assert checked > 0 if self.spans else checked == 0

    def test_no_dialogue_in_two_plain_splits(self, build):
        owner = {}
        for split, ds in build(self.corpus).items():
            if split in self.info.split_unions:
                continue
            for record in ds:
                key = content_key(record)
                assert key not in owner, f"{record['dialogue_id']} also in {owner.get(key)}"
                owner[key] = split

    def test_union_splits_hold_exactly_their_parts(self, build):
        dsd = build(self.corpus)
        for union, parts in self.info.split_unions.items():
            in_parts = sum((Counter(content_key(r) for r in dsd[part]) for part in parts), Counter())
            assert Counter(content_key(r) for r in dsd[union]) == in_parts, union
            assert all(count == 1 for count in in_parts.values()), union

    def test_whole_record_matches_the_expected_one(self, build):
        expected = read_json(self.expected_record)
        split = expected["split"]
        (record,) = [r for r in build(self.corpus)[split] if r["dialogue_id"] == expected["dialogue_id"]]
        assert record == expected

    def test_round_trip_rebuilds_the_source(self, build, reversible_config):
        for split, ds in build(self.corpus, reversible_config).items():
            rebuilt = self.reverse[reversible_config](ds)
            start = 0
            for relpath in self.data_files(split):
                text = (Path(self.fixtures) / relpath).read_text(encoding="utf-8")
                source = json.loads(text)
                part, start = rebuilt[start:start + len(source)], start + len(source)
                if self.dump is not None:
                    assert self.dump(part) == text, relpath  # byte for byte
                else:
                    assert json.dumps(part) == json.dumps(source), relpath  # the same JSON, key order included
            assert start == len(rebuilt), split


def spans_of(turn):
    """(field, value, start, end) of every span-annotated value of a unified turn."""
    for act in turn["dialog_acts"] or []:
        for entry in act["slot_value_table"] or []:
            for v in entry["values"]:
                if v["start"] is not None or v["end"] is not None:
                    yield "dialog_acts", v["value"], v["start"], v["end"]
    for entity in turn["named_entity_recognition"] or []:
        for v in entity["values"]:
            if v["start"] is not None:
                yield "named_entity_recognition", v["value"], v["start"], v["end"]
    for aspect in turn["aspects"] or []:
        for part in ("target", "opinion"):
            if aspect[part] is not None and aspect[part]["start"] is not None:
                yield f"aspects.{part}", aspect[part]["value"], aspect[part]["start"], aspect[part]["end"]
    for span in turn["characters"] or []:
        yield "characters", span["value"], span["start"], span["end"]
    for segment in turn["segments"] or []:
        yield "segments", segment["text"], segment["start"], segment["end"]


ID_FIELDS = ("id", "dialogue_id", "original_id", "dialog_id", "gem_id")


def original_of(row):
    """The source id of the dialogue a view row is about."""
    if row.get("original_id") is not None:
        return row["original_id"]
    if "dialog_id" in row:  # GEM's name
        return row["dialog_id"]
    return row["dialogue_id"].split("/", 2)[2]


def turn_of(row):
    return row.get("turn_index", row.get("turn_id"))


def within_turn(row):
    """What tells apart the rows of one turn: the end of the row's id after
    ``<dialogue_id>/<turn>`` (d3st's ``/<frame_index>``, critic's ``/original``), "" where
    the id ends there; None for a row about no turn or without a ``dialogue_id``."""
    dialogue, turn = row.get("dialogue_id"), turn_of(row)
    if dialogue is None or turn is None:
        return None
    return row["id"][len(f"{dialogue}/{turn}"):]


def without_ids(row):
    return {key: value for key, value in row.items() if key not in ID_FIELDS}


def content_key(record):
    return tuple((tuple(t["roles"]), t["utterance"]) for t in record["dialog"])
