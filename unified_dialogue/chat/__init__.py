"""Chat: the rows of every task view as conversations, in the format Hugging Face's
tooling reads (TRL's conversational format): ``prompt``, a list of ``{role, content}``
messages (a ``system`` message with the instruction and the row's grounding, then the
dialogue's turns as ``user`` and ``assistant``), ``completion``, the one ``assistant``
message to learn, and ``messages``, the two joined; with the row's ``id``, ``dialogue_id``
and ``turn_index``. The features are the same for every view and corpus, so chat rows
concatenate.

The responding side of each corpus is the ``assistant`` (SGD ``SYSTEM``, CCPE-M
``ASSISTANT``, FaithDial ``Wizard``), the other the ``user``. One module per view
(``dst``, ``nlg``, ``response``, ``nlu``), each with ``messages(row, instruction)``: the
chat of one view row, pure Python; its docstring says what each message holds. The
instructions are data (``templates.json``, one ``default`` per view); a user gives their
own as ``instruction``. A corpus offers ``<view>-chat`` as a config of its loader
(``config``); ``apply`` computes it on any unified ``Dataset``.
"""

import functools

from ..core.corpus import Config
from ..core.errors import ConfigError
from ..views import features_and_table
from . import dst, nlg, nlu, response
from .build import FEATURES, instruction, templates

MODULES = {"dst": dst, "nlg": nlg, "response": response, "nlu": nlu}
DESCRIPTIONS = {
    "dst": "The dst rows as chat: the schemas, the turns so far, and the turn's state as text to complete.",
    "nlg": "The nlg rows as chat: the schemas, the acts to put in words and the turns before, then the system turn.",
    "response": "The response rows as chat: the grounding and the turns before, then the response.",
    "nlu": "The nlu rows as chat: the utterance, then its intents and spans as text.",
}
SUFFIX = "-chat"


def module(view):
    if view not in MODULES:
        raise ConfigError(f"no chat rendering of view {view!r}: there is one for {', '.join(MODULES)}")
    return MODULES[view]


def config(view, instruction=None, **view_options):
    """The ``<view>-chat`` config of a loader, with the view's corpus options
    (``views.config``'s) and the ``instruction`` of its system message (default: the
    view's default template)."""
    features_and_table(view, **view_options)  # checked now, not at the first build
    table = functools.partial(module(view).table, instruction=instruction, **view_options)
    return Config(f"{view}{SUFFIX}", DESCRIPTIONS[view], FEATURES, key=("id",), view=table)


def apply(view, dataset, batch_size=256, instruction=None, **view_options):
    """The ``<view>-chat`` rows of a unified ``datasets.Dataset`` (any data in the unified
    features), with the options of ``config``."""
    table = functools.partial(module(view).table, instruction=instruction, **view_options)
    return dataset.with_format("arrow").map(table, batched=True, batch_size=batch_size, features=FEATURES,
                                            remove_columns=dataset.column_names).with_format(None)


__all__ = ["FEATURES", "MODULES", "apply", "config", "instruction", "templates"]
