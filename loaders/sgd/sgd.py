"""The Schema-Guided Dialogue dataset (SGD / DSTC8) in the unified dialogue schema.

Configs: ``unified`` (default), ``original`` (the source, lossless), ``schema`` (the
service schemas only) and the task views ``dst``, ``nlg``, ``response``, ``nlu``. Splits:
train, validation (upstream ``dev``), test. Option ``variant="v1"`` … ``"v5"``: SGD-X, the
dialogues under the names of a variant schema (loaders/sgd/sgdx.py), in every config.
"""

from dataclasses import dataclass, field
from typing import Optional

import datasets

from loaders.sgd import format, mapping, sgdx
from loaders.sgd.corpus import CORPUS, SGDX_BASE_URL, SGDX_CHECKSUMS, SPLIT_DIRS
from unified_dialogue.core.builder import CorpusBuilder, CorpusConfig
from unified_dialogue.core.tables import BATCH_SIZE, batched_tables, lazy_batches
from unified_dialogue.core.errors import MissingFilesError, SourceFormatError
from unified_dialogue.core.sources import read_checksum_table
from unified_dialogue.core.validation import FieldError, Naming, decode_list

DIALOGUES = Naming("dialogue", "dialogue_id")
SERVICES = Naming("service", "service_name")


@dataclass
class SgdConfig(CorpusConfig):
    variant: Optional[str] = field(default=None, metadata={"choices": sgdx.VARIANTS})


class Sgd(CorpusBuilder):
    CORPUS = CORPUS
    BUILDER_CONFIG_CLASS = SgdConfig

    @classmethod
    def source_patterns(cls, config_kwargs):
        variant = config_kwargs.get("variant")
        extra = (sgdx.variant_schema_path(variant, "*"),) if variant else ()
        return CORPUS.local_patterns + extra

    def checksum_table(self):
        table = super().checksum_table()
        if self.config.variant:  # the variant schemas, where the table (bundled or given) lacks them
            for path, record in read_checksum_table(SGDX_CHECKSUMS).items():
                table.setdefault(path, record)
        return table

    def url(self, relpath):
        if relpath.startswith("sgd_x/") and not self.config.base_url:
            return f"{SGDX_BASE_URL}/{relpath}"
        return super().url(relpath)

    def _split_generators(self, dl_manager):
        variant = self.config.variant and sgdx.checked_variant(self.config.variant)
        schema_only = self.config.name == "schema"
        patterns = ["*/schema.json", *([sgdx.variant_schema_path(variant, "*")] if variant else [])]
        files = self.fetch(dl_manager, patterns if schema_only else None)
        folders = {folder: split for split, folder in SPLIT_DIRS.items()
                   if f"{folder}/schema.json" in files or CORPUS.files_of_split(split, files)}
        schemas = {folder: self.schema(f"{folder}/schema.json", files) for folder in folders}
        maps = None
        if variant:  # the dialogues are renamed; the schemas are the variant's
            original = schemas
            schemas = {folder: self.schema(sgdx.variant_schema_path(variant, folder), files) for folder in folders}
            maps = sgdx.name_maps(original, schemas)
        rows = {folder: {s.service_name: mapping.service_to_row(s) for s in services}
                for folder, (_, services) in schemas.items()}
        train = frozenset(rows["train"]) if "train" in rows and not schema_only else None
        generators = []
        for folder, split in folders.items():
            data_files = [schemas[folder][0]] if schema_only else CORPUS.files_of_split(split, files)
            if not data_files:
                continue  # a partial local copy, loaded without checks
            generators.append(datasets.SplitGenerator(name=split, gen_kwargs={
                "files": [(p, files[p]) for p in data_files],
                "split": split,
                "schemas": rows[folder],
                "train_services": train,
                "maps": maps,
            }))
        return generators

    def schema(self, relpath, files):
        """``(relpath, its services)`` of a schema.json, each service checked."""
        if relpath not in files:
            raise MissingFilesError(f"{relpath} is missing: every split read needs its schema.json")
        return relpath, list(decode_list(self.read(relpath, files[relpath]), relpath, format.Service, SERVICES, ids={}))

    def file_tables(self, data, relpath, split, ids, schemas, train_services, maps):
        if self.source_config == "schema":
            return batched_tables(schemas.values(), self.source_schema, relpath)
        dialogues = decode_list(data, relpath, format.Dialogue, DIALOGUES, format.check_dialogue, ids)
        if maps is not None:
            dialogues = (variant_dialogue(dialogue, maps, relpath) for dialogue in dialogues)
        if self.source_config == "original":
            return batched_tables(map(mapping.dialogue_to_original, dialogues), self.source_schema, relpath)
        return (mapping.dialogues_to_table(batch, split, schemas, train_services, relpath)
                for batch in lazy_batches(dialogues, BATCH_SIZE))


def variant_dialogue(dialogue, maps, relpath):
    try:
        return sgdx.variant_dialogue(dialogue, maps)
    except FieldError as error:
        raise SourceFormatError(relpath, f"dialogue {dialogue.dialogue_id}", error.field, error.problem) from None
