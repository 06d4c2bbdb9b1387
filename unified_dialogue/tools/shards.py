"""The files of an export: a built config's splits as Parquet shards (and, for the unified
records, JSON Lines in the exact shape of the unified specification), with the features
written in the form both ``datasets`` lines read, and the config's ``dataset_info`` entry
for the card. ``export`` builds the configs and puts these files together.
"""

import json
import math
import os

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from .layout import jsonl_path, shard_path

DEFAULT_MAX_SHARD_SIZE = 500 * 1000**2  # Arrow bytes per shard, as datasets' push_to_hub
MAX_ROW_GROUP_BYTES = 100 * 1000**2
MAX_ROW_GROUP_ROWS = 1000
# Content-defined chunking keeps unchanged pages byte-identical between exports, so the Hub
# stores only what changed; pyarrow has it from 21.0.
PARQUET_OPTIONS = (
    {"use_content_defined_chunking": True, "write_page_index": True}
    if int(pa.__version__.split(".")[0]) >= 21 else {}
)


# ---------------------------------------------------------------- features and records

def portable(feature):
    """Features as the exported Parquet and card declare them: lists in the ``[...]`` form
    both datasets lines read; a ``Json`` value (datasets 4.7 and later: the agent configs'
    ``arguments`` and ``parameters``) kept, so a later line reads the export back as objects,
    as ``load`` gives them (docs/publishing.md says what 3.6 does with it)."""
    if isinstance(feature, datasets.Features):
        return datasets.Features({key: portable(value) for key, value in feature.items()})
    if isinstance(feature, dict):
        return {key: portable(value) for key, value in feature.items()}
    if isinstance(feature, list):
        return [portable(feature[0])]
    if type(feature).__name__ in ("List", "Sequence") and getattr(feature, "length", -1) == -1:
        return [portable(feature.feature)]
    return feature


def has_json(feature):
    """Whether features hold a ``Json`` value anywhere."""
    if isinstance(feature, dict):
        return any(has_json(value) for value in feature.values())
    if isinstance(feature, list):
        return has_json(feature[0])
    if type(feature).__name__ in ("List", "Sequence"):
        return has_json(feature.feature)
    return type(feature).__name__ == "Json"


def legacy_features_dict(feature):
    """Features as ``datasets`` 3.x serialises them (``[...]`` for lists). 5.x writes
    ``{"_type": "List"}``, which 3.x cannot read, and reads the 3.x form as well: so the
    Parquet metadata is written in this form, whichever version exports."""
    if isinstance(feature, dict):
        return {key: legacy_features_dict(value) for key, value in feature.items()}
    if isinstance(feature, list):
        return [legacy_features_dict(feature[0])]
    if type(feature).__name__ in ("List", "Sequence") and getattr(feature, "length", -1) == -1:
        return [legacy_features_dict(feature.feature)]
    if isinstance(feature, datasets.Value):
        return {"dtype": feature.dtype, "_type": "Value"}
    if isinstance(feature, datasets.ClassLabel):
        return {"names": list(feature.names), "_type": "ClassLabel"}
    if type(feature).__name__ == "Json":  # as datasets 4.7+ writes it; 3.6 cannot read it at all
        return {"_type": "Json"}
    raise TypeError(f"cannot serialise feature {feature!r}")


def arrow_schema(features):
    features = portable(features)
    metadata = {"huggingface": json.dumps({"info": {"features": legacy_features_dict(dict(features))}})}
    return features.arrow_schema.with_metadata(metadata)


def spec_shape(value):
    """A value with absent (``None``) keys left out, recursively."""
    if isinstance(value, dict):
        return {key: spec_shape(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [spec_shape(item) for item in value]
    return value


def spec_record(record):
    """A unified record in the exact shape of the specification's JSON."""
    out = spec_shape(record)
    knowledge = record.get("knowledge")
    if knowledge is not None:
        out["knowledge"] = {"type": knowledge["type"]}
        value = (knowledge["value"] or {}).get(knowledge["type"])
        if value is not None:
            out["knowledge"]["value"] = spec_shape(value)
    return out


# ---------------------------------------------------------------- writing

def shard_bounds(num_rows, nbytes, max_shard_size):
    count = max(1, math.ceil(nbytes / max_shard_size))
    count = min(count, max(1, num_rows))
    return [(i * num_rows // count, (i + 1) * num_rows // count) for i in range(count)]


def row_group_rows(num_rows, nbytes):
    if num_rows == 0:
        return 1
    per_row = max(1, nbytes / num_rows)
    return max(1, min(MAX_ROW_GROUP_ROWS, int(MAX_ROW_GROUP_BYTES / per_row)))


def write_split(dataset, folder, config, split, max_shard_size, jsonl):
    """Write one split's shards (and JSON Lines of each if ``jsonl``); return their paths
    relative to ``folder``."""
    schema = arrow_schema(dataset.features)
    nbytes = dataset.data.nbytes
    bounds = shard_bounds(dataset.num_rows, nbytes, max_shard_size)
    group = row_group_rows(dataset.num_rows, nbytes)
    arrow = dataset.with_format("arrow")
    written = []
    for index, (start, stop) in enumerate(bounds):
        relpath = shard_path(config, split, index, len(bounds))
        path = os.path.join(folder, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        table = arrow[start:stop].cast(schema).replace_schema_metadata(schema.metadata)
        pq.write_table(table, path, row_group_size=group, **PARQUET_OPTIONS)
        written.append(relpath)
        if jsonl:
            relpath = jsonl_path(config, split, index, len(bounds))
            path = os.path.join(folder, relpath)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                for record in dataset.select(range(start, stop)):
                    f.write(json.dumps(spec_record(record), ensure_ascii=False) + "\n")
            written.append(relpath)
    return written


def split_info(dataset_dict):
    return [
        {"name": split, "num_bytes": ds.info.splits[split].num_bytes if ds.info.splits else ds.data.nbytes,
         "num_examples": ds.num_rows}
        for split, ds in dataset_dict.items()
    ]


def info_entry(name, features, splits, download_size):
    # ``_to_yaml_list`` is the form datasets reads from a card's dataset_info; 3.6 and 5.x
    # write the same YAML. A config with Json values has no ``features`` there: 3.6 reads
    # every config's entry of the card and fails on a type it does not know, so those
    # features are in the config's Parquet metadata only, which a later line reads.
    entry = {"config_name": name, "features": features._to_yaml_list()}
    if has_json(features):
        del entry["features"]
    return {
        **entry,
        "splits": splits,
        "download_size": download_size,
        "dataset_size": sum(s["num_bytes"] for s in splits),
    }


def write_config(built, folder, entry, max_shard_size, jsonl, log):
    """Write the splits of a built config (a layout ``Entry``) as shards, the unified
    records of a corpus also as JSON Lines with ``jsonl``; its ``dataset_info`` entry."""
    download_size = 0
    for split, ds in built.items():
        spec_jsonl = jsonl and entry.config == entry.corpus.default_config and entry.variant is None
        for relpath in write_split(ds, folder, entry.published, split, max_shard_size, spec_jsonl):
            if relpath.endswith(".parquet"):
                download_size += os.path.getsize(os.path.join(folder, relpath))
        log(f"  {entry.published}/{split}: {ds.num_rows} records")
    return info_entry(entry.published, portable(built[next(iter(built))].features), split_info(built),
                      download_size)

