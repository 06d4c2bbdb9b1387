"""Export: build corpora and write a folder ready for the Hugging Face Hub.

``python -m unified_dialogue.tools.export sgd --out export/sgd`` (``make export CORPUS=sgd``)
builds every config of the corpus and writes

- ``<config>/<split>-NNNNN-of-NNNNN.parquet``: Parquet shards of at most ``--max-shard-size``
  of Arrow data each;
- ``README.md``: the corpus's card, with ``configs:`` pointing at the shards, the
  ``dataset_info`` of the build and statistics computed from the exported data;
- with ``--jsonl``, ``jsonl/<config>/<split>-NNNNN-of-NNNNN.jsonl`` for each unified config:
  the records in the exact shape of the unified specification (absent keys left out,
  ``knowledge.value`` = ``value[type]``).

``all`` exports every corpus into one repository (see ``layout``). The folder is written
under a temporary name next to ``--out`` and moved into place only once complete. The
shards, JSON Lines and ``dataset_info`` entries are written by ``shards``; this module
builds, checks, puts the folder together and is the command.
"""

import argparse
import contextlib
import glob
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Callable

import pyarrow.parquet as pq

from .. import registry
from ..api import load
from ..cli import add_no_verify_flag, run_command
from ..core.errors import UnifiedDialogueError
from . import cards, stats
from .layout import ALL, Layout
from .shards import DEFAULT_MAX_SHARD_SIZE, info_entry, portable, write_config


class ExportError(UnifiedDialogueError, RuntimeError):
    """An export that cannot start or did not complete; the message says why."""


