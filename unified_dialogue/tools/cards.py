"""Dataset cards: the templates filled in. A card is its corpus's prose
(``loaders/<name>/card.md``) with generated sections, each a shared template in
``card_templates/`` (``_loading.md``, ``_configs.md``, ``_views.md``, ``_statistics.md``,
...; ``all.md`` for the combined card) filled with values taken from the corpus's
declaration and its statistics (``tools/stats.py``), in the Hugging Face card format
(YAML metadata, then Markdown). The prose is in the templates (``_sentences.md`` for the
sentences the statistics section assembles); this module computes the values (tables, code
examples), ``card_fill`` fills templates and ``card_statistics`` writes the statistics
sections.

``python -m unified_dialogue.tools.cards`` (``make cards``) renders ``dataset_cards/`` from the
statistics stored in ``dataset_cards/stats/``; with ``--data DIR`` it first computes the
statistics again from the local copies of the corpora found in ``DIR``. Export renders the
same cards with the statistics and ``dataset_info`` of the build it exports.
"""

import argparse
import os
import re
import sys

import yaml

from .. import registry, views
from ..cli import run_command
from ..core.errors import ConfigError
from . import stats
from .card_fill import PLACEHOLDER, fill, section, template  # noqa: F401 (PLACEHOLDER: the cards' syntax)
from .card_statistics import size_category, statistics_section, view_figures
from .layout import ALL, Layout, shard_pattern

REPO_PLACEHOLDER = "<owner>/<name>"
CARD_DIR = "dataset_cards"
COMBINED_PRETTY_NAME = "Dialogue corpora in the unified dialogue schema"


# ---------------------------------------------------------------- templates

def corpus_template(corpus):
    """The card text of a corpus, from its folder."""
    with open(corpus.card_template_path, encoding="utf-8") as f:
        return f.read()


def card_values(corpus):
    """The placeholders a corpus's card text may use besides the generated sections."""
    return {"citation": corpus.citation, "homepage": corpus.homepage, "source_revision": corpus.source_revision}


def config_descriptions(corpus):
    return {config.name: config.description for config in corpus.configs}


# ---------------------------------------------------------------- generated sections

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
