"""FaithDial, knowledge-grounded dialogues whose Wizard responses were edited to be
faithful to their knowledge, in the unified dialogue schema.

Configs: ``unified`` (default, one record per conversation), ``original`` (one row per
Wizard response, as the source has it). Splits: train, validation, test and the
seen/unseen-topic splits validation_random, validation_topic, test_random, test_topic.
validation = validation_random + validation_topic and test = test_random + test_topic:
never concatenate all seven.
"""

import datasets

from unified_dialogue import builder, faithdial

_CITATION = """\
@article{dziri2022faithdial,
  title={FaithDial: A Faithful Benchmark for Information-Seeking Dialogue},
  author={Dziri, Nouha and Kamalloo, Ehsan and Milton, Sivan and Zaiane, Osmar and Yu, Mo and Ponti, Edoardo and Reddy, Siva},
  journal={arXiv preprint, arXiv:2204.10757},
  year={2022},
  url={https://arxiv.org/abs/2204.10757}
}
"""
_DESCRIPTION = ("FaithDial: 5,649 information-seeking dialogues whose Wizard responses were edited to be "
                "faithful to their knowledge.")
_HOMEPAGE = "https://mcgill-nlp.github.io/FaithDial/"
_REVISION = "7a414e80725eac766f2602676dc8b39f80b061e4"


class FaithDial(builder.CorpusBuilder):
    CORPUS = "faithdial"
    BASE_URL = f"https://huggingface.co/datasets/McGill-NLP/FaithDial/resolve/{_REVISION}"
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        builder.CorpusConfig(name="unified", version=VERSION, description="Conversations in the unified schema."),
        builder.CorpusConfig(name="original", version=VERSION,
                             description="One row per Wizard response, as the source has it."),
    ]
    DEFAULT_CONFIG_NAME = "unified"

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=faithdial.FEATURES[self.config.name],
            homepage=_HOMEPAGE,
            license="MIT (knowledge text from Wikipedia, CC BY-SA)",
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        table = self.checksum_table()
        files = self.fetch(dl_manager, list(table), "data/*.json")
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={
                "split": split, "relpath": relpath, "path": files[relpath], "verify": self.verify})
            for split, relpath in faithdial.SPLIT_FILES.items()
            # A table that lists only some files, or a partial copy loaded without checks.
            if relpath in table and relpath in files
        ]

    def _generate_tables(self, split, relpath, path, verify):
        dialogues = self.read_json_list(path, relpath, verify)
        records = faithdial.file_to_records(dialogues, relpath, split, self.config.name)
        yield from self.to_tables(records, relpath)
