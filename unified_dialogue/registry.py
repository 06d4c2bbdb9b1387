"""The registry: where the shared code finds the corpora.

A corpus is a folder (a package) holding ``corpus.py``, which defines ``CORPUS`` (a
``core.corpus.Corpus``), its builder ``<name>.py`` and, for the tests, maybe
``strategies.py``, hypothesis strategies writing valid copies of it. The bundled corpora are the
packages under ``loaders/``; more packages of corpora are named, comma-separated, in the
environment variable ``UNIFIED_DIALOGUE_CORPORA`` (e.g. ``my_corpora``: its subpackages
``my_corpora.<name>`` must be importable). Adding a corpus edits nothing here.
"""

import importlib
import inspect
import os
import pkgutil

import datasets

BUNDLED = "loaders"
EXTRA_VARIABLE = "UNIFIED_DIALOGUE_CORPORA"


def packages():
    extra = [p.strip() for p in os.environ.get(EXTRA_VARIABLE, "").split(",") if p.strip()]
    return [BUNDLED, *extra]


def corpora():
    """``{name: Corpus}`` of every corpus found, bundled ones first, each set in name order."""
    found = {}
    for package in packages():
        module = importlib.import_module(package)
        for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
            if not info.ispkg:
                continue
            name = f"{package}.{info.name}"
            try:
                definition = importlib.import_module(f"{name}.corpus")
            except ModuleNotFoundError as error:
                if error.name == f"{name}.corpus":
                    continue  # a folder that holds no corpus
                raise
            corpus = definition.CORPUS
            if (corpus.name, corpus.package) != (info.name, name):
                raise ValueError(f"{name}.corpus declares {corpus.name!r} in the package {corpus.package!r}: the name "
                                 f"must be the folder's, {info.name!r}, and the package {name!r} (package=__package__)")
            if corpus.name in found:
                raise ValueError(f"two corpora named {corpus.name!r}: {found[corpus.name].package} and {name}")
            found[corpus.name] = corpus
    return found


def get(name_or_path):
    """A corpus by name (``sgd``) or by its folder's path (``loaders/sgd``)."""
    name = os.path.basename(os.path.normpath(str(name_or_path)))
    found = corpora()
    if name not in found:
        raise ValueError(f"unknown corpus {name_or_path!r}: expected one of {', '.join(found)}, or a path to one")
    corpus = found[name]
    path = str(name_or_path)
    if "/" in path or os.sep in path:
        # a path names one folder: another folder of the same name (or none) is not this corpus
        if not os.path.isdir(path) or not os.path.samefile(path, corpus.folder):
            raise ValueError(f"{path} is not the folder of the registered corpus {name!r} ({corpus.folder}): "
                             f"name the corpus ({name!r}) or its folder; more corpora: {EXTRA_VARIABLE}")
    return corpus


def builder_class(corpus):
    """The builder class of a corpus (a Corpus or its name)."""
    if isinstance(corpus, str):
        corpus = get(corpus)
    module = importlib.import_module(corpus.builder_module)
    for obj in vars(module).values():
        if inspect.isclass(obj) and issubclass(obj, datasets.DatasetBuilder) and obj.__module__ == module.__name__:
            return obj
    raise ValueError(f"{corpus.builder_module} defines no dataset builder")


def strategies(corpus):
    """The hypothesis strategies of a corpus (a Corpus or its name): its folder's module
    ``strategies.py`` (``unified_dialogue.testing.strategies`` says what it defines), or
    None where the folder has none. Importing it needs hypothesis, a test dependency.

    Example:
        >>> strategies("sgd").__name__
        'loaders.sgd.strategies'
    """
    if isinstance(corpus, str):
        corpus = get(corpus)
    try:
        return importlib.import_module(corpus.strategies_module)
    except ModuleNotFoundError as error:
        if error.name == corpus.strategies_module:
            return None  # a corpus without strategies
        raise
