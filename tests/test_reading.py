"""Reading source files: mapped local files, JSON lists decoded record by record, and the
fallback that names the file, record and field of what the fast decoder refuses."""

import hashlib
import mmap
import os

import msgspec
import pytest

from unified_dialogue.builder import FileTask, decode_json_list, lazy_batches, parse_json_list, read_verified
from unified_dialogue.errors import ChecksumError, SourceFormatError
from unified_dialogue.sources import FileRecord, mapped_file

INTS = msgspec.json.Decoder(int)


def no_check(record, relpath, index):
    pass


def refuse_floats(record, relpath, index):
    if not isinstance(record, int):
        raise SourceFormatError(relpath, f"record #{index}", "(value)", f"expected int, got {type(record).__name__}")


def test_a_local_file_is_mapped_and_other_paths_are_not(tmp_path):
    path = tmp_path / "dialogues_001.json"
    path.write_bytes(b"[1, 2, 3]")
    data = mapped_file(str(path))
    assert isinstance(data, mmap.mmap) and data[:] == b"[1, 2, 3]"
    (tmp_path / "empty.json").write_bytes(b"")
    assert mapped_file(str(tmp_path / "empty.json")) is None  # mmap refuses an empty file
    assert mapped_file(str(tmp_path / "missing.json")) is None
    assert mapped_file("https://127.0.0.1:9/train/dialogues_001.json") is None


def test_files_are_not_mapped_where_a_mapped_file_cannot_be_replaced(tmp_path, monkeypatch):
    path = tmp_path / "dialogues_001.json"
    path.write_bytes(b"[1]")
    monkeypatch.setattr(os, "name", "nt")
    assert mapped_file(str(path)) is None
    monkeypatch.undo()
    assert bytes(read_verified(str(path), "dialogues_001.json", None, mapped=True)) == b"[1]"


@pytest.mark.parametrize("content", [b"[1, 2, 3]", b""])
def test_read_verified_checks_a_mapped_file_as_it_checks_bytes(tmp_path, content):
    path = tmp_path / "dialogues_001.json"
    path.write_bytes(content)
    good = FileRecord("train/dialogues_001.json", len(content), hashlib.sha256(content).hexdigest())
    assert bytes(read_verified(str(path), good.path, good, mapped=True)) == content
    wrong = FileRecord(good.path, len(content), hashlib.sha256(b"other").hexdigest())
    with pytest.raises(ChecksumError, match="sha256 mismatch for train/dialogues_001.json"):
        read_verified(str(path), good.path, wrong, mapped=True)


def test_a_file_task_reads_its_local_file_mapped(tmp_path):
    path = tmp_path / "dialogues_001.json"
    path.write_bytes(b"[1]")
    record = FileRecord("train/dialogues_001.json", 3, hashlib.sha256(b"[1]").hexdigest())
    data = FileTask(None, None, record.path, str(path), record).read()
    assert isinstance(data, mmap.mmap) and data[:] == b"[1]"


def test_records_are_decoded_one_at_a_time(tmp_path):
    records = decode_json_list(b'[1, 2, "three"]', "f.json", INTS, refuse_floats)
    assert next(records) == 1 and next(records) == 2  # the third is not decoded yet
    with pytest.raises(SourceFormatError) as error:
        next(records)
    assert (error.value.file, error.value.record) == ("f.json", "record #2")


def test_a_record_only_the_fast_decoder_refuses_is_jsons_from_there_on():
    records = list(decode_json_list(b"[1, 2, 3.0, 4]", "f.json", INTS, no_check))
    assert records == [1, 2, 3.0, 4] and isinstance(records[2], float)


def test_a_file_the_fast_decoder_refuses_whole_is_jsons():
    bom = b"\xef\xbb\xbf[1, 2]"  # json reads a UTF-8 byte order mark; msgspec does not
    assert list(decode_json_list(bom, "f.json", INTS, refuse_floats)) == [1, 2]


@pytest.mark.parametrize("data, record, field", [
    (b'{"turns": []}', "whole file", "(top level)"),
    (b"[1, 2", "whole file", "(json)"),
    (b'[1, "\\ud800"]', "record #1", "(value)"),
])
def test_what_the_fast_decoder_refuses_is_named(data, record, field):
    with pytest.raises(SourceFormatError) as error:
        list(decode_json_list(data, "f.json", msgspec.json.Decoder(object), no_check))
    assert (error.value.file, error.value.record, error.value.field) == ("f.json", record, field)


def test_a_mapped_file_goes_through_the_fallback_too(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b"[1, 2.5]")
    data = mapped_file(str(path))
    assert list(decode_json_list(data, "f.json", INTS, no_check)) == [1, 2.5]
    assert parse_json_list(data, "f.json") == [1, 2.5]


def test_lazy_batches_take_items_only_as_they_are_consumed():
    taken = []
    items = (taken.append(n) or n for n in range(7))
    batches = lazy_batches(items, 3)
    first = next(batches)
    assert taken == [0]
    assert list(first) == [0, 1, 2] and taken == [0, 1, 2]
    assert [list(batch) for batch in batches] == [[3, 4, 5], [6]]
    assert list(lazy_batches([], 3)) == []
    assert [list(b) for b in lazy_batches(range(6), 3)] == [[0, 1, 2], [3, 4, 5]]
