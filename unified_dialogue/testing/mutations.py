"""Bad inputs for the corpus test case: each ``Mutation`` says which fixture file to
change, how (one of the small changes below, each a function from the file's bytes to bad
ones), and the record and field the error must name. ``KINDS`` are the kinds of bad input
every corpus's catalogue covers (or says why its format cannot have)."""

import json
from dataclasses import dataclass
from typing import Callable, Optional

# The kinds of bad input every corpus's catalogue covers.
KINDS = (
    "truncated", "empty file", "empty list", "not UTF-8", "invalid JSON", "not a list", "wrong type", "missing key",
    "unknown key", "unknown label", "int32 overflow", "deep nesting", "lone surrogate", "duplicate id",
    "empty dialogue",
)


@dataclass(frozen=True)
class Mutation:
    """One bad input: ``change`` turns the bytes of the fixture ``file`` into bad ones; the
    error must name ``file``, ``record`` and ``field`` (and ``also``, where it names a
    second place)."""

    kind: str
    file: str
    change: Callable
    record: str
    field: str
    configs: Optional[tuple] = None  # default: the test case's data_configs
    also: Optional[str] = None
    named_file: Optional[str] = None  # the file the error names, where not the changed one

    def __str__(self):
        return f"{self.kind}: {self.file}: {self.record}: {self.field}"


# ---------------------------------------------------------------- changes, one line each

def _walk(value, path):
    *parents, last = [int(p) if p.lstrip("-").isdigit() else p for p in path.split(".")]
    for key in parents:
        value = value[key]
    return value, last


def edit(path, new):
    """Set the value at a dotted path (``0.turns.1.speaker``) of the file's JSON."""
    def change(data):
        records = json.loads(data)
        parent, key = _walk(records, path)
        parent[key] = new
        return json.dumps(records, ensure_ascii=False).encode()
    return change


def remove(path):
    """Delete the key or item at a dotted path of the file's JSON."""
    def change(data):
        records = json.loads(data)
        parent, key = _walk(records, path)
        del parent[key]
        return json.dumps(records, ensure_ascii=False).encode()
    return change


def raw(path, text):
    """Put ``text``, raw JSON text (e.g. an escape json.dumps would not write), at a path."""
    def change(data):
        records = json.loads(data)
        parent, key = _walk(records, path)
        parent[key] = "\0MARK\0"
        return json.dumps(records, ensure_ascii=False).replace('"\\u0000MARK\\u0000"', text).encode()
    return change


def replace(old, new):
    """Replace the first occurrence of bytes ``old``."""
    def change(data):
        assert old in data, old
        return data.replace(old, new, 1)
    return change


def cut(fraction=0.5):
    return lambda data: data[:int(len(data) * fraction)]


def become(content):
    return lambda data: content


def nested(path, depth=100_000):
    """Nest arrays ``depth`` levels deep at a path."""
    return raw(path, "[" * depth + "]" * depth)
