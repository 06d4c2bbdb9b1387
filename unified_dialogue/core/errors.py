"""The errors the project raises. Each says what is wrong and where: the file, the record
and the field for bad input, the URL for a failed download.

They derive from ``datasets``' DatasetGenerationError, which ``datasets`` passes on as it
is instead of wrapping it in "An error occurred while generating the dataset": so the last
line a user sees is the loader's own message, with ``load_dataset`` as with ``load``, in
one process or with ``num_proc``.
"""

import difflib

from datasets.exceptions import DatasetGenerationError


def with_article(noun):
    """``noun`` after "a" or "an", as a message names a type: "an int", "a str"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _plain(name):
    return str(name).lower().replace("-", "_")


def close_match(name, names, cutoff=0.6):
    """The one of ``names`` that ``name`` is most likely a misspelling of (``use_fuzzy`` ->
    ``use_fuzzy_match``, ``SGD`` -> ``sgd``, ``data-dir`` -> ``data_dir``), or None.

    Example:
        >>> close_match("datadir", ["data_dir", "cache_dir"])
        'data_dir'
    """
    names = [str(n) for n in names]
    plain = {_plain(n): n for n in names}
    if _plain(name) in plain:
        return plain[_plain(name)]
    found = difflib.get_close_matches(_plain(name), list(plain), n=1, cutoff=cutoff)
    return plain[found[0]] if found else None


def did_you_mean(names, known, cutoff=0.6):
    """``": did you mean 'x'?"`` for the first of ``names`` with a close match among
    ``known`` (``close_match``), or ""."""
    for name in names:
        match = close_match(name, known, cutoff)
        if match is not None and match != name:
            return f": did you mean {match!r}?" if len(names) == 1 else f": did you mean {match!r} for {name!r}?"
    return ""


class UnifiedDialogueError(DatasetGenerationError):
    """The base of every error this project raises."""


class SourceFormatError(UnifiedDialogueError, ValueError):
    """A source record that does not match the corpus's documented format."""

    def __init__(self, file, record, field, problem):
        self.file, self.record, self.field, self.problem = file, record, field, problem
        # A lone surrogate (from the bad input itself) would make the message unprintable.
        message = f"{file}: {record}: field '{field}': {problem}"
        super().__init__(message.encode("utf-8", "backslashreplace").decode("utf-8"))

    def __reduce__(self):
        # rebuilt from its parts, so that it comes back intact from a worker process
        return type(self), (self.file, self.record, self.field, self.problem)


class ChecksumError(UnifiedDialogueError, ValueError):
    """A downloaded or local file whose size or sha256 differs from the checksum table,
    or a file the table does not list."""


class MissingFilesError(UnifiedDialogueError, FileNotFoundError):
    """A local copy (``data_dir``) that does not exist, holds nothing the loader reads, or
    lacks files the checksum table lists."""


class MissingSplitError(MissingFilesError, ValueError):
    """A split the corpus has but the source read (a partial copy) gives no file of; a
    ValueError, as ``datasets``' own error for an unknown split is. ``source``: the copy
    (``data_dir ...``); ``split``; ``given``: the splits it has files of."""

    def __init__(self, source, split, given, fix):
        self.source, self.split, self.given, self.fix = source, split, given, fix
        super().__init__(f"{source} has no file of the split {split!r} (it gives the splits {', '.join(given)}): "
                         f"add that split's files, or choose one it gives ({fix})")

    def __reduce__(self):
        return type(self), (self.source, self.split, self.given, self.fix)


class DownloadError(UnifiedDialogueError, ConnectionError):
    """A download that failed or did not answer in time; the message names the URL and
    says how to load a local copy instead."""


class ConfigError(UnifiedDialogueError, TypeError, ValueError):
    """An option the loader does not take (a TypeError, as for an unexpected argument), or
    a value it cannot use (a ValueError)."""
