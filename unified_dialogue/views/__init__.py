"""Task views: the rows researchers train on, computed from unified records.

Each view is a module with a function ``table(unified, **options)`` from a batch of
unified records (a pa.Table in the unified features) to a table of its rows, and its
features (``FEATURES``, or ``features(**options)`` where they depend on the corpus's
options); it reads nothing of a dialogue after the turn a row is about. ``VIEWS`` holds
one ``View`` record per view. A corpus offers a view as a config of its loader
(``config``), built, cached, streamed and exported like ``unified``; ``apply`` computes it
on any unified ``Dataset``.

A view's options are of two kinds: the corpus's, fixed in its declaration (the
responding ``role``, ``act_names``), and the user's, declared in the view's record
(``View.options``, ``core.options.Option``) and given at load time as plain keyword
arguments (``load(corpus, view, name=value)``).

| view | rows | serves |
|---|---|---|
| ``dst`` | each turn with a dialogue state | dialogue state tracking (scored by ``scoring.dst``) |
| ``nlg`` | each turn of the responding role | data-to-text generation from dialog acts (GEM's format) |
| ``response`` | each turn of the responding role | response generation, grounded in acts, calls and knowledge |
| ``nlu`` | each turn | intent detection, slot filling, entity recognition |
| ``d3st`` | each frame of a user turn | schema-guided state tracking as text (D3ST; scored by ``scoring.d3st``) |
| ``critic`` | each response to judge (FaithDial's originals and rewrites) | faithfulness critics (FaithCritic's labels; scored by ``scoring.critic``) |
"""

import functools
import inspect
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Optional

from ..core.corpus import Config
from ..core.errors import ConfigError
from ..core.options import resolve
from . import critic, d3st, dst, nlg, nlu, response


def summary(module):
    """The first line of a module's docstring: a view's one-line description."""
    return inspect.cleandoc(module.__doc__).split("\n", 1)[0]


def details(module):
    """A module's docstring after its first paragraph: what a view's rows hold."""
    return inspect.cleandoc(module.__doc__).split("\n\n", 1)[1]


@dataclass(frozen=True)
class View:
    """One task view. ``module``: the module with ``table`` and ``FEATURES`` or
    ``features``; ``description``: one line (the module docstring's first line, by
    ``of``); ``key``: the columns whose values identify a row within a split;
    ``options``: the ``Option``s a user may set at load time; ``given``: what a row holds
    of its whole dialogue by design, where it does (``core.corpus.Config.given``)."""

    name: str
    module: ModuleType
    description: str
    key: tuple
    options: tuple = ()
    given: Optional[Callable] = None

    @classmethod
    def of(cls, module, key, options=(), name=None, given=None):
        """The record of a view module, described by its docstring and named as the module
        unless ``name`` is given."""
        return cls(name or module.__name__.rsplit(".", 1)[-1], module, summary(module), tuple(key), tuple(options),
                   given)

    @property
    def option_names(self):
        return tuple(option.name for option in self.options)

    def corpus_parameters(self):
        """The parameters of ``table`` a corpus sets: those after the unified table that
        are no user option."""
        parameters = list(inspect.signature(self.module.table).parameters.values())[1:]
        return [p for p in parameters if p.name not in self.option_names]

    def features(self, **corpus_options):
        if hasattr(self.module, "features"):
            taken = inspect.signature(self.module.features).parameters
            return self.module.features(**{k: v for k, v in corpus_options.items() if k in taken})
        return self.module.FEATURES


VIEWS = {view.name: view for view in (
    View.of(dst, key=("dialogue_id", "turn_index")),
    View.of(nlg, key=("dialog_id", "turn_id")),
    View.of(response, key=("dialogue_id", "turn_index")),
    View.of(nlu, key=("dialogue_id", "turn_index")),
    View.of(d3st, key=("dialogue_id", "turn_index", "frame_index"), options=d3st.OPTIONS),
    View.of(critic, key=("dialogue_id", "turn_index", "source"), options=critic.OPTIONS),
)}


def get(view):
    """A view's record, by name (or the record itself: a corpus may bring its own view)."""
    if isinstance(view, View):
        return view
    if view not in VIEWS:
        raise ConfigError(f"unknown view {view!r}: the views are {', '.join(VIEWS)}")
    return VIEWS[view]


def check_corpus_options(view, options):
    """``options`` checked against the corpus options ``view``'s ``table`` takes."""
    parameters = view.corpus_parameters()
    unknown = sorted(set(options) - {p.name for p in parameters})
    missing = [p.name for p in parameters if p.default is inspect.Parameter.empty and p.name not in options]
    if unknown or missing:
        takes = ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name} (optional)"
                          for p in parameters) or "no options"
        wrong = "; ".join(filter(None, [unknown and f"unknown: {', '.join(unknown)}",
                                        missing and f"missing: {', '.join(missing)}"]))
        user = f"; set at load time: {', '.join(view.option_names)}" if view.options else ""
        raise ConfigError(f"the {view.name} view takes {takes} ({wrong}{user})")


def config(view, **options):
    """The loader config of a view (a name, or a ``View`` of the corpus's own), with the
    corpus's ``options`` (the responding ``role``; ``act_names`` for nlg; ``full_names``
    of abbreviated acts for response). The user's options are given at load time."""
    view = get(view)
    check_corpus_options(view, options)
    return Config(view.name, view.description, view.features(**options), key=view.key,
                  view=functools.partial(view.module.table, **options), options=view.options, given=view.given)


def apply(view, dataset, batch_size=256, **options):
    """The view of a unified ``datasets.Dataset`` (any data in the unified features), with
    the corpus's options of ``config`` and any of the user's."""
    view = get(view)
    corpus_options = {k: v for k, v in options.items() if k not in view.option_names}
    check_corpus_options(view, corpus_options)
    user_options = resolve({k: v for k, v in options.items() if k in view.option_names}, view.options,
                           f"the {view.name} view")
    table = functools.partial(view.module.table, **corpus_options, **user_options)
    return dataset.with_format("arrow").map(table, batched=True, batch_size=batch_size,
                                            features=view.features(**corpus_options),
                                            remove_columns=dataset.column_names).with_format(None)
