"""The statistics sections of the cards: which files the figures come from (``source_sentence``),
what the reader must know when they are not the whole verified corpus (``caveat``), and the
tables of each split's figures, all from the statistics ``tools/stats.py`` computes."""

import re

from . import stats
from .card_fill import number, section, sentence


def view_figures(corpus, per_split):
    """The table of a view's rows per split (and the mean context length, where rows have one)."""
    splits = list(corpus.splits)
    lines = ["| | " + " | ".join(f"`{s}`" for s in splits) + " |", "|---|" + "---:|" * len(splits)]
    lines.append(f"| {sentence('table_rows')} | " + " | ".join(number(per_split[s]["rows"]) if s in per_split else "–" for s in splits)
                 + " |")
    if any("context_turns" in per_split[s] for s in per_split):
        lines.append(f"| {sentence('table_context_turns')} | " + " | ".join(
            f"{per_split[s]['context_turns']:.2f}" if s in per_split and "context_turns" in per_split[s] else "–"
            for s in splits) + " |")
    reasons = sorted({reason for s in per_split.values() for reason in s.get("left_out", ())})
    for reason in reasons:  # episodes left out of the judged set (environment.leftout)
        lines.append(f"| {sentence('table_left_out', reason=reason)} | " + " | ".join(
            number(per_split[s].get("left_out", {}).get(reason, 0)) if s in per_split else "–" for s in splits) + " |")
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
    what = (sentence("file_differs", table=table, read_as=read_as) if f["check"] == "differs"
            else sentence("file_not_listed", table=table))
    alias = sentence("file_read_as", read_as=read_as) if read_as != f["path"] else ""
    return sentence("file_note", path=f["path"], num_bytes=number(f["num_bytes"]), sha256=f["sha256"][:12],
                    read_as=alias, what=what)


def source_sentence(corpus, source):
    """Which files the figures were computed from, and how they compare with the checksums."""
    files = source["files"]
    table = "upstream" if source["table"] == "upstream" else "given"
    by_check = {}
    for f in files:
        by_check.setdefault(f["check"], []).append(f["path"])
    matched, unknown = by_check.get("match", []), by_check.get("unknown", [])
    total = source["table_files"]
    if source["kind"] == "download":
        origin = sentence("download_origin", base_url=source["base_url"])
        if source["complete"]:
            return sentence("download_complete", table_files=total, origin=origin)
        parts = [sentence(name, count=len(paths), origin=origin, table=table, files=file_list(paths))
                 for name, paths in (("download_matched", matched), ("download_unknown", unknown)) if paths]
        return "; ".join(parts)
    if source["complete"]:
        return sentence("copy_complete", table_files=total)
    parts = []
    if matched:
        name = "copy_matched_upstream" if table == "upstream" else "copy_matched_given"
        parts.append(sentence(name, count=len(matched), table_files=total, files=file_list(matched)))
    if unknown:
        parts.append(sentence("copy_unknown", count=len(unknown), files=file_list(unknown)))
    parts += [_file_note(f, table) for f in files if f["check"] in ("differs", "not listed")]
    return "; ".join(parts)


def caveat(corpus, source, missing_splits):
    """What the reader must know when the figures are not those of the verified whole corpus."""
    if source["complete"] and not missing_splits:
        return None
    unverified_only = source["table"] == "upstream" and all(f["check"] in ("match", "unknown") for f in source["files"]) \
        and len({f.get("read_as", f["path"]) for f in source["files"]}) == source["table_files"]
    if unverified_only and not missing_splits:
        return sentence("caveat_unverified")
    missing = (sentence("caveat_missing", splits=", ".join(f"`{s}`" for s in missing_splits))
               if missing_splits else "")
    return sentence("caveat_partial", missing=missing)


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
