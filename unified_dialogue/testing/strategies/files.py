"""A generated corpus as the files of its upstream layout, writing them out, and reading a
file back as its format's records (to check that what a strategy draws is valid)."""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import msgspec

from ...core.sources import write_checksum_table

# The name of the checksum table written beside a generated copy (not inside it: the
# loader would take it for a file of the copy).
CHECKSUMS = "SHA256SUMS.tsv"


@dataclass
class SourceFiles:
    """``files``: relative path in the upstream layout -> the JSON value the file holds;
    ``options``: the load options the files call for (SGD-X's ``variant``)."""

    files: Dict[str, Any]
    options: Dict[str, Any] = field(default_factory=dict)
    ensure_ascii: bool = False

    def write(self, root):
        """Write every file under ``root/data`` and its checksum table as ``root/SHA256SUMS.tsv``;
        return ``(data_dir, checksums)``, the arguments ``load`` takes for the copy."""
        data_dir = os.path.join(str(root), "data")
        for relpath, value in self.files.items():
            path = os.path.join(data_dir, *relpath.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(value, f, indent=2, ensure_ascii=self.ensure_ascii)
        checksums = write_checksum_table(data_dir, os.path.join(str(root), CHECKSUMS))
        return data_dir, checksums

    def load_kwargs(self, root, options=True) -> Dict[str, Optional[str]]:
        """Write the files (``write``) and return the keyword arguments of ``load`` for them;
        ``options``: False to leave out the copy's ``options`` (its files alone, as a copy
        without them is loaded)."""
        data_dir, checksums = self.write(root)
        return {"data_dir": data_dir, "checksums": checksums, **(self.options if options else {})}


def decoded(value, record_type, check=None):
    """The records of a file's JSON ``value`` decoded as ``List[record_type]`` (its format's
    type, which refuses what the format does not allow), each passed to ``check`` (the
    format's ``check_<record>``, for what types cannot say), if given.

    Raises:
        msgspec.ValidationError: a record is not of the type.
        unified_dialogue.core.validation.FieldError: ``check`` refused a record.

    Example:
        >>> from loaders.ccpe.format import Conversation, check_conversation
        >>> decoded([{"conversationId": "c", "utterances": []}], Conversation)[0].conversationId
        'c'
    """
    records = msgspec.json.decode(json.dumps(value).encode(), type=List[record_type])
    for record in records if check is not None else ():
        check(record)
    return records
