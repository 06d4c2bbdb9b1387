"""Shared parts of the unified dialogue loaders: the unified features, the corpus mappings,
download verification, and ``load``, the entry point for every ``datasets`` line."""

from .features import UNIFIED_FEATURES

__all__ = ["UNIFIED_FEATURES", "load"]


def load(*args, **kwargs):
    """See ``unified_dialogue.api.load``."""
    from .api import load as _load

    return _load(*args, **kwargs)
