"""The environment's database: a SQLite file built from a split's ``database`` rows (one
per service call the corpus recorded), and how a call is answered from it.

A query (an intent that is not transactional) is answered, in this order:

1. with the rows the dialogue itself recorded for the same call (the same tool and the same
   compared arguments, ``services.Tool.key``); a call the dialogue made several times gets,
   the k-th time it is made, the k-th recording (after the last, the last again);
2. else with the rows whose values equal every argument (compared values, the defaults
   applied; ``dontcare`` and slots that are no result slot of the intent put no
   condition): first those the dialogue itself recorded for the tool under any call, then
   those of the split's union for the tool (every distinct row any dialogue's call of the
   tool returned, in the order they first appear), one row per item (``identity``: the
   dialogue's latest row of an item stands for it, so an item the user was told about has
   the values they were told), at most ``LIMIT``;
3. else with no rows.

A transaction is answered with the dialogue's recording of the same call (a call the
corpus reported as failed is answered by the episode as a refusal, ``chat.agent.refusal``);
else, where its arguments keep to the schema, with a
confirmation made from them (``services.Tool.confirmation``). The episode keeps the
transactions; the file is never written after it is built.

The file (``calls``, ``rows``, ``row_values``, ``meta``; see ``SCHEMA``) can be opened
with any SQLite client: ``calls`` holds every recorded call with its arguments and results
as JSON text.
"""

import json
import os
import sqlite3
import tempfile
import threading
from urllib.request import pathname2url

from ..chat.agent import dumps
from .services import DONTCARE, Services

# The most rows a query of SGD's simulator returned, and the most the union gives.
LIMIT = 10
# Bumped when the tables change: a file of another version is built again.
VERSION = 2
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE calls (id INTEGER PRIMARY KEY, dialogue_id TEXT NOT NULL, turn_index INTEGER NOT NULL,
                    service TEXT NOT NULL, intent TEXT NOT NULL, tool TEXT NOT NULL, transactional INTEGER NOT NULL,
                    call_key TEXT NOT NULL, arguments TEXT NOT NULL, results TEXT NOT NULL);
CREATE TABLE rows (id INTEGER PRIMARY KEY, tool TEXT NOT NULL, row TEXT NOT NULL, UNIQUE (tool, row));
CREATE TABLE row_values (row INTEGER NOT NULL REFERENCES rows (id), tool TEXT NOT NULL, slot TEXT NOT NULL,
                         value TEXT NOT NULL);
CREATE TABLE dialogue_rows (dialogue_id TEXT NOT NULL, tool TEXT NOT NULL, row INTEGER NOT NULL REFERENCES rows (id),
                            position INTEGER NOT NULL);
"""
INDEXES = """
CREATE INDEX calls_by_key ON calls (dialogue_id, call_key, turn_index);
CREATE INDEX row_values_by_value ON row_values (tool, slot, value, row);
CREATE INDEX dialogue_rows_by_dialogue ON dialogue_rows (dialogue_id, tool, row);
"""


def pairs_dict(pairs):
    return {pair["slot"]: pair["value"] for pair in pairs}


def build(rows, schemas, path):
    """Write the database of ``rows`` (``database`` rows: a ``datasets.Dataset`` or any
    iterable of dicts) at ``path``, in a file of its own moved there when complete.

    Args:
        rows: the ``database`` rows of one split.
        schemas: the split's service schemas (``schema`` rows), for the compared values.
        path: the file to write.

    Returns:
        ``path``.

    Example:
        >>> build(load("sgd", "database", split="train"), load("sgd", "schema", split="train"), "train.sqlite")
    """
    services = Services(schemas)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    handle, partial = tempfile.mkstemp(suffix=".partial", dir=folder)
    os.close(handle)
    try:
        connection = sqlite3.connect(partial)
        with connection:
            connection.executescript(SCHEMA)
            connection.execute("INSERT INTO meta VALUES ('version', ?)", (str(VERSION),))
            fill(connection, rows, services)
            connection.executescript(INDEXES)
        connection.close()
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return path


COLUMNS = ("dialogue_id", "turn_index", "service", "intent", "arguments", "results")


def batches(rows):
    """The rows as column batches of Python values: a Dataset's read by Arrow, else grouped."""
    if hasattr(rows, "with_format"):
        table = rows.with_format("arrow")[:].select(list(COLUMNS))
        for batch in table.to_batches(max_chunksize=4096):
            yield {name: batch.column(name).to_pylist() for name in COLUMNS}
        return
    rows = list(rows)
    yield {name: [row[name] for row in rows] for name in COLUMNS}


