"""Hypothesis strategies that write valid source files of each corpus, one module per
source format (``sgd``, ``ccpe``, ``faithdial``), on adversarial text (``text``). Each
module's ``corpora()`` draws a ``files.SourceFiles``, whose ``load_kwargs(folder)`` writes
the copy in its upstream layout with its checksum table and returns the arguments of
``unified_dialogue.load`` for it. A corpus of your own can use them as they are, or build
its strategy from ``text``'s. Needs ``hypothesis``, a test dependency.
"""

from . import ccpe, faithdial, sgd, text
from .files import SourceFiles

__all__ = ["SourceFiles", "ccpe", "faithdial", "sgd", "text"]
