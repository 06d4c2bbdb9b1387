"""The run's metadata of an lm-eval task (``--metadata '{...}'``, ``TaskManager(metadata=...)``)
checked before anything loads, each mistake one line that names the metadata key and shows
the ``--metadata`` form of the fix; and how such a line ends lm-eval's command.

lm-eval merges the model's arguments into the run's metadata, so a key no task takes may be
a model's (``pretrained``, ``num_concurrent``): only a key close to one a task takes
(``datadir``) is refused. A value given as an object is per corpus (``{"data_dir": {"sgd":
...}}``): its keys must name corpora.
"""

import json
import os
import sys

from datasets.utils.info_utils import VerificationMode

from .. import registry
from ..api import LOAD_PARAMETERS, NOT_STREAMED, check_split, checked_verification_mode, config_of, corpus_of
from ..core.errors import ConfigError, close_match
from ..scoring.configs import CONFIGS

# lm-eval merges the model's arguments into the run's metadata: names that ``load`` takes
# and models' arguments use too are never read from it (servers' base_url, vLLM's and
# servers' seed: D3ST's option of that name keeps its default; hf's token and
# trust_remote_code).
MODEL_ARGUMENTS = ("base_url", "seed", "token", "trust_remote_code")
# Keys of a task file's own metadata (and lm-eval's config_source).
TASK_KEYS = ("corpus", "config", "split", "version", "config_source")
# Arguments of ``load`` a task cannot take: it evaluates rows held whole, and a metadata
# value is JSON.
NOT_TAKEN = {"streaming": NOT_STREAMED,
             "download_config": "it is a Python object, which --metadata (JSON) cannot give",
             "storage_options": "a local copy (data_dir) or a mirror (base_url) is given by path"}


class MetadataError(ConfigError):
    """A key of the run's metadata a task cannot take; the message shows the fix."""

    def __init__(self, key, problem, fix=None):
        shown = f"e.g. --metadata '{json.dumps(fix)}'" if fix is not None else "leave it out of --metadata"
        super().__init__(f"--metadata key {key!r}: {problem}; {shown}")


def given(metadata, name, corpus):
    """The value of ``name`` in the run's metadata for ``corpus`` (None where not given)."""
    value = metadata.get(name)
    return value.get(corpus) if isinstance(value, dict) else value


def names():
    """Every key some task takes: ``load``'s arguments, every corpus's options and the
    options of every scored config (a task's), and the task files' own. An option of a
    config no task runs is none: the environment's ``mode`` would pass for a misspelt
    ``model``, a model argument lm-eval merges in."""
    taken = set(LOAD_PARAMETERS) | set(TASK_KEYS)
    for corpus in registry.corpora().values():
        builder = registry.builder_class(corpus)
        taken |= set(builder.corpus_options()) | {option.name for config in corpus.configs if config.name in CONFIGS
                                                  for option in config.options}
    return taken - set(MODEL_ARGUMENTS)


def check(metadata, split):
    """Refuse, before anything loads, a metadata key close to one a task takes, an object
    value naming no corpus, an argument a task cannot take, a ``split`` the task's corpus
    lacks (the split it evaluates: the run's or the task file's), a ``data_dir`` or
    ``checksums`` that is not there, a ``verification_mode`` ``datasets`` lacks, and a value
    an option of the corpus (``verify``, ``variant``, ...) or of the task's config cannot
    take, its fix the value it most likely meant. Raises MetadataError."""
    taken, corpora = names(), registry.corpora()
    for key, value in metadata.items():
        if key not in taken:
            match = close_match(key, taken, cutoff=0.8)
            if match is not None:  # else a model's argument, which lm-eval merged in
                negated = key.lower().replace("-", "_") == f"no_{match}" and isinstance(value, bool)  # no_verify
                raise MetadataError(key, f"no task takes it (did you mean {match!r}?)",
                                    {match: not value if negated else value})
            continue
        if key in NOT_TAKEN:
            raise MetadataError(key, f"not taken: {NOT_TAKEN[key]}")
        for name in value if isinstance(value, dict) else ():
            if name not in corpora:
                match = close_match(name, corpora) or sorted(corpora)[0]
                fixed = {corpus if corpus != name else match: inner for corpus, inner in value.items()}
                raise MetadataError(key, f"{name!r} names no corpus (the corpora: {', '.join(sorted(corpora))})",
                                    {key: fixed})
    corpus = corpus_of(metadata["corpus"])
    try:
        check_split(corpus, split)
    except ConfigError:
        other = close_match(str(split), corpus.splits) or next(s for s in corpus.splits if s != "train")
        raise MetadataError("split", f"{split!r}: {corpus.name} has the splits {', '.join(corpus.splits)}",
                            {"split": other}) from None
    for key, check_path, what in (("data_dir", os.path.isdir, "folder"), ("checksums", os.path.isfile, "file")):
        path = given(metadata, key, corpus.name)
        if path is not None and not check_path(str(path)):
            raise MetadataError(key, f"{corpus.name}'s {path} is no {what}",
                                {key: {corpus.name: f"path/to/{corpus.name}" + ("/SHA256SUMS.tsv" * (what == "file"))}})
    mode = given(metadata, "verification_mode", corpus.name)
    try:
        checked_verification_mode(mode, "the task")
    except ConfigError as error:
        modes = [m.value for m in VerificationMode]
        raise MetadataError("verification_mode", str(error).removeprefix("the task: "),
                            {"verification_mode": close_match(str(mode), modes) or "no_checks"}) from None
    builder = registry.builder_class(corpus)
    for option in (*builder.corpus_declarations(), *config_of(corpus, metadata["config"]).options):
        value = given(metadata, option.name, corpus.name)
        if value is not None and option.name not in MODEL_ARGUMENTS:
            try:
                option.check(value, "the task")
            except ConfigError as error:
                fix = intended(option, value)
                raise MetadataError(option.name, str(error).removeprefix("the task: "),
                                    None if fix is None else {option.name: fix}) from None


def intended(option, value):
    """What a value an option cannot take most likely meant: a text such as ``"false"`` or
    ``"60"`` read as the option reads text (``Option.parse``); else the closest of its
    choices, or its default (None: nothing to show)."""
    if isinstance(value, str):
        try:
            return option.parse(value, "the task")
        except ConfigError:
            pass
    if option.choices:
        return close_match(str(value), option.choices) or option.choices[0]
    return option.default


def inside_lm_eval_command():
    """Whether this process is lm-eval's command (``lm_eval ...``, ``python -m lm_eval``):
    its ``__main__`` holds lm-eval's ``cli_evaluate``."""
    main = getattr(sys.modules.get("__main__"), "cli_evaluate", None)
    lm_eval_main = sys.modules.get("lm_eval.__main__")
    return main is not None and main is getattr(lm_eval_main, "cli_evaluate", None)


def refused(task, error):
    """End lm-eval's command on one of the project's errors with its one line on stderr and
    exit status 2, as the project's own commands end (lm-eval would print the traceback of
    every frame between its command and the task); from Python, raise it."""
    if inside_lm_eval_command():
        print(f"lm_eval: task {task}: {error}", file=sys.stderr)
        raise SystemExit(2)
    raise error
