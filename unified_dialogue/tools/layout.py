"""The layout of a published repository: config names, shard paths and the ``configs:``
entry of its card.

A single-corpus repository has the loader's configs (``unified``, ``original``, the task
views, ...) and, for a corpus with variants, each config of each variant
(``<config>_<variant>``, e.g. SGD-X's ``dst_v3``). The combined repository (``all``) has
one config per corpus and loader config (``sgd``, ``sgd_original``, ``sgd_dst_v3``,
``ccpe``, ...), a ``unified`` config whose splits concatenate the corpora's unified shards
(every unified config has the same features), and likewise a config per task view that
several corpora offer (``response``, ``nlu``). Shards are
``<config>/<split>-NNNNN-of-NNNNN.parquet``.
"""

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

# The name of the combined repository of every corpus: the export's corpus argument, the
# combined card's template and file.
ALL = "all"
COMBINED_CONFIG = "unified"
# The splits a corpus adds to the combined configs (FaithDial's topic splits are parts of
# its validation and test).
COMBINED_SPLITS = ("train", "validation", "test")


class Entry(NamedTuple):
    """One config of a repository: its name there, and what builds it."""

    published: str
    corpus: object  # a Corpus
    config: str
    variant: Optional[str] = None


@dataclass(frozen=True)
class Layout:
    corpora: tuple  # Corpus objects, in order
    combined: bool
    # Corpus name -> the splits an export holds, where a partial copy lacks some of the
    # corpus's splits; by default every split of the corpus.
    exported_splits: dict = field(default_factory=dict)
    # Whether the configs of each variant of a corpus are published too.
    variants: bool = True

    def splits(self, corpus):
        return tuple(self.exported_splits.get(corpus.name, corpus.splits))

    def published(self, corpus, config, variant=None):
        """The config name in the repository."""
        name = config
        if self.combined:
            name = corpus.name if config == corpus.default_config else f"{corpus.name}_{config}"
        return f"{name}_{variant}" if variant else name

    def entries(self):
        """Every config of every corpus, then of each variant, in order."""
        return [Entry(self.published(c, config, variant), c, config, variant)
                for c in self.corpora for variant in (None, *(c.variants if self.variants else ()))
                for config in c.config_names]

    def combined_configs(self):
        """``{name: loader config}`` of the configs that concatenate several corpora."""
        if not self.combined:
            return {}
        shared = {COMBINED_CONFIG: COMBINED_CONFIG}
        views = [config.name for corpus in self.corpora for config in corpus.views]
        shared.update((name, name) for name in dict.fromkeys(views) if views.count(name) > 1)
        return shared

    def combined_splits(self, config=COMBINED_CONFIG):
        """Split -> corpora whose ``config`` shards the combined config's split concatenates."""
        splits = {}
        for corpus in self.corpora:
            if config not in corpus.config_names:
                continue
            for split in COMBINED_SPLITS:
                if split in self.splits(corpus):
                    splits.setdefault(split, []).append(corpus)
        return splits

    def configs(self):
        """The ``configs:`` list of the repository's card."""
        entries = []
        for name, config in self.combined_configs().items():
            entry = {
                "config_name": name,
                "data_files": [
                    {"split": split, "path": [shard_pattern(self.published(c, config), split) for c in corpora]}
                    for split, corpora in self.combined_splits(config).items()
                ],
            }
            if name == COMBINED_CONFIG:
                entry["default"] = True
            entries.append(entry)
        for name, corpus, config, variant in self.entries():
            entry = {
                "config_name": name,
                "data_files": [{"split": split, "path": shard_pattern(name, split)} for split in self.splits(corpus)],
            }
            if not self.combined and config == corpus.default_config and variant is None:
                entry["default"] = True
            entries.append(entry)
        return entries


def shard_pattern(config, split):
    # The "-" after the split keeps "validation" from matching "validation_random" shards.
    return f"{config}/{split}-*.parquet"


def shard_path(config, split, index, total):
    return f"{config}/{split}-{index:05d}-of-{total:05d}.parquet"


def jsonl_path(config, split, index, total):
    return f"jsonl/{config}/{split}-{index:05d}-of-{total:05d}.jsonl"
