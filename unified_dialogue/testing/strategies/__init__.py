"""Hypothesis strategies that write valid source files of corpora, for the tests.

Each corpus has its own, in its folder: ``<corpus>/strategies.py`` (SGD's is
``loaders/sgd/strategies.py``), found through the registry (``registry.strategies``;
``generated`` lists them), so that adding a corpus edits nothing here. What they share is
here: ``text``, the adversarial names and values they draw, and ``files``, a drawn copy
(``SourceFiles``), which ``load_kwargs(folder)`` writes in the upstream layout with its
checksum table, returning the arguments of ``unified_dialogue.load`` for it.

A corpus's ``strategies.py`` defines:

- ``corpora()``: a strategy drawing a ``SourceFiles``, a valid copy from which every config
  builds: by default every split has a row of every view, and the copy's ``options`` hold
  every load option its files serve (SGD: one SGD-X variant);
- ``check_files(copy)``: asserts that a drawn copy is valid (its files decode as the
  format's types, with ``files.decoded``, and pass its checks);
- optionally ``BUILD_SHARE``: the share of the shared tests' examples spent building every
  config of a drawn copy (``DEFAULT_BUILD_SHARE`` otherwise): less for a corpus whose copy
  costs more to build.

Needs ``hypothesis``, a test dependency.
"""

from ... import registry
from .files import SourceFiles, decoded

__all__ = ["SourceFiles", "decoded", "generated", "build_share", "DEFAULT_BUILD_SHARE"]

DEFAULT_BUILD_SHARE = 0.3


def generated(config=None):
    """``{name: strategies module}`` of every corpus of the registry that has strategies
    (and the config ``config``, if given), in the registry's order.

    Example:
        >>> sorted(generated("d3st"))
        ['sgd']
    """
    found = {}
    for name, corpus in registry.corpora().items():
        module = registry.strategies(corpus)
        if module is not None and (config is None or config in corpus.config_names):
            found[name] = module
    return found


def build_share(strategies):
    """The share of the shared tests' examples that build every config of a copy drawn by
    ``strategies`` (a corpus's strategies module)."""
    return getattr(strategies, "BUILD_SHARE", DEFAULT_BUILD_SHARE)
