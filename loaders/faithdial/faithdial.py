"""FaithDial, knowledge-grounded dialogues whose Wizard responses were edited to be
faithful to their knowledge, in the unified dialogue schema.

Configs: ``unified`` (default, one record per conversation), ``original`` (one row per
Wizard response, as the source has it). Splits: train, validation, test and the
seen/unseen-topic splits validation_random, validation_topic, test_random, test_topic.
validation = validation_random + validation_topic and test = test_random + test_topic
(checked): never concatenate all seven.
"""

import logging
from collections import defaultdict

from loaders.faithdial import format, mapping
from loaders.faithdial.corpus import CORPUS
from unified_dialogue.core.builder import CorpusBuilder
from unified_dialogue.core.tables import batched_tables
from unified_dialogue.core.errors import SourceFormatError
from unified_dialogue.core.validation import Naming, decode_list

# dialog_idx is unique only within one file: errors name the position too.
DIALOGUES = Naming("dialogue", "dialog_idx", positional=True)
logger = logging.getLogger(__name__)


class FaithDial(CorpusBuilder):
    CORPUS = CORPUS

    def split_context(self, split, files):
        parts = [CORPUS.split_files[part] for part in CORPUS.split_unions.get(split, ())]
        return {"parts": tuple((relpath, files.get(relpath)) for relpath in parts)}

    def file_tables(self, data, relpath, split, ids, parts):
        dialogues = list(self.decode(data, relpath))
        if parts:
            self.check_union(relpath, split, dialogues, parts)
        records = mapping.dialogues_to_records(dialogues, relpath, split, self.source_config)
        return batched_tables(records, self.source_schema, relpath)

    @staticmethod
    def decode(data, relpath):
        return decode_list(data, relpath, format.Dialogue, DIALOGUES, format.check_dialogue, ids={})

    def check_union(self, relpath, split, dialogues, parts):
        """The union split holds exactly the dialogues of its parts; an error names the
        first dialogue found on one side only."""
        if any(path is None for _, path in parts):
            logger.warning("%s: cannot check that %s = %s: a part is missing from this partial copy",
                           relpath, split, " + ".join(CORPUS.split_unions[split]))
            return
        places = defaultdict(list)  # content -> places in the parts
        for part, path in parts:
            for position, dialogue in enumerate(self.decode(self.read(part, path), part)):
                places[mapping.content_key(dialogue)].append(f"{part}, {mapping.record_name(dialogue, position)}")
        names = " + ".join(part for part, _ in parts)
        for position, dialogue in enumerate(dialogues):
            found = places.get(mapping.content_key(dialogue))
            if not found:
                raise SourceFormatError(relpath, mapping.record_name(dialogue, position), "utterances",
                                        f"in no part of the union: {split} must be {names}")
            found.pop()
        left = next((place for found in places.values() for place in found), None)
        if left is not None:
            part, name = left.split(", ", 1)
            raise SourceFormatError(part, name, "utterances", f"missing from {relpath}: {split} must be {names}")
