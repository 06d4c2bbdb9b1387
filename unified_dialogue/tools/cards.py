"""Dataset cards: each corpus's prose (``loaders/<name>/card.md``) and the shared parts
(``card_templates/``), plus statistics computed from the data, rendered into the Hugging
Face card format (YAML metadata, then Markdown).

``python -m unified_dialogue.tools.cards`` (``make cards``) renders ``dataset_cards/`` from the
statistics stored in ``dataset_cards/stats/``; with ``--data DIR`` it first computes the
statistics again from the local copies of the corpora found in ``DIR``. Export renders the
same cards with the statistics and ``dataset_info`` of the build it exports.
"""

import argparse
import json
import os
import re
import sys
import tempfile
from importlib import resources

import datasets
import yaml

from .. import registry, views
from ..api import load
from . import stats
from .layout import Layout, shard_pattern

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
REPO_PLACEHOLDER = "<owner>/<name>"
CARD_DIR = "dataset_cards"
ALL = "all"
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
    hub = [
        "from datasets import load_dataset",
        "",
        f'ds = load_dataset("{repo}", "{default}")  # DatasetDict: {", ".join(splits)}',
    ]
    if other:
        hub.append(f'part = load_dataset("{repo}", "{layout.published(corpus, other)}", split="{split}")')
    hub.append(f'stream = load_dataset("{repo}", "{default}", split="train", streaming=True)')
    return "\n".join([
        "## How to load",
        "",
        "**From the Hugging Face Hub**, on any `datasets` version (the repository holds Parquet",
        "files, no loading script):",
        "",
        "```python",
        *hub,
        "```",
        "",
        "The shards are plain Parquet, so pandas, Polars, DuckDB or Spark read them directly,",
        f'e.g. `duckdb.sql("SELECT * FROM \'hf://datasets/{repo}/{shard_pattern(default, "train")}\'")`.',
        "",
        "**With the loader**, from a clone of the `unified-dialogue` project (it downloads the",
        "pinned upstream files and checks them against the sizes and sha256 it bundles, where",
        "known). On `datasets` 3.6, the last line that runs loading scripts:",
        "",
        "```python",
        f'ds = load_dataset("loaders/{corpus.name}", "{corpus.default_config}", trust_remote_code=True)',
        "```",
        "",
        "On `datasets` 4.x and 5.x, which run no loading scripts, through the project's import",
        "entry point (same arguments, same return types):",
        "",
        "```python",
        "from unified_dialogue import load",
        "",
        f'ds = load("{corpus.name}", "{corpus.default_config}")',
        f'stream = load("{corpus.name}", "{corpus.default_config}", split="train", streaming=True)',
        "```",
    ])


def configs_section(corpus, layout):
    descriptions = config_descriptions(corpus)
    rows = [
        "## Configs and splits",
        "",
        "| config | loader config | splits | content |",
        "|---|---|---|---|",
    ]
    for config in corpus.config_names:
        name = layout.published(corpus, config)
        default = " (default)" if not layout.combined and config == corpus.default_config else ""
        splits = ", ".join(f"`{s}`" for s in layout.splits(corpus))
        rows.append(f"| `{name}`{default} | `{config}` | {splits} | {descriptions.get(config, '')} |")
    if corpus.variants:
        example = layout.published(corpus, corpus.config_names[-1], corpus.variants[-1])
        rows += ["", f"Every config also exists for each variant {', '.join(f'`{v}`' for v in corpus.variants)}, "
                     f"as `<config>_<variant>` (e.g. `{example}`; the loader's option `variant=`)."]
    return "\n".join(rows)


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
    lines = ["## Task views", "",
             "Rows ready for training, computed from the `unified` records; a row never uses anything of its",
             "dialogue after the turn it is about.", ""]
    splits = list(corpus.splits)
    for config in corpus.views:
        lines += [f"### `{config.name}`", "", view_text(config), ""]
        if config.name not in figures:
            lines += ["Rows per split: not computed (no copy of the corpus was at hand).", ""]
            continue
        per_split = figures[config.name]
        lines += ["| | " + " | ".join(f"`{s}`" for s in splits) + " |", "|---|" + "---:|" * len(splits)]
        lines.append("| rows | " + " | ".join(number(per_split[s]["rows"]) if s in per_split else "–" for s in splits)
                     + " |")
        if any("context_turns" in per_split[s] for s in per_split):
            lines.append("| mean context turns | " + " | ".join(
                f"{per_split[s]['context_turns']:.2f}" if s in per_split and "context_turns" in per_split[s] else "–"
                for s in splits) + " |")
        lines.append("")
    return "\n".join(lines).rstrip()


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


