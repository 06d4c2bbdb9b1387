"""A split made ready to play: its ``episodes`` rows, its service schemas, and its
database file, built once into the cache of the ``database`` config and reused.

The file lies beside the ``database`` config's cache files (``environment-<split>.sqlite``
in the folder of the built config, whose name carries the variant and the source's
fingerprint); a config kept in memory gets one in the temporary folder, named by its
fingerprint.
"""

import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict

from .. import load, registry
from ..core.errors import ConfigError
from . import database
from .episodes import checked_mode
from .services import Services


def file_for(rows, split):
    """Where the database of ``rows`` (a built ``database`` config) lies."""
    if rows.cache_files:
        folder = os.path.dirname(rows.cache_files[0]["filename"])
        return os.path.join(folder, f"environment-{split}.sqlite")
    return os.path.join(tempfile.gettempdir(), "unified_dialogue", f"environment-{rows._fingerprint}.sqlite")


def database_file(split, *, variant=None, **load_options):
    """The database file of ``split`` (built if it is not yet, or is of another version).

    Args:
        split: a split of SGD.
        variant: an SGD-X variant (``v1`` … ``v5``), or None.
        load_options: ``load``'s options (``data_dir``, ``cache_dir``, ``verification_mode``, ...).

    Returns:
        The path of the SQLite file.

    Example:
        >>> path = database_file("validation", data_dir="path/to/sgd")
    """
    variant_option = {"variant": variant} if variant else {}
    rows = load("sgd", "database", split=split, **variant_option, **load_options)
    path = file_for(rows, split)
    if not database.is_current(path):
        schemas = load("sgd", "schema", split=split, **variant_option, **load_options)
        database.build(rows, schemas, path)
    return path


@dataclass
class Split:
    """A split ready to play: ``episodes`` (the judged ``episodes`` rows of the mode),
    ``schemas`` (service name → schema record), ``path`` (the database file), ``left_out``
    (the dialogues left out of the judged set, counted by reason: ``environment.leftout``)."""

    name: str
    mode: str
    episodes: object
    schemas: Dict[str, dict]
    path: str
    left_out: Dict[str, int] = field(default_factory=dict)

    def services(self, names):
        """The ``Services`` of a dialogue's services ``names``."""
        return Services(self.schemas[name] for name in names)


def checked(split, mode, variant=None):
    """Raise ConfigError for a split, mode or variant the environment does not have,
    before anything is built."""
    checked_mode(mode)
    sgd = registry.get("sgd")
    if split not in sgd.splits:
        raise ConfigError(f"split {split!r}: the environment plays one split of SGD at a time, one of "
                          f"{', '.join(sgd.splits)}")
    if variant is not None and variant not in sgd.variants:
        raise ConfigError(f"variant {variant!r}: the environment plays SGD's own names (no variant) or an SGD-X "
                          f"variant's, one of {', '.join(sgd.variants)}")


def prepare(split, *, mode="ticket", variant=None, instruction=None, **load_options):
    """``Split`` of ``split`` in ``mode`` (see ``database_file`` for the arguments; the
    ``episodes`` config's own options ``mode`` and ``instruction``)."""
    checked(split, mode, variant)
    variant_option = {"variant": variant} if variant else {}
    every = load("sgd", "episodes", split=split, mode=mode, instruction=instruction, **variant_option,
                 **load_options)
    left_out = dict(sorted(Counter(reason for reason in every["left_out"] if reason).items()))
    episodes = every.filter(lambda reason: not reason, input_columns=["left_out"]) if left_out else every
    schemas = {row["service_name"]: row for row in load("sgd", "schema", split=split, **variant_option,
                                                        **load_options)}
    path = database_file(split, variant=variant, **load_options)
    return Split(split, mode, episodes, schemas, path, left_out)
