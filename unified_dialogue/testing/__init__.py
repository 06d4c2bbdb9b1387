"""The shared test harness of corpora, for the bundled corpora and a corpus of your own alike
(as ``tfds.testing`` is TFDS's): ``CorpusTestCase``, the checks every corpus passes, which a
corpus's test subclasses with its fixtures and expected figures (its docstring says what to
set); ``Mutation`` and the small changes that make a fixture file bad (``edit``, ``remove``,
``raw``, ``replace``, ``cut``, ``become``, ``nested``); ``Mirror``, a local server of the
fixtures. It needs pytest, a test dependency, which the rest of the package does not import.
"""

from .bad_input_checks import BadInput
from .corpus_case import CorpusTestCase
from .loads import DATASETS_MAJOR, ONLY_DATASETS_3, ONLY_DATASETS_4_PLUS, build_once, read_json, write_checksums
from .mirror import Mirror, SilentServer, closed_url
from .mutations import KINDS, Mutation, become, cut, edit, nested, raw, remove, replace

__all__ = [
    "CorpusTestCase", "BadInput", "Mutation", "KINDS", "edit", "remove", "raw", "replace", "cut", "become", "nested",
    "Mirror", "SilentServer", "closed_url", "write_checksums", "build_once", "read_json",
    "DATASETS_MAJOR", "ONLY_DATASETS_3", "ONLY_DATASETS_4_PLUS",
]
