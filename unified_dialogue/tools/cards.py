"""Dataset cards: the templates filled in. A card is its corpus's prose
(``loaders/<name>/card.md``) with generated sections, each a shared template in
``card_templates/`` (``_loading.md``, ``_configs.md``, ``_views.md``, ``_statistics.md``,
...; ``all.md`` for the combined card) filled with values taken from the corpus's
declaration and its statistics (``tools/stats.py``), in the Hugging Face card format
(YAML metadata, then Markdown). The prose is in the templates; this module computes the
values (tables, code examples, the sentence naming the source files).

``python -m unified_dialogue.tools.cards`` (``make cards``) renders ``dataset_cards/`` from the
statistics stored in ``dataset_cards/stats/``; with ``--data DIR`` it first computes the
statistics again from the local copies of the corpora found in ``DIR``. Export renders the
same cards with the statistics and ``dataset_info`` of the build it exports.
"""

import argparse
import os
import re
import sys
from importlib import resources

import yaml

from .. import registry, views
from ..cli import run_command
from ..core.errors import ConfigError
from . import stats
from .layout import ALL, Layout, shard_pattern

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
REPO_PLACEHOLDER = "<owner>/<name>"
CARD_DIR = "dataset_cards"
COMBINED_PRETTY_NAME = "Dialogue corpora in the unified dialogue schema"


# ---------------------------------------------------------------- templates

def template(name):
    """A shared template (the combined card, the unified schema section)."""
    return resources.files("unified_dialogue.tools").joinpath("card_templates", f"{name}.md").read_text(encoding="utf-8")


def corpus_template(corpus):
    """The card text of a corpus, from its folder."""
    with open(corpus.card_template_path, encoding="utf-8") as f:
        return f.read()


