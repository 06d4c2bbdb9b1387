"""The Schema-Guided Dialogue dataset (SGD / DSTC8) in the unified dialogue schema.

Configs: ``unified`` (default), ``original`` (the source, lossless), ``schema`` (the
service schemas only). Splits: train, validation (upstream ``dev``), test.
"""

import functools

import datasets

from unified_dialogue import builder, sgd

_CITATION = """\
@inproceedings{rastogi2020towards,
  title={Towards Scalable Multi-Domain Conversational Agents: The Schema-Guided Dialogue Dataset},
  author={Rastogi, Abhinav and Zang, Xiaoxue and Sunkara, Srinivas and Gupta, Raghav and Khaitan, Pranav},
  booktitle={Proceedings of the AAAI Conference on Artificial Intelligence},
  volume={34}, number={05}, pages={8689--8696}, year={2020}
}
"""
_DESCRIPTION = "Schema-Guided Dialogue: 20k+ annotated multi-domain task-oriented dialogues over 45 services."
_HOMEPAGE = "https://github.com/google-research-datasets/dstc8-schema-guided-dialogue"
_COMMIT = "2aaccde45fd85e9c7d9887280a0c7acddc605107"


class Sgd(builder.CorpusBuilder):
    CORPUS = "sgd"
    BASE_URL = f"https://raw.githubusercontent.com/google-research-datasets/dstc8-schema-guided-dialogue/{_COMMIT}"
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        builder.CorpusConfig(name="unified", version=VERSION, description="Dialogues in the unified schema."),
        builder.CorpusConfig(name="original", version=VERSION, description="Dialogues as the source has them."),
        builder.CorpusConfig(name="schema", version=VERSION, description="The service schemas of each split."),
    ]
    DEFAULT_CONFIG_NAME = "unified"

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=sgd.FEATURES[self.config.name],
            homepage=_HOMEPAGE,
            license="CC BY-SA 4.0",
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        table = self.checksum_table()
        wanted = [p for p in table if self.config.name != "schema" or p.endswith("/schema.json")]
        pattern = "*/schema.json" if self.config.name == "schema" else "*/*.json"
        files = self.fetch(dl_manager, wanted, pattern)
        read = {}  # folder -> its services, each schema.json read and checked once

        def services_of(folder):
            if folder not in read:
                read[folder] = self._read_services(f"{folder}/schema.json", files, self.verify)
            return read[folder]

        train_services = None
        if self.config.name != "schema" and "train/schema.json" in files:
            train_services = frozenset(services_of("train"))
        generators = []
        for split, folder in sgd.SPLIT_DIRS.items():
            if not any(p.startswith(f"{folder}/") for p in table):
                continue  # the table of a mirror or copy that has only some splits
            dialogue_files = sorted(p for p in files if p.startswith(f"{folder}/dialogues_"))
            needed = f"{folder}/schema.json" in files if self.config.name == "schema" else dialogue_files
            if not self.verify and not needed:
                continue  # a partial local copy without this split
            services = services_of(folder)
            tasks = []
            if self.config.name != "schema":
                # Made here for every split, so that with num_proc the workers start on them all.
                convert = functools.partial(sgd.file_tables, config=self.config.name, split=split,
                                            schemas=services, train_services=train_services)
                tasks = self.file_tasks([(p, files[p]) for p in dialogue_files], convert, self.verify)
            generators.append(datasets.SplitGenerator(name=split, gen_kwargs={
                "split": split, "services": services, "tasks": tasks}))
        return generators

    def _generate_tables(self, split, services, tasks):
        if self.config.name == "schema":
            yield from self.to_tables(services.values(), split)
        else:
            yield from self.tables_of_tasks(tasks)

    def _read_services(self, relpath, files, verify):
        path = files.get(relpath)
        if path is None:
            raise FileNotFoundError(f"{relpath} is missing: every split needs its schema.json")
        services = self.read_json_list(path, relpath, verify)
        for index, service in enumerate(services):
            sgd.validate_service(service, relpath, index)
        return {service["service_name"]: sgd.service_to_row(service) for service in services}
