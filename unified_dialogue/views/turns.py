"""The turns of a batch of unified records (a pa.Table in the unified features), one row
per turn, with the dialogue each belongs to and its position there; and the context
columns views build from them. Views read the few fields they need from here, as flat
columns: converting whole records to Python would cost more than building them."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CONTEXT_ENTRY = pa.struct([("role", pa.string()), ("utterance", pa.string())])


class Turns:
    def __init__(self, table):
        dialog = table.column("dialog").combine_chunks()
        self.table = table
        self.turns = dialog.flatten()  # a StructArray, one row per turn
        self.dialogue = pc.list_parent_indices(dialog).to_numpy()  # each turn's row in ``table``
        lengths = pc.fill_null(pc.list_value_length(dialog), 0).to_numpy()
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        self.first = starts[self.dialogue]  # the row of each turn's dialogue's first turn
        self.position = np.arange(len(self.turns)) - self.first  # the turn's position in its dialogue
        # A turn's roles joined by "/" (one role in every corpus here).
        self.role = pc.binary_join(self.turns.field("roles"), "/")

    def __len__(self):
        return len(self.turns)

    def field(self, name):
        return self.turns.field(name)

    def roles(self):
        return self.role.to_pylist()

    def of_dialogue(self, name, rows):
        """The dialogue-level column ``name`` for each turn of ``rows``."""
        return self.table.column(name).combine_chunks().take(pa.array(self.dialogue[rows]))

    def context(self, rows, inclusive):
        """For each turn of ``rows``, the turns of its dialogue before it (and itself with
        ``inclusive``) as ``[{role, utterance}]``: a slice of the turns, never anything after."""
        entries = pa.StructArray.from_arrays([self.role, self.field("utterance")], fields=list(CONTEXT_ENTRY))
        rows = np.asarray(rows, dtype=np.int64)
        sizes = self.position[rows] + (1 if inclusive else 0)
        return relist(sizes, entries.take(pa.array(ranges(self.first[rows], sizes))))


def row_ids(dialogue_ids, positions):
    """The id of each turn row, ``<dialogue_id>/<turn position>`` (``sgd/train/1_00000/3``):
    unique within a split, and the same however the split is built or streamed."""
    return pc.binary_join_element_wise(dialogue_ids, pc.cast(pa.array(positions, pa.int64()), pa.string()), "/")


def rows_where(mask):
    """The turn rows where ``mask`` (a boolean Arrow or numpy array) is true."""
    if isinstance(mask, (pa.Array, pa.ChunkedArray)):
        mask = pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
    return np.flatnonzero(mask)


def parents(list_array):
    """For each value of a list array, the row it belongs to (numpy)."""
    return pc.list_parent_indices(list_array).to_numpy()


def lengths(list_array):
    """The length of each list of a list array (0 for a null list), as numpy."""
    return pc.fill_null(pc.list_value_length(list_array), 0).to_numpy(zero_copy_only=False).astype(np.int64)


def starts(list_array):
    """Where each list of ``list_array`` begins in ``list_array.flatten()`` (numpy)."""
    size = lengths(list_array)
    return np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)


def relist(sizes, values, valid=None):
    """A list array of ``values`` cut into lists of ``sizes``; null where ``valid`` is false."""
    offsets = pa.array(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32))
    mask = None if valid is None else pa.array(~np.asarray(valid, dtype=bool))
    return pa.ListArray.from_arrays(offsets, values, mask=mask)


def ranges(begins, sizes):
    """The indices begins[k], ..., begins[k] + sizes[k] - 1 for every k, in order (numpy)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    return np.repeat(np.asarray(begins, dtype=np.int64), sizes) + (
        np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes))
