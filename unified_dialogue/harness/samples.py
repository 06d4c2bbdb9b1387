"""An lm-eval samples file (``--log_samples``: ``samples_<task>_<date>.jsonl``) as the
scoring command's predictions: one ``{"id", "text"}`` line per row, the row's ``id`` from
the logged document and the text from the filtered response, so that an lm-eval run can be
rescored and analysed row by row (``python -m unified_dialogue.scoring ... --per-row``).
"""

import glob
import json
import os

from ..cli import write_atomically
from ..core.errors import UnifiedDialogueError
from ..scoring.rows import json_lines


# Where a samples file comes from, for a message.
WRITTEN_BY = "lm-eval writes one for each task with --log_samples"


class SamplesError(UnifiedDialogueError, ValueError):
    """A samples file that cannot be read as predictions; the message says where."""


def sample_prediction(sample, where):
    """``(filter, variant, id, text)`` of one logged sample (variant None but in a task on
    every variant)."""
    if not isinstance(sample, dict):
        raise SamplesError(f"{where}: not a JSON object")
    if "doc" not in sample and {"id", "text"} <= set(sample):
        raise SamplesError(f"{where}: a line of a predictions file ({{\"id\", \"text\"}}), not an lm-eval sample: "
                           f"give the file as it is to python -m unified_dialogue.scoring --predictions")
    doc = sample.get("doc")
    if not isinstance(doc, dict) or not isinstance(doc.get("id"), str):
        raise SamplesError(f"{where}: field doc.id: no row id (a sample of a task of unified_dialogue.harness has one)")
    responses = sample.get("filtered_resps")
    text = responses[0] if isinstance(responses, list) and len(responses) == 1 else responses
    if not isinstance(text, str):
        raise SamplesError(f"{where}: field filtered_resps: not one generated text")
    variant = doc.get("variant")  # a task on every variant (harness.variants) logs each row under each
    return sample.get("filter"), variant, doc["id"], text


def check_not_results(path):
    """Raise SamplesError where ``path`` is lm-eval's results file (one JSON object with
    ``results`` and ``configs``) or its output folder rather than a samples file, naming the
    samples files beside it, or in it, or the flag that writes them."""
    if os.path.isdir(path):
        found = sorted(glob.glob(os.path.join(glob.escape(str(path)), "**", "samples_*.jsonl"), recursive=True))
        hint = f"give one of the samples files in it: {', '.join(found)}" if found else \
            f"it holds no samples_<task>_<date>.jsonl file ({WRITTEN_BY})"
        raise SamplesError(f"{path}: a folder; {hint}")
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError):  # JSON Lines (a samples file), or not readable: json_lines says
        return
    if not (isinstance(value, dict) and "results" in value and "configs" in value):
        return
    folder = os.path.dirname(os.path.abspath(path))
    beside = sorted(name for name in os.listdir(folder) if name.startswith("samples_") and name.endswith(".jsonl"))
    hint = f"give one of the samples files beside it: {', '.join(beside)}" if beside else \
        f"give the samples_<task>_<date>.jsonl file beside it ({WRITTEN_BY})"
    raise SamplesError(f"{path}: an lm-eval results file (the metrics of a run), not a samples file: {hint}")


def read_samples(path, filter_name=None, variant=None):
    """``{id: text}`` of a samples file, in file order.

    Args:
        path: an lm-eval samples file (JSON Lines).
        filter_name: the filter whose responses to take, where the file has several.
        variant: the variant whose responses to take, in the samples of a task on every
            variant (``sgd_dst_chat_sgd_x``).

    Raises:
        SamplesError naming the file, line and field of a sample that cannot be read, a row
        logged twice, or the filters or variants to choose from; or saying that the file is
        lm-eval's results file, and which file to give instead.
    """
    check_not_results(path)
    by_filter, variants = {}, set()
    for where, sample in json_lines(path, SamplesError):
        name, logged_under, identifier, text = sample_prediction(sample, where)
        variants.add(logged_under)
        if logged_under != variant:
            continue
        predictions = by_filter.setdefault(name, {})
        if identifier in predictions:
            raise SamplesError(f"{where}: field doc.id: row {identifier!r} is logged twice")
        predictions[identifier] = text
    if variant is None and variants - {None}:
        raise SamplesError(f"{path}: samples of every variant ({names(variants - {None})}): "
                           f"choose one with --variant, a predictions file each")
    if variant is not None and variant not in variants:
        raise SamplesError(f"{path}: no sample of variant {variant!r} "
                           f"({'variants: ' + names(variants - {None}) if variants - {None} else 'the task has none'})")
    if filter_name is not None:
        if filter_name not in by_filter:
            raise SamplesError(f"{path}: no sample of filter {filter_name!r} (filters: {names(by_filter)})")
        return by_filter[filter_name]
    if len(by_filter) > 1:
        raise SamplesError(f"{path}: samples of several filters ({names(by_filter)}): choose one with --filter")
    if not by_filter:
        raise SamplesError(f"{path}: no sample")
    return next(iter(by_filter.values()))


def names(by_filter):
    return ", ".join(sorted(map(str, by_filter)))


def prediction_lines(predictions):
    """``{id: text}`` as the lines of a predictions file."""
    return [json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n" for i, t in predictions.items()]


def write_predictions(predictions, output):
    """Write ``{id: text}`` as a predictions file at ``output``, whole or not at all
    (``cli.write_atomically``)."""
    write_atomically(output, "".join(prediction_lines(predictions)))
