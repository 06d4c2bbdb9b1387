"""CCPE-M (Coached Conversational Preference Elicitation, movies) in the unified dialogue schema.

Configs: ``unified`` (default), ``original`` (the source, lossless). One split, ``train``,
as upstream publishes it (502 conversations in one file, ``data.json``).
Option ``strict_offsets=True``: a segment whose offsets do not locate its text is an
error instead of a logged warning.
"""

from dataclasses import dataclass

import datasets

from unified_dialogue import builder, ccpe
from unified_dialogue.errors import MissingFilesError

_CITATION = """\
@inproceedings{radlinski-etal-2019-ccpe,
  title = {Coached Conversational Preference Elicitation: A Case Study in Understanding Movie Preferences},
  author = {Filip Radlinski and Krisztian Balog and Bill Byrne and Karthik Krishnamoorthi},
  booktitle = {Proceedings of the Annual Meeting of the Special Interest Group on Discourse and Dialogue ({SIGDIAL})},
  year = 2019
}
"""
_DESCRIPTION = "CCPE-M: 502 English conversations eliciting movie preferences, annotated with entities and preferences."
_HOMEPAGE = "https://research.google/tools/datasets/coached-conversational-preference-elicitation/"


@dataclass
class CcpeConfig(builder.CorpusConfig):
    strict_offsets: bool = False


class Ccpe(builder.CorpusBuilder):
    CORPUS = "ccpe"
    BASE_URL = "https://storage.googleapis.com/dialog-data-corpus/CCPE-M-2019"
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = CcpeConfig
    BUILDER_CONFIGS = [
        CcpeConfig(name="unified", version=VERSION, description="Conversations in the unified schema."),
        CcpeConfig(name="original", version=VERSION, description="Conversations as the source has them."),
    ]
    DEFAULT_CONFIG_NAME = "unified"

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=ccpe.FEATURES[self.config.name],
            homepage=_HOMEPAGE,
            license="CC BY 4.0 (upstream README; the older Hugging Face card says CC BY-SA 4.0)",
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        files = self.fetch(dl_manager, [ccpe.FILE], ccpe.FILE)
        if ccpe.FILE not in files:
            raise MissingFilesError(f"data_dir {self.config.data_dir} holds no {ccpe.FILE}")
        return [datasets.SplitGenerator(name=ccpe.SPLIT, gen_kwargs={"path": files[ccpe.FILE], "verify": self.verify})]

    def _generate_tables(self, path, verify):
        conversations = ccpe.parse_file(self.read_source(path, ccpe.FILE, verify), ccpe.FILE)
        records = ccpe.file_to_records(conversations, ccpe.FILE, self.config.name, self.config.strict_offsets)
        yield from self.to_tables(records, ccpe.FILE)
