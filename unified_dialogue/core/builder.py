"""What every corpus builder shares: configs and info from the corpus's declaration,
fetching (download or ``data_dir``), verified reads, and writing a split file by file.

Parallelism is ``datasets``' own: each split's ``gen_kwargs`` holds its source files as a
list, which ``datasets`` cuts into contiguous shards for ``num_proc`` worker processes and
for the shards of a streamed dataset (so ``split_dataset_by_node`` gives each rank
different files).
"""

import dataclasses
import functools
import glob
import hashlib
import inspect
import os
import posixpath
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Optional

import datasets
import pyarrow as pa
from datasets import DownloadMode
from datasets.utils.info_utils import VerificationMode
from fsspec.core import url_to_fs

from .corpus import matches
from .errors import ChecksumError, ConfigError, SourceFormatError, UnifiedDialogueError
from .options import check_given, check_present, corpus_declarations, elsewhere, resolve
from .sources import (DOWNLOAD_TIMEOUT, UNKNOWN, caller, discard_download, download, file_sha256, fingerprint, is_url,
                      local_copy_hint, local_files, mismatch_hint, partial_copy_hint, read_checksum_table, read_source,
                      verify_bytes, with_timeout)
from .tables import gc_paused, read_columns

# Left in a build's folder when it was made without the checks (see download_and_prepare).
UNVERIFIED_MARK = "built-without-checks"
# BuilderConfig fields that are no options of a corpus.
NOT_OPTIONS = {"name", "version", "data_dir", "data_files", "description", "view_options"}
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class CorpusConfig(datasets.BuilderConfig):
    """Options every corpus takes: ``base_url`` and ``checksums`` point the builder at a
    mirror and its checksum table (a TSV in the bundled tables' format); ``verify`` turns
    the checks of sizes, sha256 and the list of files on or off where ``verification_mode``
    cannot (a streamed dataset; by default they are on); ``download_timeout`` bounds every
    wait for a server, in seconds. ``view_options``: the options of the config's own
    (``Config.options``) given at load time, as ``{name: value}``; they are given as plain
    keyword arguments (``load("sgd", "d3st", seed=3)``), which the builder gathers here."""

    base_url: Optional[str] = None
    checksums: Optional[str] = None
    verify: Optional[bool] = None
    # Nor part of what the config is (compare=False): datasets 4 and later refuse a config of
    # a declared name (its id, create_config_id) that is not equal to the declared one.
    download_timeout: float = field(default=DOWNLOAD_TIMEOUT, compare=False)
    view_options: Optional[dict] = None

    def create_config_id(self, config_kwargs, *args, **kwargs):
        # How long to wait for a server does not change the data: same cache.
        config_kwargs = {k: v for k, v in config_kwargs.items() if k != "download_timeout"}
        return super().create_config_id(config_kwargs, *args, **kwargs)


def code_hash(*folders):
    """A hash of the code, checksum tables and data files (chat templates) in ``folders``."""
    digest = hashlib.sha256()
    for root in folders:
        for folder, _, names in sorted(os.walk(root)):
            for name in sorted(n for n in names if n.endswith((".py", ".tsv", ".json"))):
                with open(os.path.join(folder, name), "rb") as f:
                    digest.update(name.encode() + f.read())
    return digest.hexdigest()


def datasets_line():
    """The installed datasets' line, as far as builds differ: its major version, and
    whether it has the ``Json`` feature (4.7 and later)."""
    return f"datasets {datasets.__version__.split('.')[0]}, Json: {hasattr(datasets, 'Json')}"