def statistics_section(corpus, corpus_stats, heading="##"):
    if corpus_stats is None:
        return "\n".join([
            f"{heading} Statistics",
            "",
            f"Not computed: no copy of {corpus.short_name} was at hand where this card was generated.",
            "The project's test fixtures are not the corpus (excerpts and hand-made files), so their figures",
            "are not shown. `make cards DATA=<folder with the corpus>` computes the figures, and",
            "an export computes them from the data it exports.",
        ])
    per_split = corpus_stats["splits"]
    source = corpus_stats["source"]
    splits = list(corpus.splits)
    lines = [
        f"{heading} Statistics",
        "",
        f"Computed from the `unified` build of {source_sentence(corpus, source)}.",
    ]
    warning = caveat(corpus, source, [s for s in splits if s not in per_split])
    if warning:
        lines += ["", warning]
    labels = dict(stats.SHARED_MEASURES)
    labels.update((m.key, m.label) for m in corpus.measures)
    kinds = {m.key: m.kind for m in corpus.measures}
    header = "| | " + " | ".join(f"`{s}`" for s in splits) + " |"
    rule = "|---|" + "---:|" * len(splits)
    lines += ["", header, rule]
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
    lines = [
        "## How to load",
        "",
        "```python",
        "from datasets import concatenate_datasets, load_dataset",
        "",
        f'every = load_dataset("{repo}", "unified", split="train")  # every corpus at once',
        f'one = load_dataset("{repo}", "{first}", split="train")  # one corpus',
    ]
    if len(corpus_list) > 1:
        second = layout.published(corpus_list[1], corpus_list[1].default_config)
        lines.append(f'two = concatenate_datasets([one, load_dataset("{repo}", "{second}", split="train")])')
    lines += [
        "```",
        "",
        "The unified configs of all corpora have the same features, so `concatenate_datasets`",
        "takes any mix of them; `corpus` and `split` say where each record comes from. Streaming",
        "(`streaming=True`) works the same way, and the Parquet files can be read directly with",
        f"pandas, Polars, DuckDB or Spark (`hf://datasets/{repo}/...`).",
    ]
    return "\n".join(lines)


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
        sections.append(statistics_section(corpus, corpus_stats, heading="###").replace(
            "### Statistics", f"### {corpus.short_name}", 1))
    values = {
        "title": COMBINED_PRETTY_NAME,
        "corpora_table": "\n".join(["| corpus | configs | splits | license | card |", "|---|---|---|---|---|", *rows]),
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


# ---------------------------------------------------------------- statistics files

def stats_path(card_dir, corpus):
    return os.path.join(card_dir, "stats", f"{corpus.name}.json")


def read_stats(card_dir, corpus):
    path = stats_path(card_dir, corpus)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def compute_stats(corpus, path, checksums=None, cache_dir=None):
    """Statistics of a local copy: build ``unified`` and the task views from it, count, and
    record its files.

    ``path`` is a copy in the upstream layout or one file standing in for the corpus's
    single source file. It is built without the loader's checks (a partial copy or a sample
    loads); each file is compared with the checksum table here instead, and the card says
    how it compares.
    """
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = path
        if os.path.isfile(path):
            data_dir = os.path.join(tmp, "copy")
            os.makedirs(data_dir)
            os.symlink(os.path.abspath(path), os.path.join(data_dir, corpus.local_patterns[0]))
        def build(config):
            return load(corpus.name, config, data_dir=data_dir, checksums=checksums,
                        cache_dir=cache_dir or os.path.join(tmp, "cache"), verification_mode="no_checks")

        return {
            "corpus": corpus.name,
            "config": "unified",
            "source": stats.local_source(corpus, path, checksums),
            "splits": stats.statistics(corpus, build("unified")),
            "views": {view.name: stats.view_statistics(build(view.name)) for view in corpus.views},
        }


def find_local_copy(corpus, root):
    return next((os.path.join(root, p) for p in corpus.local_copies if os.path.exists(os.path.join(root, p))), None)


def write_cards(card_dir, repo=None):
    """Render every available corpus's card and the combined card into ``card_dir``."""
    written = []
    available = list(registry.corpora().values())
    all_stats = {c.name: read_stats(card_dir, c) for c in available}
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
    args = parser.parse_args(argv)
    datasets.disable_progress_bars()
    if args.data:
        os.makedirs(os.path.join(args.out, "stats"), exist_ok=True)
        for corpus in registry.corpora().values():
            copy = find_local_copy(corpus, args.data)
            if copy is None:
                print(f"{corpus.name}: no local copy in {args.data} ({', '.join(corpus.local_copies)}), "
                      f"statistics kept as they are")
                continue
            result = compute_stats(corpus, copy)
            with open(stats_path(args.out, corpus), "w", encoding="utf-8") as f:
                json.dump(result, f, indent=2)
                f.write("\n")
            totals = {s: (v["dialogues"], v["turns"]) for s, v in result["splits"].items()}
            print(f"{corpus.name}: statistics from {len(result['source']['files'])} file(s) of {copy}: "
                  + ", ".join(f"{s} {d} dialogues / {t} turns" for s, (d, t) in totals.items()))
    for path in write_cards(args.out, args.repo):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