def parse_size(text):
    """``500MB``, ``2GB``, ``64KiB`` or a number of bytes."""
    units = {"KB": 1000, "MB": 1000**2, "GB": 1000**3, "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3, "B": 1}
    text = str(text).strip().upper()
    for unit, factor in units.items():
        if text.endswith(unit) and text[: -len(unit)].strip():
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


# ---------------------------------------------------------------- export

def resolve(names):
    """Corpus objects and whether the layout is the combined one, from CLI names."""
    if list(names) == [ALL]:
        return list(registry.corpora().values()), True
    if ALL in names:
        raise ExportError(f"'{ALL}' exports every corpus: give it alone")
    try:
        return [registry.get(name) for name in names], len(names) > 1
    except ValueError as error:  # an unknown corpus, named with those there are
        raise ExportError(f"{error.args[0]}; or '{ALL}'") from None


def is_export(folder):
    """Whether ``folder`` holds an earlier export: its card opens with the front matter."""
    try:
        with open(os.path.join(folder, "README.md"), encoding="utf-8") as f:
            return f.read(4) == "---\n"
    except OSError:
        return False


def check_out(out, inputs):
    """Fail before building anything when ``out`` is not a folder an export may replace: a
    file, a folder holding anything but an earlier export, or a folder holding (or inside)
    one of ``inputs``, the local copies and checksum tables read."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise ExportError(f"the output folder {out} is a file: give a new folder, or an earlier export to replace")
    if os.path.isdir(out) and os.listdir(out) and not is_export(out):
        raise ExportError(f"the output folder {out} holds files that are not an earlier export (it would be "
                          f"replaced whole): give a new folder")
    target = os.path.realpath(out)
    for given in inputs:
        source = os.path.realpath(given)
        if os.path.commonpath([source, target]) in (source, target):
            raise ExportError(f"the output folder {out} holds or is inside an input, {given}: give another folder")
    for given in inputs:
        if not os.path.exists(given):
            raise ExportError(f"{given}: no such file or folder (a local copy or checksum table given)")


def check_ready(corpus_list, data_dirs, variants=True):
    """Fail before building anything when a local copy is missing, or lacks the files
    only the variants read (which are built last)."""
    corpora = {c.name: c for c in corpus_list}
    for name, path in (data_dirs or {}).items():
        if name not in corpora:
            raise ExportError(f"a data dir is given for {name}, which is not exported")
        if not os.path.exists(path):
            raise ExportError(f"the data dir of {name} does not exist: {path}")
        builder = registry.builder_class(corpora[name])
        for variant in corpora[name].variants if variants else ():
            for pattern in set(builder.source_patterns({"variant": variant})) - set(builder.source_patterns({})):
                if not glob.glob(os.path.join(glob.escape(path), pattern)):
                    raise ExportError(f"the data dir of {name} has no {pattern}, which its variant {variant} reads: "
                                      f"add those files, or leave the variants out (--no-variants)")


def export(corpus_list, out, *, combined=False, data_dirs=None, checksums=None, verification_mode=None,
           repo=None, max_shard_size=DEFAULT_MAX_SHARD_SIZE, jsonl=False, num_proc=None, cache_dir=None,
           variants=True, log=print):
    """Build ``corpus_list`` (Corpus objects) and write the repository folder ``out``.

    ``data_dirs`` / ``checksums``: per corpus name, a local copy and its checksum table
    (default: download the pinned upstream files, checked against the bundled tables).
    ``repo`` is the Hub repository named in the card's examples; ``variants``: whether the
    configs of each variant of a corpus (SGD-X) are exported too. Returns ``out``.
    """
    data_dirs, checksums = data_dirs or {}, checksums or {}
    check_ready(corpus_list, data_dirs, variants)
    out = os.path.abspath(out)
    check_out(out, [*data_dirs.values(), *checksums.values()])
    with partial_folder(out) as (folder, work):
        def build(corpus, config, variant):
            return load(corpus.name, config, data_dir=data_dirs.get(corpus.name), checksums=checksums.get(corpus.name),
                        verification_mode=verification_mode, num_proc=num_proc,
                        cache_dir=cache_dir or os.path.join(work, "cache"), **({"variant": variant} if variant else {}))

        def source(corpus):
            return source_of(corpus, data_dirs.get(corpus.name), checksums.get(corpus.name))

        exported = Exported(source)
        for entry in Layout(tuple(corpus_list), combined, variants=variants).entries():
            log(f"building {entry.corpus.name} {entry.config}" + (f" ({entry.variant})" if entry.variant else ""))
            built = build(entry.corpus, entry.config, entry.variant)
            exported.check_splits(entry, built)
            exported.add(entry, built, write_config(built, folder, entry, max_shard_size, jsonl, log))
        layout = Layout(tuple(corpus_list), combined, exported.splits, variants)
        infos = dataset_info(layout, exported)
        write_files(folder, card_files(layout, exported.stats, repo, infos))
        verify_counts(folder, infos)
        replace_folder(folder, out)
    log(f"wrote {out}")
    return out


@contextlib.contextmanager
def partial_folder(out):
    """``(folder, work)``: an empty folder to write the export in and a work folder holding
    it, next to ``out`` (so that moving the finished folder is a rename); removed at the end."""
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.partial-", dir=parent)
    try:
        folder = os.path.join(work, "folder")
        os.makedirs(folder)
        yield folder, work
    finally:
        shutil.rmtree(work, ignore_errors=True)



@dataclass
class Exported:
    """What the export has written so far: ``infos``, the ``dataset_info`` entry of every
    published config in order; ``splits``, the splits of each corpus (a partial local copy
    may lack some); ``stats``, each corpus's statistics, from its builds (variants left
    out); ``built_infos``, the entry of each (corpus, config), variants left out.
    ``source(corpus)`` describes the source files of a corpus's build."""

    source: Callable
    infos: list = field(default_factory=list)
    splits: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    built_infos: dict = field(default_factory=dict)

    def check_splits(self, entry, built):
        """Every config of a corpus must have built the same splits, all of the corpus's."""
        corpus = entry.corpus
        splits = self.splits.setdefault(corpus.name, tuple(built))
        if tuple(built) != splits or not set(splits) <= set(corpus.splits):
            raise ExportError(f"{corpus.name} {entry.config} built the splits {list(built)}; expected "
                              f"{list(splits)} (of {list(corpus.splits)})")

    def add(self, entry, built, info):
        """Record a config written: its ``dataset_info`` entry and, for a corpus's own
        configs, its statistics."""
        self.infos.append(info)
        if entry.variant is not None:
            return
        corpus, config = entry.corpus, entry.config
        self.built_infos[(corpus.name, config)] = info
        if corpus.name not in self.stats:
            self.stats[corpus.name] = {"corpus": corpus.name, "config": corpus.default_config,
                                       "source": self.source(corpus)}
        if config == corpus.default_config:
            self.stats[corpus.name]["splits"] = stats.statistics(corpus, built)
        elif corpus.config(config).view is not None:
            self.stats[corpus.name].setdefault("views", {})[config] = stats.view_statistics(built)


def dataset_info(layout, exported):
    """The card's ``dataset_info``: the combined configs' (first), then every config written."""
    combined = [combined_info(layout, name, config, exported.built_infos)
                for name, config in layout.combined_configs().items()] if layout.combined else []
    return combined + exported.infos


def card_files(layout, all_stats, repo, infos):
    """``{path in the repository: text}`` of the cards: the corpus's card, or the combined
    card and the corpus cards it links to."""
    if layout.combined:
        return cards.combined_card(layout, all_stats, repo, dataset_info=infos)
    return {"README.md": cards.corpus_card(layout, all_stats.get(layout.corpora[0].name), repo, dataset_info=infos)}


