"""What a corpus declares about itself, in its own folder (``loaders/<name>/corpus.py``):
configs, splits, sources, card metadata and the figures of its statistics. Everything the
shared code (``load``, cards, export, publish, bench, the shared tests) knows of a corpus
comes from here, found through the registry."""

import functools
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import datasets


@dataclass(frozen=True)
class Config:
    """One config of a corpus's loader. ``key``: the columns whose values identify a row
    (unique within a split), empty where rows have no identity of their own. ``view``: for
    a task view (``unified_dialogue.views.config``), the function from unified records to
    its rows; the config is built from the unified one. ``options``: the ``core.options.
    Option``s a user may set at load time; ``view`` is called with each one's value.
    ``given``: for a view whose rows hold something of their whole dialogue by design (the
    user's goal of ``user-chat``), ``given(row) -> (that part, the rest of the row)``: the
    part is one per dialogue, and the rest uses nothing after the row's turn (the shared
    tests check both)."""

    name: str
    description: str
    features: datasets.Features
    key: tuple = ("dialogue_id",)
    view: Optional[Callable] = None
    options: tuple = ()
    given: Optional[Callable] = None


@dataclass(frozen=True)
class Measure:
    """One figure of a split's statistics. ``kind``: ``count`` (added up over dialogues),
    ``distinct`` (the number of different values seen) or ``labels`` (a count per label,
    shown as its own table)."""

    key: str
    label: str
    kind: str = "count"


@dataclass(frozen=True)
class Corpus:
    name: str
    short_name: str
    pretty_name: str
    description: str
    homepage: str
    citation: str
    license: str  # as the loader's DatasetInfo states it
    # Where the source files come from: ``base_url`` + each path of the checksum table.
    base_url: str
    source_revision: str  # the pinned commit or revision, named in the card
    configs: tuple  # Config objects; the first is the default
    splits: tuple
    # The data files of each split, as glob patterns relative to the copy's root.
    split_files: dict
    version: str = "1.0.0"
    # Files each split needs besides its data files, as glob patterns (e.g. a schema).
    support_files: dict = field(default_factory=dict)
    # Splits that are unions of others ({union: parts}): never concatenate them with their parts.
    split_unions: dict = field(default_factory=dict)
    # Values of the corpus's ``variant`` option (SGD: SGD-X's v1 … v5): every config of each
    # is published as a config of its own, ``<config>_<variant>``.
    variants: tuple = ()
    # Hugging Face card metadata.
    license_ids: tuple = ()
    license_text: str = ""  # the license and attribution line of the combined card
    task_categories: tuple = ()
    task_ids: tuple = ()
    source_datasets: tuple = ()
    language: tuple = ("en",)
    # Statistics: corpus figures after the shared ones (dialogues, turns, dialog acts), and
    # a function adding one unified record to a split's accumulator.
    measures: tuple = ()
    count: Optional[Callable] = None
    # Where ``make cards DATA=<folder>`` looks for a local copy, relative to the folder; the
    # first that exists is used. A file stands in for the corpus's single source file.
    local_copies: tuple = ()
    # Benchmark input: ``replicate(source, destination, scale)`` writes a copy in the
    # upstream layout about the corpus's upstream size times ``scale`` and returns its
    # data files per split; ``bench_source`` is the default source (relative to the
    # repository), ``bench_option`` names the command-line option that overrides it.
    replicate: Optional[Callable] = None
    bench_source: Optional[str] = None
    # The package of the corpus's folder (``loaders.sgd``): ``package=__package__``.
    package: str = ""

    @property
    def config_names(self):
        return tuple(config.name for config in self.configs)

    @property
    def views(self):
        """The configs that are task views."""
        return tuple(config for config in self.configs if config.view is not None)

    @property
    def default_config(self):
        return self.configs[0].name

    def config(self, name):
        for config in self.configs:
            if config.name == name:
                return config
        raise KeyError(f"{self.name} has no config {name!r} (configs: {', '.join(self.config_names)})")

    @property
    def folder(self):
        """The corpus's folder on disk."""
        import importlib

        return os.path.dirname(importlib.import_module(self.package).__file__)

    @property
    def builder_module(self):
        return f"{self.package}.{self.name}"

    @property
    def strategies_module(self):
        """The module of the hypothesis strategies writing copies of the corpus, for the
        tests (``registry.strategies``), where the folder has one."""
        return f"{self.package}.strategies"

    @property
    def checksums_path(self):
        return os.path.join(self.folder, "checksums.tsv")

    @property
    def card_template_path(self):
        return os.path.join(self.folder, "card.md")

    @property
    def local_patterns(self):
        """Every pattern of a data file, for fingerprinting and listing a local copy."""
        every = [*self.split_files.values(), *self.support_files.values()]
        return tuple(dict.fromkeys(p for patterns in every for p in _as_tuple(patterns)))

    def local_copy(self, root):
        """The first of ``local_copies`` that exists under the folder ``root``, or None."""
        return next((os.path.join(root, p) for p in self.local_copies if os.path.exists(os.path.join(root, p))), None)

    def files_of_split(self, split, relpaths):
        """The paths among ``relpaths`` that hold ``split``'s data, sorted."""
        patterns = _as_tuple(self.split_files[split])
        return sorted(p for p in relpaths if any(matches(p, pattern) for pattern in patterns))


@functools.lru_cache(maxsize=None)
def _glob_regex(pattern):
    return re.compile("".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in pattern))


def matches(path, pattern):
    """Whether a relative path matches a glob pattern, as ``glob`` would find it (``*``
    does not cross folders)."""
    return _glob_regex(pattern).fullmatch(path) is not None


def _as_tuple(patterns):
    return (patterns,) if isinstance(patterns, str) else tuple(patterns)