def fill(connection, rows, services):
    calls, union, values, compared, own = [], {}, [], {}, []
    for batch in batches(rows):
        for index in range(len(batch["dialogue_id"])):
            tool = services.tool(batch["service"][index], batch["intent"][index])
            arguments = pairs_dict(batch["arguments"][index])
            results = [pairs_dict(result) for result in batch["results"][index]]
            texts = [dumps(result) for result in results]
            calls.append((batch["dialogue_id"][index], batch["turn_index"][index], tool.service, tool.intent,
                          tool.name, int(tool.transactional), tool.key(arguments), dumps(arguments),
                          f"[{', '.join(texts)}]"))
            if tool.transactional:
                continue
            for result, text in zip(results, texts):
                if (tool.name, text) in union:
                    own.append((batch["dialogue_id"][index], tool.name, union[(tool.name, text)], len(own)))
                    continue
                union[(tool.name, text)] = number = len(union) + 1
                own.append((batch["dialogue_id"][index], tool.name, number, len(own)))
                for slot, value in result.items():
                    key = (tool.name, slot, value)
                    if key not in compared:  # the same values recur in many rows
                        compared[key] = services.row_values(tool, {slot: value})[slot]
                    values.append((number, tool.name, slot, compared[key]))
    connection.executemany("INSERT INTO calls (dialogue_id, turn_index, service, intent, tool, transactional, "
                           "call_key, arguments, results) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", calls)
    connection.executemany("INSERT INTO rows (id, tool, row) VALUES (?, ?, ?)",
                           ((number, tool, text) for (tool, text), number in union.items()))
    connection.executemany("INSERT INTO row_values VALUES (?, ?, ?, ?)", values)
    connection.executemany("INSERT INTO dialogue_rows VALUES (?, ?, ?, ?)", own)


def read_only(path):
    """The URI opening ``path`` read-only (the path quoted: a cache folder's name holds ``%``)."""
    return f"file:{pathname2url(os.path.abspath(path))}?mode=ro"


def is_current(path):
    """Whether ``path`` is a complete database of this version."""
    if not os.path.exists(path):
        return False
    try:
        connection = sqlite3.connect(read_only(path), uri=True)
        try:
            found = connection.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return False
    return found is not None and found[0] == str(VERSION)


# ---------------------------------------------------------------- answering

_CONNECTIONS = {}
_LOCK = threading.Lock()


def connection_to(path):
    """One read-only connection per file and process, shared by its episodes (SQLite
    serialises its use; the lock keeps a query's statements together)."""
    key = (os.getpid(), path)
    if key not in _CONNECTIONS:
        _CONNECTIONS[key] = sqlite3.connect(read_only(path) + "&immutable=1", uri=True, check_same_thread=False)
    return _CONNECTIONS[key]


def recorded(path, dialogue_id, key):
    """The results (lists of row dicts) the dialogue recorded for the call ``key``, in order."""
    with _LOCK:
        found = connection_to(path).execute(
            "SELECT results FROM calls WHERE dialogue_id = ? AND call_key = ? ORDER BY turn_index",
            (dialogue_id, key)).fetchall()
    return [json.loads(text) for (text,) in found]


def matching(path, tool, compared, dialogue_id=None, identity=None):
    """The rows of ``tool`` that match ``compared`` (``{slot: compared value}``): those
    dialogue ``dialogue_id`` recorded first, then the union's, in their order, one per
    item (``identity(row)``: what identifies a row's item; None: every row its own), at
    most ``LIMIT``."""
    conditions = [(slot, value) for slot, value in sorted(compared.items())
                  if value != DONTCARE and slot in tool.result_slots]
    subqueries = " INTERSECT ".join(["SELECT row FROM row_values WHERE tool = ? AND slot = ? AND value = ?"]
                                    * len(conditions)) or "SELECT id FROM rows WHERE tool = ?"
    parameters = [p for slot, value in conditions for p in (tool.name, slot, value)] or [tool.name]
    with _LOCK:
        recorded_rows = connection_to(path).execute(
            f"SELECT rows.row FROM dialogue_rows JOIN rows ON rows.id = dialogue_rows.row "
            f"WHERE dialogue_rows.dialogue_id = ? AND dialogue_rows.tool = ? AND dialogue_rows.row IN ({subqueries}) "
            f"ORDER BY dialogue_rows.position", [dialogue_id, tool.name, *parameters]).fetchall()
        union_rows = connection_to(path).execute(
            f"SELECT row FROM rows WHERE id IN ({subqueries}) ORDER BY id LIMIT {LIMIT + len(recorded_rows)}",
            parameters).fetchall()
    identity = identity or (lambda row: json.dumps(row, sort_keys=True))
    latest = {identity(row): row for row in (json.loads(text) for (text,) in recorded_rows)}
    found = dict(latest)
    for row in (json.loads(text) for (text,) in union_rows):
        found.setdefault(identity(row), row)
    return list(found.values())[:LIMIT]