def write_files(folder, files):
    for relpath, text in files.items():
        path = os.path.join(folder, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def source_of(corpus, data_dir, checksums):
    if data_dir:
        return stats.local_source(corpus, data_dir, checksums)
    return stats.download_source(corpus, corpus.base_url, checksums)


def combined_info(layout, name, config, built_infos):
    """The dataset_info of a combined config: its corpora's parts added up."""
    splits = []
    for split, corpus_list in layout.combined_splits(config).items():
        parts = [next(s for s in built_infos[(c.name, config)]["splits"] if s["name"] == split) for c in corpus_list]
        splits.append({"name": split, "num_bytes": sum(p["num_bytes"] for p in parts),
                       "num_examples": sum(p["num_examples"] for p in parts)})
    corpora = [c for c in layout.corpora if config in c.config_names]
    size = sum(built_infos[(c.name, config)]["download_size"] for c in corpora)
    return info_entry(name, portable(corpora[0].config(config).features), splits, size)


def verify_counts(folder, infos):
    """Every config's Parquet shards hold as many rows as its build."""
    for info in infos:
        if not os.path.isdir(os.path.join(folder, info["config_name"])):
            continue  # a combined config reuses the corpora's shards
        for split in info["splits"]:
            prefix = f"{split['name']}-"
            config_dir = os.path.join(folder, info["config_name"])
            rows = sum(pq.ParquetFile(os.path.join(config_dir, name)).metadata.num_rows
                       for name in os.listdir(config_dir) if name.startswith(prefix) and name.endswith(".parquet"))
            if rows != split["num_examples"]:
                raise ExportError(f"{info['config_name']}/{split['name']}: {rows} rows written, "
                                  f"{split['num_examples']} built")


def replace_folder(folder, out):
    """Move the finished ``folder`` to ``out``, replacing an earlier export."""
    old = None
    if os.path.exists(out):
        old = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.old-", dir=os.path.dirname(out))
        os.rename(out, os.path.join(old, "folder"))
    os.rename(folder, out)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def parse_per_corpus(values, names, option):
    """``--data-dir PATH`` (one corpus) or ``--data-dir name=PATH`` (any), as a dict."""
    out = {}
    for value in values or []:
        name, sep, path = value.partition("=")
        if not sep or name not in registry.corpora():
            if len(names) != 1:
                raise ExportError(f"{option} {value}: with several corpora write {option} <corpus>=<path>")
            name, path = names[0], value
        out[name] = path
    return out


def add_build_arguments(parser):
    parser.add_argument("corpus", nargs="+", help=f"corpus names ({', '.join(registry.corpora())}) or '{ALL}'")
    parser.add_argument("--data-dir", action="append", metavar="[CORPUS=]PATH",
                        help="a local copy in the upstream layout (default: download the pinned files)")
    parser.add_argument("--checksums", action="append", metavar="[CORPUS=]PATH",
                        help="the checksum table of a local copy or mirror")
    add_no_verify_flag(parser)
    parser.add_argument("--max-shard-size", default=DEFAULT_MAX_SHARD_SIZE, type=parse_size,
                        help="Arrow bytes per Parquet shard, e.g. 500MB (default)")
    parser.add_argument("--jsonl", action="store_true", help="also write JSON Lines in the unified spec's shape")
    parser.add_argument("--no-variants", action="store_true",
                        help="leave out the configs of each variant of a corpus (SGD-X's <config>_v1 … _v5)")
    parser.add_argument("--num-proc", type=int, help="processes per build")
    parser.add_argument("--cache-dir", help="reuse this datasets cache (default: a temporary one)")


def build_options(args):
    corpus_list, combined = resolve(args.corpus)
    names = [c.name for c in corpus_list]
    return corpus_list, {
        "combined": combined,
        "data_dirs": parse_per_corpus(args.data_dir, names, "--data-dir"),
        "checksums": parse_per_corpus(args.checksums, names, "--checksums"),
        "verification_mode": "no_checks" if args.no_verify else None,
        "max_shard_size": args.max_shard_size,
        "jsonl": args.jsonl,
        "variants": not args.no_variants,
        "num_proc": args.num_proc,
        "cache_dir": args.cache_dir,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(parser)
    parser.add_argument("--out", help="the folder to write (default: export/<corpus>)")
    parser.add_argument("--repo", help="the Hub repository named in the card's examples")

    def work(args):
        corpus_list, options = build_options(args)
        export(corpus_list, args.out or os.path.join("export", "-".join(args.corpus)), repo=args.repo, **options)

    run_command(parser, work, argv, name="export", flag_hints=True)


if __name__ == "__main__":
    main()
