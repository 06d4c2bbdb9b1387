"""The shared test harness of corpora, for the bundled corpora and a corpus of your own alike
(as ``tfds.testing`` is TFDS's): ``CorpusTestCase``, the checks every corpus passes, which a
corpus's test subclasses with its fixtures and expected figures (its docstring says what to
set); ``Mutation`` and the small changes that make a fixture file bad (``edit``, ``remove``,
``raw``, ``replace``, ``cut``, ``become``, ``nested``); ``Mirror``, a local server of the
fixtures. These need pytest, a test dependency, which the rest of the package does not
import: they are imported when first named, so that the modules that need no pytest
(``server``, the stand-in chat server; ``tiny_model``) run without it.
"""

import importlib

# Each name, and the module that defines it.
MODULES = {
    "BadInput": "bad_input_checks",
    "CorpusTestCase": "corpus_case",
    **dict.fromkeys(["DATASETS_MAJOR", "ONLY_DATASETS_3", "ONLY_DATASETS_4_PLUS", "build_once", "read_json",
                     "write_checksums"], "loads"),
    **dict.fromkeys(["Mirror", "SilentServer", "closed_url"], "mirror"),
    **dict.fromkeys(["KINDS", "Mutation", "become", "cut", "edit", "nested", "raw", "remove", "replace"], "mutations"),
}
__all__ = list(MODULES)


def __getattr__(name):
    if name not in MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{MODULES[name]}", __name__), name)
