"""A tiny corpus in the unified dialogue schema (a test corpus)."""

from tiny_corpora.tiny import format, mapping
from tiny_corpora.tiny.corpus import CORPUS
from unified_dialogue.core.builder import CorpusBuilder
from unified_dialogue.core.tables import batched_tables
from unified_dialogue.core.validation import Naming, decode_list

CHATS = Naming("chat", "id")


class Tiny(CorpusBuilder):
    CORPUS = CORPUS

    def file_tables(self, data, relpath, split, ids):
        chats = decode_list(data, relpath, format.Chat, CHATS, format.check_chat, ids)
        if self.source_config == "original":
            records = map(mapping.chat_to_original, chats)
        else:
            records = (mapping.chat_to_unified(chat, split) for chat in chats)
        return batched_tables(records, self.source_schema, relpath)