class CorpusBuilder(datasets.ArrowBasedBuilder):
    """The builder of a corpus: a subclass sets ``CORPUS`` (its ``core.corpus.Corpus``) and
    defines ``file_tables``; it may add context to each split (``split_context``)."""

    CORPUS = None
    BUILDER_CONFIG_CLASS = CorpusConfig

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        corpus = cls.__dict__.get("CORPUS")
        if corpus is not None:
            cls.VERSION = datasets.Version(corpus.version)
            cls.BUILDER_CONFIGS = [cls.BUILDER_CONFIG_CLASS(name=c.name, version=cls.VERSION, description=c.description)
                                   for c in corpus.configs]
            cls.DEFAULT_CONFIG_NAME = corpus.default_config

    def __init__(self, *args, hash=None, **kwargs):
        kwargs = self.gather_view_options(kwargs)
        # datasets keys its cache by the builder file and the config options. A build also
        # depends on the shared code, the corpus folder and, for a local copy, the files it
        # read: a change of any of them must not be served from an older build.
        # The datasets line too: one line cannot read the cache of another (3.6 does not
        # know 5.x's List features), and the lines with Json store other features than
        # those without; so each line builds its own.
        state = [str(hash), code_hash(_PACKAGE, self.CORPUS.folder), datasets_line()]
        if kwargs.get("data_dir"):
            state.append(fingerprint(kwargs["data_dir"], self.source_patterns(kwargs)))
        if kwargs.get("checksums") and os.path.isfile(kwargs["checksums"]):
            state.append(file_sha256(kwargs["checksums"]))
        super().__init__(*args, hash=hashlib.sha256("\0".join(state).encode()).hexdigest()[:16], **kwargs)
        # Hints in errors name what works where the user called from (kept for streaming,
        # whose errors come when the dataset is read, after the call returned).
        self.called_by = caller()

    @classmethod
    def corpus_options(cls):
        """The options every config of this corpus takes (``base_url``, ``checksums``, ...)."""
        return [f.name for f in dataclasses.fields(cls.BUILDER_CONFIG_CLASS) if f.name not in NOT_OPTIONS]

    @classmethod
    def config_options(cls, config_name=None):
        """The options a config takes of its own (``core.options.Option``s)."""
        return cls.CORPUS.config(config_name or cls.CORPUS.default_config).options

    @classmethod
    def gather_view_options(cls, kwargs):
        """``kwargs`` with the config's own options (given as plain keyword arguments, or
        as ``view_options``) gathered into ``view_options``, checked, in name order; left
        out when none is given, so that the cache of a load without them stays the same.
        An option of another config, or of none, is a ConfigError naming the accepted ones."""
        names = {option.name for config in cls.CORPUS.configs for option in config.options}
        given = dict(kwargs.pop("view_options", None) or {})
        given.update((name, kwargs.pop(name)) for name in list(kwargs) if name in names)
        config_name = kwargs.get("config_name") or cls.CORPUS.default_config
        builder_arguments = set(inspect.signature(datasets.DatasetBuilder.__init__).parameters)
        unknown = sorted(set(kwargs) - builder_arguments - {f.name for f in dataclasses.fields(cls.BUILDER_CONFIG_CLASS)})
        if given or unknown:
            if config_name not in cls.CORPUS.config_names:
                raise ConfigError(f"{cls.CORPUS.name} has no config {config_name!r}: its configs are "
                                  f"{', '.join(cls.CORPUS.config_names)}")
            declared = cls.config_options(config_name)
            where = f"the {config_name} config of {cls.CORPUS.name}"
            unknown = sorted({*unknown, *(set(given) - {option.name for option in declared})})
            if unknown:
                raise ConfigError(f"{where} takes no option {', '.join(map(repr, unknown))} (its options: "
                                  f"{', '.join(cls.corpus_options() + [o.name for o in declared])}"
                                  f"{elsewhere(unknown, cls.CORPUS.configs)})")
            given = check_given(given, declared, where)
        check_present(corpus_declarations(cls), kwargs, f"the {config_name} config of {cls.CORPUS.name}")
        if given:
            kwargs["view_options"] = given
        return kwargs

    @property
    def view_options(self):
        """Every option of the config's own, the given value or its default."""
        return resolve(self.config.view_options, self.config_options(self.config.name),
                       f"the {self.config.name} config of {self.CORPUS.name}")

    @classmethod
    def source_patterns(cls, config_kwargs):
        """The patterns of the local files a build with these options reads."""
        return cls.CORPUS.local_patterns

    def _info(self):
        corpus = self.CORPUS
        return datasets.DatasetInfo(
            description=corpus.description,
            features=corpus.config(self.config.name).features,
            homepage=corpus.homepage,
            license=corpus.license,
            citation=corpus.citation,
        )

    # ---------------------------------------------------------------- checks

    def download_and_prepare(self, output_dir=None, download_config=None, download_mode=None,
                             verification_mode=None, **kwargs):
        # The cache key cannot hold verification_mode (it is not known when the builder is
        # made): a build made without the checks must not answer a load that asks for them.
        # Such a load builds again, from the downloads already made.
        reuse = DownloadMode(download_mode or DownloadMode.REUSE_DATASET_IF_EXISTS)
        if reuse == DownloadMode.REUSE_DATASET_IF_EXISTS and self.checks_wanted(verification_mode):
            fs, folder = url_to_fs(output_dir or self._cache_dir, **(kwargs.get("storage_options") or {}))
            if fs.exists(posixpath.join(folder, UNVERIFIED_MARK)):
                download_mode = DownloadMode.REUSE_CACHE_IF_EXISTS
        return super().download_and_prepare(output_dir, download_config, download_mode, verification_mode, **kwargs)

    def _download_and_prepare(self, dl_manager, verification_mode, **prepare_split_kwargs):
        # datasets does not hand the verification mode to _split_generators: keep it.
        self._verification_mode = verification_mode
        super()._download_and_prepare(dl_manager, verification_mode, **prepare_split_kwargs)
        if not self.verify:
            with self._fs.open(posixpath.join(self._output_dir, UNVERIFIED_MARK), "w") as f:
                f.write("sizes, sha256 and the list of files were not checked\n")

    def checks_wanted(self, verification_mode):
        """Whether a build with this verification_mode checks sizes, sha256 and the list
        of files (the config's ``verify`` decides, where it is set)."""
        if self.config.verify is not None:
            return self.config.verify
        return verification_mode is None or VerificationMode(verification_mode) != VerificationMode.NO_CHECKS

    @property
    def verify(self):
        """Whether sizes, sha256 and the list of files are checked."""
        return self.checks_wanted(getattr(self, "_verification_mode", None))

    def checksum_table(self):
        return read_checksum_table(self.config.checksums or self.CORPUS.checksums_path)

    # ---------------------------------------------------------------- sources

    def fetch(self, dl_manager, patterns=None):
        """``{relpath: path}`` of the source files matching ``patterns`` (default: every
        file the corpus reads): the files of the local copy (``data_dir``), or the checksum
        table's files downloaded from the pinned base URL (URLs, when streaming)."""
        patterns = patterns or self.source_patterns(self.config.__dict__)
        self._streaming = not isinstance(dl_manager, datasets.DownloadManager)
        table = {p: r for p, r in self.checksum_table().items() if any(matches(p, q) for q in patterns)}
        if self.config.data_dir:
            self.fetched = local_files(self.config.data_dir, patterns, table, self.verify,
                                       partial_copy_hint(self.called_by))
            return self.fetched
        # A copy: the download config may be the caller's own object.
        dl_manager.download_config = config = dl_manager.download_config.copy()
        config.use_etag = False  # the URLs are pinned: a cached file stays valid
        config.storage_options = self.source_options = with_timeout(config.storage_options,
                                                                    self.config.download_timeout)
        self.fetched = download(dl_manager, {path: self.url(path) for path in table}, self.download_hint)
        return self.fetched

    def url(self, relpath):
        """The URL of a source file: the mirror's (``base_url``), or the pinned upstream one."""
        return f"{(self.config.base_url or self.CORPUS.base_url).rstrip('/')}/{relpath}"

    @property
    def download_hint(self):
        return local_copy_hint(self.CORPUS.name, self.called_by)

    def read(self, relpath, path):
        """The bytes of a source file, checked against its row of the checksum table when
        ``verify``. A download that fails the check is removed from the download cache."""
        data = read_source(path, getattr(self, "source_options", None), self.download_hint)
        if self.verify:
            record = self.checksum_table().get(relpath)
            if record is None:
                raise ChecksumError(f"{relpath} is not in the checksum table, so it cannot be verified")
            try:
                verify_bytes(data, record, relpath, mismatch_hint(bool(self.config.data_dir), self.called_by))
            except ChecksumError:
                self.forget_download(relpath)
                raise
        return data

    def sha256_checked(self, relpath):
        record = self.checksum_table().get(relpath)
        return self.verify and record is not None and record.sha256 != UNKNOWN

    def forget_download(self, relpath):
        """Remove the download of ``relpath`` from the download cache (nothing for a local
        copy or a streamed URL), so that the next load fetches it again."""
        path = getattr(self, "fetched", {}).get(relpath)
        if path is not None and not self.config.data_dir and not is_url(path):
            discard_download(path)

    def read_ahead(self, files):
        """``((relpath, path), bytes)`` of each file in order; the next file is read and
        verified in a thread meanwhile (reading and hashing release the GIL)."""
        with ThreadPoolExecutor(max_workers=1) as reader:
            upcoming = reader.submit(self.read, *files[0]) if files else None
            for file, next_file in zip(files, [*files[1:], None]):
                data = upcoming.result()
                if next_file is not None:
                    upcoming = reader.submit(self.read, *next_file)
                yield file, data

    # ---------------------------------------------------------------- splits

    def _split_generators(self, dl_manager):
        files = self.fetch(dl_manager)
        generators = []
        for split in self.CORPUS.splits:
            split_files = self.CORPUS.files_of_split(split, files)
            if not split_files:
                continue  # a partial local copy, loaded without checks
            gen_kwargs = {"files": [(p, files[p]) for p in split_files], "split": split}
            gen_kwargs.update(self.split_context(split, files))
            generators.append(datasets.SplitGenerator(name=split, gen_kwargs=gen_kwargs))
        return generators

    def split_context(self, split, files):
        """Arguments of file_tables for a split, besides its files; none by default. Lists
        here would be sharded like the files: use tuples."""
        return {}

    @property
    def source_config(self):
        """The config ``file_tables`` writes: the config itself, or for a task view the
        unified config, which the view turns into its rows."""
        return "unified" if self.CORPUS.config(self.config.name).view else self.config.name

    @property
    def source_schema(self):
        """The Arrow schema of the tables ``file_tables`` writes."""
        return self.CORPUS.config(self.source_config).features.arrow_schema

    def _generate_tables(self, files, split, **context):
        view = self.CORPUS.config(self.config.name).view
        if view is not None:
            view = functools.partial(view, **self.view_options)
        # The ids read so far in this split, with their places: one repeated at another
        # place is an error naming both. Kept by the builder, not this call: a streamed
        # split calls this once per file.
        ids = self.__dict__.setdefault("_ids", {}).setdefault(split, {})
        for (relpath, _), data in self.read_ahead(files):
            # Paused for the whole file: its strings, held by each batch, are alive all
            # along, and a collection between batches would scan all of them.
            with gc_paused():
                try:
                    tables = list(self.file_tables(data, relpath, split, ids, **context))
                except SourceFormatError as error:  # of this file, or of another it checks against
                    # Bytes that do not parse may be a corrupted transfer, unless their
                    # sha256 says they are the published ones.
                    if not self.sha256_checked(error.file):
                        self.forget_download(error.file)
                    raise
                if view is not None:  # each table holds whole dialogues
                    tables = [view(table) for table in tables]
            for index, table in enumerate(tables):
                yield f"{relpath}:{index}", table

    def file_tables(self, data, relpath, split, ids, **context):
        """The pa.Tables of one source file's bytes in ``source_config`` (``source_schema``),
        each holding whole dialogues. ``ids`` collects the ids of the records read so far
        in this split (see decode_list)."""
        raise NotImplementedError

    def _prepare_split(self, split_generator, *args, **kwargs):
        super()._prepare_split(split_generator, *args, **kwargs)
        if split_generator.split_info.num_examples == 0:  # datasets cannot store an empty split
            files = [relpath for relpath, _ in split_generator.gen_kwargs["files"]]
            shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
            raise UnifiedDialogueError(f"{split_generator.name}: the {self.config.name} config has no rows in this "
                                       f"split (none of the turns of {shown} is one it makes a row of), and "
                                       f"datasets cannot store an empty split")
        if (kwargs.get("num_proc") or 1) > 1 and len(split_generator.gen_kwargs["files"]) > 1:
            self.check_ids_across_shards(split_generator)

    def check_ids_across_shards(self, split_generator):
        """With num_proc, each worker checks the ids of its own files only: check the
        written split as a whole, and name both places of a repeated id."""
        key = self.CORPUS.config(self.config.name).key
        if not key:
            return
        seen = set()
        for path in self.written_files(split_generator.name):
            for batch in read_columns(self._fs, path, key):
                for value in zip(*(batch.column(c).to_pylist() for c in key)):
                    if value in seen:
                        raise self.repeated_id_error(split_generator, value)
                    seen.add(value)

    def written_files(self, split):
        """The files of a split written by this build, in order: datasets names them
        ``<name>-<split>.<format>``, or ``<name>-<split>-<shard>-of-<shards>.<format>`` (five
        digits each) when it writes several."""
        stem, extension = f"{self.dataset_name}-{split}", re.escape(self._file_format)
        name = re.compile(rf"{re.escape(stem)}(-\d{{5}}-of-\d{{5}})?\.{extension}")
        found = self._fs.glob(posixpath.join(self._output_dir, f"{glob.escape(stem)}*.{self._file_format}"))
        return sorted(path for path in found if name.fullmatch(posixpath.basename(path)))

    def repeated_id_error(self, split_generator, value):
        """A SourceFormatError naming the two places of a repeated id (re-reads the split)."""
        ids = {}
        try:
            for (relpath, _), data in self.read_ahead(split_generator.gen_kwargs["files"]):
                for _ in self.file_tables(data, relpath, split_generator.name, ids,
                                          **{k: v for k, v in split_generator.gen_kwargs.items()
                                             if k not in ("files", "split")}):
                    pass
        except SourceFormatError as error:
            return error
        return RuntimeError(f"{split_generator.name}: the key {value!r} is repeated in the built split, "
                            f"but not in its source files")
