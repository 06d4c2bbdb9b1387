"""``load``: the entry point of every corpus on every ``datasets`` line.

``datasets`` 4.0 and later refuse loading scripts in ``load_dataset``; the builder classes
themselves still work. ``load`` takes the arguments of ``load_dataset`` that apply to these
loaders and returns the same objects (Dataset, DatasetDict, IterableDataset,
IterableDatasetDict); an argument that does not apply is refused by name.
"""

import inspect

from datasets.utils.info_utils import VerificationMode

from . import registry
from .core.errors import ConfigError
from .core.options import elsewhere
from .core.sources import CALLER

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


def load_builder(path_or_name, name=None, data_dir=None, cache_dir=None, token=None, storage_options=None,
                 **config_kwargs):
    cls = registry.builder_class(registry.get(path_or_name))
    if name is not None and name not in cls.CORPUS.config_names:
        raise ConfigError(f"{cls.CORPUS.name} has no config {name!r}: its configs are "
                          f"{', '.join(cls.CORPUS.config_names)}")
    unknown = sorted(set(config_kwargs) - set(options(cls, name)) - {"view_options"})
    if unknown:
        known = ", ".join(options(cls, name))
        where = f"the {name} config of {cls.CORPUS.name}" if name else cls.CORPUS.name
        raise ConfigError(f"{where} takes no option {', '.join(map(repr, unknown))} (its options: {known}; "
                          f"and load_dataset's own arguments, see unified_dialogue.load"
                          f"{elsewhere(unknown, cls.CORPUS.configs)})")
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
    if streaming and verification_mode is not None and "verify" not in config_kwargs:
        config_kwargs["verify"] = VerificationMode(verification_mode) != VerificationMode.NO_CHECKS
    token_ = CALLER.set(CALLER.get() or "load")
    try:
        builder = load_builder(path_or_name, name, data_dir=data_dir, cache_dir=cache_dir, token=token,
                               storage_options=storage_options, **config_kwargs)
        if streaming:
            return builder.as_streaming_dataset(split=split)
        if download_config is not None and storage_options:  # as load_dataset merges them
            download_config = download_config.copy()
            download_config.storage_options.update(storage_options)
        builder.download_and_prepare(num_proc=num_proc, verification_mode=verification_mode,
                                     download_mode=download_mode, download_config=download_config)
        as_dataset = {"split": split, "in_memory": bool(keep_in_memory)}
        if "verification_mode" in inspect.signature(builder.as_dataset).parameters:  # 3.x only
            as_dataset["verification_mode"] = verification_mode
        return builder.as_dataset(**as_dataset)
    finally:
        CALLER.reset(token_)