def fill(text, values):
    """Replace every ``{{ key }}``; a key without a value is an error, not an empty string."""
    missing = sorted({key for key in PLACEHOLDER.findall(text) if key not in values})
    if missing:
        raise KeyError(f"no value for template placeholder(s) {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text)


def section(template_name, **values):
    """A generated section: the shared template ``_<template_name>.md`` filled with ``values``."""
    return fill(template(f"_{template_name}"), values).rstrip("\n")


def card_values(corpus):
    """The placeholders a corpus's card text may use besides the generated sections."""
    return {"citation": corpus.citation, "homepage": corpus.homepage, "source_revision": corpus.source_revision}


def config_descriptions(corpus):
    return {config.name: config.description for config in corpus.configs}


# ---------------------------------------------------------------- generated sections

def number(n):
    return f"{n:,}"


def loading_section(corpus, layout, repo):
    default = layout.published(corpus, corpus.default_config)
    other = next((c for c in corpus.config_names if c != corpus.default_config), None)
    splits = layout.splits(corpus)
    split = "validation" if "validation" in splits else splits[0]
    other_example = (f'part = load_dataset("{repo}", "{layout.published(corpus, other)}", split="{split}")\n'
                     if other else "")
    return section("loading", repo=repo, default=default, splits=", ".join(splits),
                   other_config_example=other_example, train_shards=shard_pattern(default, "train"),
                   corpus=corpus.name, loader_default=corpus.default_config)


def configs_section(corpus, layout):
    descriptions = config_descriptions(corpus)
    rows = []
    for config in corpus.config_names:
        name = layout.published(corpus, config)
        default = " (default)" if not layout.combined and config == corpus.default_config else ""
        splits = ", ".join(f"`{s}`" for s in layout.splits(corpus))
        rows.append(f"| `{name}`{default} | `{config}` | {splits} | {descriptions.get(config, '')} |")
    variants = ""
    if corpus.variants:
        example = layout.published(corpus, corpus.config_names[-1], corpus.variants[-1])
        variants = "\n\n" + section("configs_variants", variants=", ".join(f"`{v}`" for v in corpus.variants),
                                      example=example)
    return section("configs", rows="\n".join(rows), variants=variants)


def view_text(config):
    """What a task view's rows hold, from its module's documentation after the line that
    describes the config (one text for the code and the card)."""
    module = sys.modules[config.view.func.__module__ if hasattr(config.view, "func") else config.view.__module__]
    return re.sub(r"``([^`]+)``", r"`\1`", views.details(module))


def views_section(corpus, corpus_stats):
    """The task views of a corpus: what each row holds, and how many rows each split has."""
    if not corpus.views:
        return ""
    figures = (corpus_stats or {}).get("views", {})
    blocks = [section("view", name=config.name, rows=view_text(config),
                      figures=view_figures(corpus, figures[config.name]) if config.name in figures
                      else section("view_not_computed"))
              for config in corpus.views]
    return section("views", views="\n\n".join(blocks))


def view_figures(corpus, per_split):
    """The table of a view's rows per split (and the mean context length, where rows have one)."""
    splits = list(corpus.splits)
    lines = ["| | " + " | ".join(f"`{s}`" for s in splits) + " |", "|---|" + "---:|" * len(splits)]
    lines.append("| rows | " + " | ".join(number(per_split[s]["rows"]) if s in per_split else "–" for s in splits)
                 + " |")
    if any("context_turns" in per_split[s] for s in per_split):
        lines.append("| mean context turns | " + " | ".join(
            f"{per_split[s]['context_turns']:.2f}" if s in per_split and "context_turns" in per_split[s] else "–"
            for s in splits) + " |")
    return "\n".join(lines)


def _ranges(numbers):
    """[1, 2, 3, 5] -> ["1–3", "5"] with the numbers' own zero padding."""
    out, start, prev = [], None, None
    for text in numbers:
        n = int(text)
        if start is not None and n == int(prev) + 1:
            prev = text
            continue
        if start is not None:
            out.append(start if start == prev else f"{start}–{prev}")
        start = prev = text
    if start is not None:
        out.append(start if start == prev else f"{start}–{prev}")
    return out


def file_list(paths):
    """A short listing of file paths: per folder, numbered names folded into ranges."""
    folders = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        folders.setdefault(folder, []).append(name)
    parts = []
    for folder, names in folders.items():
        numbered, plain = {}, []
        for name in names:
            match = re.fullmatch(r"(.*?)(\d+)(\.\w+)", name)
            if match:
                numbered.setdefault((match.group(1), match.group(3)), []).append(match.group(2))
            else:
                plain.append(f"`{name}`")
        for (prefix, suffix), numbers in numbered.items():
            plain.append(f"`{prefix}{', '.join(_ranges(sorted(numbers, key=int)))}{suffix}`")
        parts.append((f"`{folder}/`: " if folder else "") + ", ".join(plain))
    return "; ".join(parts)


def _file_note(f, table):
    read_as = f.get("read_as", f["path"])
    what = (f"differs from the {table} `{read_as}`" if f["check"] == "differs"
            else f"is not a file of the {table} checksum table")
    alias = f", read as `{read_as}`" if read_as != f["path"] else ""
    return f"`{f['path']}` ({number(f['num_bytes'])} bytes, sha256 `{f['sha256'][:12]}…`{alias}), which {what}"


def source_sentence(corpus, source):
    """Which files the figures were computed from, and how they compare with the checksums."""
    files = source["files"]
    table = "upstream" if source["table"] == "upstream" else "given"
    by_check = {}
    for f in files:
        by_check.setdefault(f["check"], []).append(f["path"])
    matched, unknown = by_check.get("match", []), by_check.get("unknown", [])
    parts = []
    if source["kind"] == "download":
        origin = f"downloaded from {source['base_url']}"
        if source["complete"]:
            return (f"all {source['table_files']} files of the pinned upstream release, {origin} and "
                    f"verified (size and sha256) by the loader")
        if matched:
            parts.append(f"{len(matched)} files {origin}, verified against the {table} checksum table: "
                         f"{file_list(matched)}")
        if unknown:
            parts.append(f"{len(unknown)} files {origin} whose size and sha256 the upstream checksum table does "
                         f"not know yet, so they are not verified: {file_list(unknown)}")
        return "; ".join(parts)
    if source["complete"]:
        return (f"a local copy of all {source['table_files']} upstream files, each identical to its upstream "
                f"file (sha256): the complete corpus")
    if matched and table == "upstream":
        parts.append(f"a local copy holding {len(matched)} of the {source['table_files']} upstream files, each "
                     f"identical to its upstream file (sha256): {file_list(matched)}")
    elif matched:
        parts.append(f"a local copy of {len(matched)} files, verified against a checksum table given for the "
                     f"build, not the upstream one: {file_list(matched)}")
    if unknown:
        parts.append(f"{len(unknown)} files of a local copy whose sha256 the upstream checksum table does not "
                     f"know yet, so they are not verified: {file_list(unknown)}")
    parts += [_file_note(f, table) for f in files if f["check"] in ("differs", "not listed")]
    return "; ".join(parts)


def caveat(corpus, source, missing_splits):
    """What the reader must know when the figures are not those of the verified whole corpus."""
    if source["complete"] and not missing_splits:
        return None
    unverified_only = source["table"] == "upstream" and all(f["check"] in ("match", "unknown") for f in source["files"]) \
        and len({f.get("read_as", f["path"]) for f in source["files"]}) == source["table_files"]
    if unverified_only and not missing_splits:
        return ("**The files could not be verified against upstream checksums (not known yet): the figures are "
                "those of the files named above.**")
    text = "**These figures describe only the files named above, not the whole corpus"
    if missing_splits:
        text += f"; no data of {', '.join(f'`{s}`' for s in missing_splits)} was in them"
    return text + ".**"


def statistics_section(corpus, corpus_stats, heading="## Statistics"):
    if corpus_stats is None:
        return section("statistics_not_computed", heading=heading, short_name=corpus.short_name)
    per_split = corpus_stats["splits"]
    source = corpus_stats["source"]
    splits = list(corpus.splits)
    warning = caveat(corpus, source, [s for s in splits if s not in per_split])
    return section("statistics", heading=heading, source=source_sentence(corpus, source),
                   caveat=f"\n\n{warning}" if warning else "", tables=statistics_tables(corpus, per_split))


def statistics_tables(corpus, per_split):
    """The figures of each split: one table of counts, then one per measure of labels."""
    splits = list(corpus.splits)
    labels = dict(stats.SHARED_MEASURES)
    labels.update((m.key, m.label) for m in corpus.measures)
    kinds = {m.key: m.kind for m in corpus.measures}
    header = "| | " + " | ".join(f"`{s}`" for s in splits) + " |"
    rule = "|---|" + "---:|" * len(splits)
    lines = [header, rule]
    for key, label in labels.items():
        if kinds.get(key) == "labels":
            continue
        cells = [number(per_split[s][key]) if s in per_split else "–" for s in splits]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for key, label in labels.items():
        if kinds.get(key) != "labels":
            continue
        names = sorted({name for s in per_split.values() for name in s[key]})
        lines += ["", f"{label}:", "", header.replace("| |", "| label |", 1), rule]
        for name in names:
            cells = [number(per_split[s][key].get(name, 0)) if s in per_split else "–" for s in splits]
            lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def size_category(corpus_stats):
    if corpus_stats is None or not corpus_stats["source"]["complete"]:
        return None
    n = sum(split["dialogues"] for split in corpus_stats["splits"].values())
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


# ---------------------------------------------------------------- cards

def metadata(corpus_list, layout, pretty_name, sizes, dataset_info=None):
    """The card's YAML metadata, keys in the usual order."""
    def union(attribute):
        return sorted({value for c in corpus_list for value in getattr(c, attribute)})

    meta = {
        "pretty_name": pretty_name,
        "license": union("license_ids"),
        "language": union("language"),
        "task_categories": union("task_categories"),
        "task_ids": union("task_ids"),
        "source_datasets": union("source_datasets"),
    }
    sizes = sorted({s for s in sizes if s})
    if sizes:
        meta["size_categories"] = sizes
    meta["tags"] = ["dialogue", "unified-dialogue-schema"]
    meta["configs"] = layout.configs()
    if dataset_info is not None:
        meta["dataset_info"] = dataset_info
    return meta


def with_front_matter(meta, body):
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n\n{body.strip()}\n"


def corpus_body(corpus, corpus_stats, layout, repo):
    values = card_values(corpus)
    values.update({
        "title": corpus.pretty_name,
        "loading": loading_section(corpus, layout, repo),
        "configs": configs_section(corpus, layout),
        "unified_schema": template("_unified").strip(),
        "statistics": statistics_section(corpus, corpus_stats),
        "views": views_section(corpus, corpus_stats),
    })
    return fill(corpus_template(corpus), values)


def corpus_card(layout, corpus_stats, repo=None, dataset_info=None):
    """The card of a single-corpus repository (``layout`` of one corpus)."""
    (corpus,) = layout.corpora
    body = corpus_body(corpus, corpus_stats, layout, repo or REPO_PLACEHOLDER)
    meta = metadata([corpus], layout, corpus.pretty_name, [size_category(corpus_stats)], dataset_info)
    return with_front_matter(meta, body)


def combined_loading_section(corpus_list, layout, repo):
    first = layout.published(corpus_list[0], corpus_list[0].default_config)
    second_example = ""
    if len(corpus_list) > 1:
        second = layout.published(corpus_list[1], corpus_list[1].default_config)
        second_example = f'two = concatenate_datasets([one, load_dataset("{repo}", "{second}", split="train")])\n'
    return section("loading_combined", repo=repo, first=first, second_corpus_example=second_example)


def combined_card(layout, all_stats, repo=None, dataset_info=None):
    """The card of the combined repository (``layout``) and the corpus cards it links to,
    as ``{path in the repository: text}`` (``README.md`` included)."""
    corpus_list = list(layout.corpora)
    repo = repo or REPO_PLACEHOLDER
    files, rows, sections = {}, [], []
    for corpus in corpus_list:
        corpus_stats = all_stats.get(corpus.name)
        path = f"cards/{corpus.name}.md"
        files[path] = corpus_body(corpus, corpus_stats, layout, repo).strip() + "\n"
        configs = ", ".join(f"`{layout.published(corpus, c)}`" for c in corpus.config_names)
        splits = ", ".join(f"`{s}`" for s in layout.splits(corpus))
        rows.append(f"| {corpus.short_name} | {configs} | {splits} | {', '.join(corpus.license_ids)} | [{path}]({path}) |")
        sections.append(statistics_section(corpus, corpus_stats, heading=f"### {corpus.short_name}"))
    values = {
        "title": COMBINED_PRETTY_NAME,
        "corpora_rows": "\n".join(rows),
        "combined_splits": "\n".join(
            f"  - `{split}`: " + " + ".join(f"`{layout.published(c, c.default_config)}`" for c in cs)
            for split, cs in layout.combined_splits().items()),
        "first_config": layout.published(corpus_list[0], corpus_list[0].default_config),
        "loading": combined_loading_section(corpus_list, layout, repo),
        "unified_schema": template("_unified").strip(),
        "statistics": "\n\n".join(sections),
        "licenses": "\n".join(f"- {c.license_text}" for c in corpus_list),
        "citations": "\n\n".join(c.citation for c in corpus_list),
    }
    sizes = [size_category(all_stats.get(c.name)) for c in corpus_list]
    meta = metadata(corpus_list, layout, COMBINED_PRETTY_NAME, sizes, dataset_info)
    files["README.md"] = with_front_matter(meta, fill(template(ALL), values))
    return files


def write_cards(card_dir, repo=None):
    """Render every available corpus's card and the combined card into ``card_dir``."""
    written = []
    available = list(registry.corpora().values())
    all_stats = {c.name: stats.read_stats(card_dir, c) for c in available}
    outputs = {f"{c.name}.md": corpus_card(Layout((c,), combined=False), all_stats[c.name], repo) for c in available}
    outputs[f"{ALL}.md"] = combined_card(Layout(tuple(available), combined=True), all_stats, repo)["README.md"]
    for name, text in outputs.items():
        path = os.path.join(card_dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(path)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="a folder with local copies of the corpora (sgd/, ...): recompute the statistics")
    parser.add_argument("--out", default=CARD_DIR, help="the card folder (default: %(default)s)")
    parser.add_argument("--repo", help="the Hub repository named in the loading examples")

    def work(args):
        for flag, folder in (("--out", args.out), ("--data", args.data)):
            if folder is not None and not os.path.isdir(folder):
                raise ConfigError(f"{flag} {folder}: no such folder" if not os.path.exists(folder) else
                                  f"{flag} {folder}: a file, not a folder")
        if args.data:
            for corpus in registry.corpora().values():
                copy = corpus.local_copy(args.data)
                if copy is None:
                    print(f"{corpus.name}: no local copy in {args.data} ({', '.join(corpus.local_copies)}), "
                          f"statistics kept as they are")
                    continue
                result = stats.compute_stats(corpus, copy)
                stats.write_stats(args.out, corpus, result)
                totals = {s: (v["dialogues"], v["turns"]) for s, v in result["splits"].items()}
                print(f"{corpus.name}: statistics from {len(result['source']['files'])} file(s) of {copy}: "
                      + ", ".join(f"{s} {d} dialogues / {t} turns" for s, (d, t) in totals.items()))
        for path in write_cards(args.out, args.repo):
            print(f"wrote {path}")

    run_command(parser, work, argv, name="cards")


if __name__ == "__main__":
    main()
