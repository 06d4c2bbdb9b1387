"""``load``: the entry point of every corpus on every ``datasets`` line.

``datasets`` 4.0 and later refuse loading scripts in ``load_dataset``; the builder classes
themselves still work. ``load`` takes the arguments of ``load_dataset`` that apply to these
loaders and returns the same objects (Dataset, DatasetDict, IterableDataset,
IterableDatasetDict); an argument that does not apply is refused by name.
"""

import contextlib
import inspect
import re
from dataclasses import dataclass

from datasets.utils.info_utils import VerificationMode

from . import registry
from .core.errors import ConfigError, MissingSplitError, UnifiedDialogueError, did_you_mean
from .core.options import check_present, corpus_declarations, elsewhere
from .core.sources import CALLER, argument, caller, no_verify

# Arguments of load_dataset that have no meaning here: the loaders read their own files,
# in their own features, from a pinned source.
REFUSED = {
    "data_files": "the loaders read their corpus's own files, from data_dir or the pinned upstream",
    "features": "every config has fixed features (the unified ones are shared by all corpora)",
    "revision": "the source is pinned by the loader (see base_url to use a mirror)",
    "save_infos": "the loaders have no infos file to write",
}
def options(builder_cls, config_name=None):
    """The options a corpus's builder takes (``base_url``, ``checksums``, ...), and those
    of config ``config_name`` (default: the corpus's default config) of its own."""
    return builder_cls.corpus_options() + [option.name for option in builder_cls.config_options(config_name)]


@dataclass(frozen=True)
class Arguments:
    """Arguments given for a config, sorted by who takes them: ``load`` (``load``'s own,
    such as ``data_dir`` and ``cache_dir``, and the corpus's options, such as ``checksums``
    and ``variant``), ``options`` (the config's own, checked), ``settings`` (a scorer's,
    checked)."""

    corpus: str
    config: str
    load: dict
    options: dict
    settings: dict


def corpus_of(name):
    """The declared corpus ``name`` (or a path to its folder); a ConfigError naming the
    corpora there are, and the close match, for another."""
    try:
        return registry.get(name)
    except ValueError as error:
        known = registry.corpora()
        raise ConfigError(f"{error}{did_you_mean([name], known)}") from None


def config_of(corpus, name):
    """The config ``name`` of a declared corpus; a ConfigError naming its configs, and the
    close match, for another."""
    if name not in corpus.config_names:
        raise ConfigError(f"{corpus.name} has no config {name!r}{did_you_mean([name], corpus.config_names)} "
                          f"(its configs: {', '.join(corpus.config_names)})")
    return corpus.config(name)


def split_names(split):
    """The names of the splits a split expression reads (``train[:10%]+validation``: train,
    validation; None: none)."""
    return [] if split is None else [part.split("[", 1)[0].strip() for part in str(split).split("+")]


def check_split(corpus, split):
    """A split ``corpus`` declares (None: every split; a ``datasets`` split expression such
    as ``train[:10%]+validation`` names declared splits); a ConfigError naming its splits for
    another, in the same words wherever a split is given."""
    unknown = [name for name in split_names(split) if name not in corpus.splits]
    if unknown:
        named = "--split" if caller() == "cli" else "split"  # as the user wrote it
        raise ConfigError(f"{named} {split!r}: {corpus.name} has the splits {', '.join(corpus.splits)}"
                          f"{did_you_mean(unknown, corpus.splits)}")
    return split


# Why a scorer, a reward or an lm-eval task takes no streamed rows.
NOT_STREAMED = "the rows are scored whole, not streamed"
# load()'s own arguments besides the corpus, config and split.
LOAD_PARAMETERS = ("data_dir", "streaming", "num_proc", "cache_dir", "verification_mode", "download_mode",
                   "download_config", "keep_in_memory", "token", "storage_options", "trust_remote_code")


def taken(corpus, config=None):
    """``(load's names, the config's option names)``: what ``load`` takes for a corpus's
    config (its own arguments and the corpus's options) and what the config takes of its own."""
    builder = registry.builder_class(corpus_of(corpus))
    return (LOAD_PARAMETERS + tuple(builder.corpus_options()),
            tuple(option.name for option in builder.config_options(config)))


def checked_verification_mode(value, where="load"):
    """``value`` if ``datasets`` takes it as a ``verification_mode`` (None: its default); a
    ConfigError naming the modes, the close match, and the one word for a partial copy."""
    modes = [mode.value for mode in VerificationMode]
    if value is None or isinstance(value, VerificationMode) or value in modes:
        return value
    raise ConfigError(f"{where}: verification_mode {value!r} is none of {', '.join(modes)}"
                      f"{did_you_mean([str(value)], modes)} (a partial or changed copy: {no_verify(caller())})")


