"""An import-based entry point that works on every ``datasets`` line.

``datasets`` 4.0 and later refuse loading scripts in ``load_dataset``; the builder classes
themselves still work. ``load`` takes the arguments of ``load_dataset`` that matter here and
returns the same objects (Dataset, DatasetDict, IterableDataset, IterableDatasetDict).
"""

import importlib
import inspect
import os

import datasets
from datasets.utils.info_utils import VerificationMode

from .errors import ChecksumError, DownloadError, MissingFilesError, SourceFormatError

LOADERS = ("sgd", "ccpe", "faithdial")
OUR_ERRORS = (SourceFormatError, ChecksumError, MissingFilesError, DownloadError)


def builder_class(path_or_name):
    """The builder class of a bundled loader, from its name (``sgd``) or path (``loaders/sgd``)."""
    name = os.path.basename(os.path.normpath(str(path_or_name)))
    if name not in LOADERS:
        raise ValueError(f"unknown loader {path_or_name!r}: expected one of {LOADERS} or a path to one")
    module = importlib.import_module(f"loaders.{name}.{name}")
    for obj in vars(module).values():
        if inspect.isclass(obj) and issubclass(obj, datasets.DatasetBuilder) and obj.__module__ == module.__name__:
            return obj
    raise ValueError(f"loaders/{name}/{name}.py defines no dataset builder")


def load_builder(path_or_name, name=None, data_dir=None, cache_dir=None, **config_kwargs):
    cls = builder_class(path_or_name)
    return cls(config_name=name, data_dir=data_dir, cache_dir=cache_dir, **config_kwargs)


def load(path_or_name, name=None, split=None, data_dir=None, streaming=False, num_proc=None,
         cache_dir=None, verification_mode=None, **config_kwargs):
    """Like ``datasets.load_dataset(path_or_name, name, ...)`` for the bundled loaders."""
    builder = load_builder(path_or_name, name, data_dir=data_dir, cache_dir=cache_dir, **config_kwargs)
    if streaming:
        # datasets hands no verification mode to streaming builders; this entry point does.
        builder._verify = VerificationMode(verification_mode or "basic_checks") != VerificationMode.NO_CHECKS
        return builder.as_streaming_dataset(split=split)
    try:
        builder.download_and_prepare(num_proc=num_proc, verification_mode=verification_mode)
    except datasets.exceptions.DatasetGenerationError as error:
        # datasets wraps whatever the generator raised; our errors already say where.
        if isinstance(error.__cause__, OUR_ERRORS):
            raise error.__cause__ from None
        raise
    if "verification_mode" in inspect.signature(builder.as_dataset).parameters:  # 3.x only
        return builder.as_dataset(split=split, verification_mode=verification_mode)
    return builder.as_dataset(split=split)
