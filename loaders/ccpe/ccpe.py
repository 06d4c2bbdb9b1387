"""CCPE-M (Coached Conversational Preference Elicitation, movies) in the unified dialogue schema.

Configs: ``unified`` (default), ``original`` (the source, lossless). One split, ``train``,
as upstream publishes it (502 conversations in one file, ``data.json``).
Option ``strict_offsets=True``: a segment whose offsets do not locate its text is an
error instead of a logged warning.
"""

from dataclasses import dataclass

from loaders.ccpe import format, mapping
from loaders.ccpe.corpus import CORPUS
from unified_dialogue.core.builder import CorpusBuilder, CorpusConfig
from unified_dialogue.core.tables import batched_tables
from unified_dialogue.core.validation import Naming, decode_list

CONVERSATIONS = Naming("conversation", "conversationId")


@dataclass
class CcpeConfig(CorpusConfig):
    strict_offsets: bool = False


class Ccpe(CorpusBuilder):
    CORPUS = CORPUS
    BUILDER_CONFIG_CLASS = CcpeConfig

    def file_tables(self, data, relpath, split, ids):
        conversations = decode_list(data, relpath, format.Conversation, CONVERSATIONS, format.check_conversation, ids)
        records = mapping.conversations_to_records(conversations, relpath, self.source_config,
                                                   self.config.strict_offsets)
        return batched_tables(records, self.source_schema, relpath)
