"""The DSTC8 metrics of SGD-format files, as the official evaluator reads them: the
references of a split in the upstream layout, and a folder of predicted dialogues
(``score_dst_files``, the work of ``python -m unified_dialogue.scoring.dst``).
"""

import fnmatch
import os

from ..rows import ScoringError, fail, get, load_json, strings
from . import Turn, aggregate, read_frames, service_names, service_slots

# The evaluator writes its per-frame scores into the prediction folder under this name, and
# skips every file whose path contains the name anywhere (``run2_dialogues_and_metrics.json``
# too, and every file of a folder whose path contains it); so does this module.
PER_FRAME_FILE = "dialogues_and_metrics.json"


def read_dialogues(paths):
    """Dialogue id -> dialogue, from SGD dialogue files (a list of dialogues, or a dict of
    them by id like the evaluator's per-frame file). A dialogue given twice keeps its first
    place and its last content, as in the evaluator."""
    dialogues = {}
    for path in paths:
        if PER_FRAME_FILE in os.fspath(path):
            continue
        data = load_json(path)
        if isinstance(data, dict):
            dialogues.update(data)
            continue
        if not isinstance(data, list):
            fail(path, "not a list of dialogues")
        for position, dialogue in enumerate(data):
            dialogues[get(dialogue, "dialogue_id", str, f"{path}: dialogue #{position}")] = dialogue
    return dialogues


def file_turns(references, predictions):
    """The user turns of the predicted dialogues as Turns, in the predictions' order. As in the
    evaluator, a predicted dialogue must name the reference's services and have its speakers
    and user utterances; its turns are paired with the reference's in order, and turns past the
    shorter of the two are not scored."""
    missing = [dialogue_id for dialogue_id in predictions if dialogue_id not in references]
    if missing:
        raise ScoringError(f"{len(missing)} predicted dialogues are not in the references: {', '.join(missing[:5])}")
    for dialogue_id, predicted in predictions.items():
        reference, where = references[dialogue_id], f"dialogue {dialogue_id}"
        services = set(strings(get(predicted, "services", list, where), where, "services"))
        if services != set(get(reference, "services", list, f"{where} (reference)")):
            fail(where, "the predicted services are not the reference's")
        turn_pairs = zip(get(reference, "turns", list, f"{where} (reference)"), get(predicted, "turns", list, where))
        for turn_index, (reference_turn, predicted_turn) in enumerate(turn_pairs):
            where = f"dialogue {dialogue_id}, turn {turn_index}"
            speaker = get(reference_turn, "speaker", str, f"{where} (reference)")
            if get(predicted_turn, "speaker", str, where) != speaker:
                fail(where, f"the speaker is {predicted_turn['speaker']!r}, the reference's {speaker!r}")
            if speaker != "USER":
                continue
            utterance = get(reference_turn, "utterance", str, f"{where} (reference)")
            if get(predicted_turn, "utterance", str, where) != utterance:
                fail(where, "the utterance differs from the reference's")
            yield Turn(dialogue_id, turn_index, utterance, read_frames(reference_turn, f"{where} (reference)"),
                       read_frames(predicted_turn, where))


def matching(folder, pattern):
    """The paths in ``folder`` whose names match ``pattern``, sorted, as the evaluator's
    ``tf.io.gfile.glob`` finds them: its ``*`` also matches a leading dot, which Python's
    glob does not."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, name) for name in names if fnmatch.fnmatchcase(name, pattern))


def score_dst_files(dstc8_data_dir, prediction_dir, eval_set, *, use_fuzzy_match=True, joint_acc_across_turn=False):
    """The DSTC8 metrics of SGD-format prediction files, as the evaluator's command computes them.

    Args:
        dstc8_data_dir: SGD in the upstream layout; the references are
            ``<dstc8_data_dir>/<eval_set>/dialogues_*.json`` with that split's schema, and the
            train schema (``<dstc8_data_dir>/train/schema.json``) tells seen services from
            unseen ones.
        prediction_dir: a folder whose ``*.json`` files hold the predicted dialogues.
        eval_set: ``train``, ``dev`` or ``test``.
        use_fuzzy_match, joint_acc_across_turn: as for ``score_dst``.

    Returns:
        ``{group: {metric: value}}``, as ``score_dst``.

    Example:
        >>> metrics = score_dst_files("sgd", "predictions", "test")  # doctest: +SKIP
        >>> write_metrics(metrics, "metrics.json")  # doctest: +SKIP
    """
    split_dir = os.path.join(dstc8_data_dir, eval_set)
    reference_files = matching(split_dir, "dialogues_*.json")
    prediction_files = matching(prediction_dir, "*.json")
    if not reference_files:
        raise ScoringError(f"{split_dir}: no dialogues_*.json")
    if not prediction_files:
        raise ScoringError(f"{prediction_dir}: no *.json")
    slots_of = service_slots(load_json(os.path.join(split_dir, "schema.json")))
    seen = service_names(load_json(os.path.join(dstc8_data_dir, "train", "schema.json")))
    turns = file_turns(read_dialogues(reference_files), read_dialogues(prediction_files))
    return aggregate(turns, slots_of, seen, use_fuzzy_match, joint_acc_across_turn)