def sort_arguments(corpus, config, given, *, split=None, settings=(), where=None, whole=False):
    """``given`` arguments for a corpus's config sorted into load arguments, the config's
    options and a scorer's settings: the one place that says which argument goes where, for
    ``load``, ``scoring.score``, the scoring command, the rewards and the lm-eval tasks.

    Args:
        corpus: a corpus's name (or its folder's path).
        config: one of its configs (None: its default config).
        given: ``{name: value}``.
        split: the split asked for, checked against the corpus's (None: not given).
        settings: the ``core.options.Option``s of the scorer given to, if any.
        where: who takes them, for messages (default: ``the <config> config of <corpus>``).
        whole: the rows are read whole (scoring, the rewards): ``streaming`` is refused.

    Returns:
        ``Arguments`` with each given name in its place, option and setting values checked.

    Raises:
        ConfigError naming an unknown corpus, config or split, or a name nobody takes (with
        its close match, what is taken, and the configs that take it), or a value an option,
        a corpus option, ``verification_mode`` or a setting cannot take.

    Example:
        >>> sort_arguments("sgd", "dst-chat", {"data_dir": "sgd", "instruction": "Track."}).options
        {'instruction': 'Track.'}
    """
    builder = registry.builder_class(corpus_of(corpus))
    declared = builder.CORPUS
    check_split(declared, split)
    name = config or declared.default_config
    own = config_of(declared, name).options
    load_names, own_names = taken(corpus, name)
    where = where or (f"the {name} config of {declared.name}" if config else declared.name)
    setting_names = [o.name for o in settings]
    unknown = sorted(set(given) - set(load_names) - set(own_names) - set(setting_names))
    if unknown:
        known = list(builder.corpus_options()) + list(own_names)
        parts = [f"its options: {', '.join(known)}"]
        if setting_names:
            parts.append(f"its scorer settings: {', '.join(setting_names)}")
        parts.append(f"and load's own arguments: {', '.join(LOAD_PARAMETERS)}")
        raise ConfigError(f"{where} takes no option {', '.join(map(repr, unknown))}"
                          f"{did_you_mean(unknown, known + setting_names + list(LOAD_PARAMETERS))} "
                          f"({'; '.join(parts)}){elsewhere(unknown, declared.configs)}")
    if whole and given.get("streaming"):
        raise ConfigError(f"{where} takes no streaming=True here: {NOT_STREAMED}; leave it out")
    by_name = {o.name: o for o in (*own, *settings)}
    checked_verification_mode(given.get("verification_mode"), where)
    check_present(corpus_declarations(builder), given, where)  # as the builder does (load_dataset's path too)
    return Arguments(declared.name, name, {k: v for k, v in given.items() if k in load_names},
                     {k: by_name[k].check(v, where) for k, v in given.items() if k in own_names},
                     {k: by_name[k].check(v, where) for k, v in given.items() if k in setting_names})


def load_builder(path_or_name, name=None, data_dir=None, cache_dir=None, token=None, storage_options=None,
                 **config_kwargs):
    view_options = config_kwargs.pop("view_options", None)
    sort_arguments(path_or_name, name, config_kwargs)
    cls = registry.builder_class(corpus_of(path_or_name))
    if view_options is not None:
        config_kwargs["view_options"] = view_options
    # A copy: datasets adds its own entries to the storage options it is given.
    return cls(config_name=name, data_dir=data_dir, cache_dir=cache_dir, token=token,
               storage_options=dict(storage_options or {}), **config_kwargs)


def load(path_or_name, name=None, split=None, data_dir=None, streaming=False, num_proc=None, cache_dir=None,
         verification_mode=None, download_mode=None, download_config=None, keep_in_memory=None, token=None,
         storage_options=None, trust_remote_code=None, **config_kwargs):
    """Like ``datasets.load_dataset(path_or_name, name, ...)`` for the corpora of the
    registry; ``trust_remote_code`` is accepted and has no effect (no remote code runs).
    ``config_kwargs``: the corpus's options (``variant``, ``base_url``, ...) and those of
    config ``name`` of its own (``Config.options``), as plain keyword arguments."""
    for argument, why in REFUSED.items():
        if argument in config_kwargs:
            raise ConfigError(f"load() does not take {argument}: {why}")
    check_split(registry.builder_class(corpus_of(path_or_name)).CORPUS, split)  # before anything is built
    checked_verification_mode(verification_mode)
    if streaming and verification_mode is not None and "verify" not in config_kwargs:
        config_kwargs["verify"] = VerificationMode(verification_mode) != VerificationMode.NO_CHECKS
    token_ = CALLER.set(CALLER.get() or "load")
    try:
        builder = load_builder(path_or_name, name, data_dir=data_dir, cache_dir=cache_dir, token=token,
                               storage_options=storage_options, **config_kwargs)
        if streaming:
            with split_given(builder, split, data_dir):
                return builder.as_streaming_dataset(split=split)
        if download_config is not None and storage_options:  # as load_dataset merges them
            download_config = download_config.copy()
            download_config.storage_options.update(storage_options)
        builder.download_and_prepare(num_proc=num_proc, verification_mode=verification_mode,
                                     download_mode=download_mode, download_config=download_config)
        as_dataset = {"split": split, "in_memory": bool(keep_in_memory)}
        if "verification_mode" in inspect.signature(builder.as_dataset).parameters:  # 3.x only
            as_dataset["verification_mode"] = verification_mode
        with split_given(builder, split, data_dir):
            return builder.as_dataset(**as_dataset)
    finally:
        CALLER.reset(token_)


@contextlib.contextmanager
def split_given(builder, split, data_dir):
    """Turn ``datasets``' error for a split the build has no rows of (a partial copy without
    that split's files: "Unknown split", streamed "Bad split") into a MissingSplitError
    naming the copy, the split and those it gives."""
    try:
        yield
    except ValueError as error:
        if split is None or isinstance(error, UnifiedDialogueError) or not str(error).startswith(
                ("Unknown split", "Bad split")):
            raise
        where = f"data_dir {data_dir}" if data_dir else f"the source of {builder.CORPUS.name}"
        listed = re.search(r"\[([^\]]*)\]", str(error))  # datasets lists the splits the build has
        given = listed.group(1).replace("'", "").split(", ") if listed else list(builder.info.splits or ())
        choice = next((name for name in given if name != "train"), given[0] if given else "train")
        raise MissingSplitError(where, split, given, argument("split", choice)) from None
