"""Chat: the rows of every task view as conversations, in the format Hugging Face's
tooling reads (TRL's conversational format): ``prompt``, a list of ``{role, content}``
messages (a ``system`` message with the instruction and the row's grounding, then the
dialogue's turns as ``user`` and ``assistant``), ``completion``, the one ``assistant``
message to learn, and ``messages``, the two joined; with the row's ``id``, ``dialogue_id``
and ``turn_index``. The features are the same for every view and corpus, so chat rows
concatenate.

The responding side of each corpus is the ``assistant`` (SGD ``SYSTEM``, CCPE-M
``ASSISTANT``, FaithDial ``Wizard``), the other the ``user``; ``user-chat`` swaps them (SGD's
user is the ``assistant``, to train a model that plays the user). One module per view
(``dst``, ``nlg``, ``response``, ``nlu``, ``critic``; ``user``, the response view of the
user's turns with the user's goal), each with ``messages(row, instruction)``: the
chat of one view row, pure Python; its docstring says what each message holds. The
instructions are data (``templates.json``, one ``default`` per view); a user gives their
own as the option ``instruction``. The completions that are read back have their text form
and reader in a module of their own, ``state`` (``dst``) and ``nlu_text`` (``nlu``), with
the one escape rule of names and values in ``text``. A corpus offers ``<view>-chat`` as a config of its loader
(``config``); ``apply`` computes it on any unified ``Dataset``.

``preference`` and ``preference_unpaired`` make TRL's preference formats of the
``response-chat`` prompts: each turn that rewrote an unfaithful original (FaithDial's),
its response chosen over the original (``preference_configs``).
"""

from .. import views
from ..core.errors import ConfigError
from ..core.options import Option
from ..views import faithfulness
from . import agent_call_chat, agent_chat, critic, dst, nlg, nlu, preference, preference_unpaired, response, user
from .build import FEATURES, instruction, templates

SUFFIX = "-chat"
INSTRUCTION = Option("instruction", str, None,
                     "The instruction the system message begins with (default: the view's default template, "
                     "unified_dialogue/chat/templates.json).")
MODULES = {"dst": dst, "nlg": nlg, "response": response, "nlu": nlu, "critic": critic, "user": user}
# One record per chat config, as views.View: a chat config is a view whose rows are the
# rows of the view it renders, as chat, with that view's options and the instruction
# (``user``: the response view's rows of the user's turns, each with its dialogue's goal,
# which ``user.given`` finds in a row).
CHAT_VIEWS = {name: views.View.of(module, key=("id",), name=f"{name}{SUFFIX}",
                                  options=(INSTRUCTION, *(views.VIEWS[name].options if name in views.VIEWS else ())),
                                  given=user.given if module is user else None)
              for name, module in MODULES.items()}


# The tool-calling configs (SGD): rows of whole dialogues, or of service calls, each with
# the user's option ``instruction``.
AGENT_OPTIONS = (Option("instruction", str, None, "The system message's text (default: the agent text of "
                                                  "unified_dialogue/chat/templates.json)."),)
AGENT_VIEWS = {name: views.View.of(module, key=("id",), options=AGENT_OPTIONS, name=name)
               for name, module in (("agent-chat", agent_chat), ("agent-call-chat", agent_call_chat))}


def agent_configs():
    """The loader configs ``agent-chat`` and ``agent-call-chat`` (SGD)."""
    return tuple(views.config(view) for view in AGENT_VIEWS.values())


# The preference configs (FaithDial): the response-chat prompt of each turn that rewrote
# an unfaithful original, with both responses, paired or unpaired; options: the
# instruction and the BEGIN labels of an unfaithful original.
PREFERENCE_VIEWS = {name: views.View.of(module, key=("id",), options=(INSTRUCTION, faithfulness.UNFAITHFUL),
                                        name=name)
                    for name, module in (("preference", preference), ("preference-unpaired", preference_unpaired))}


def preference_configs(role):
    """The loader configs ``preference`` and ``preference-unpaired``, ``role`` responding."""
    return tuple(views.config(view, role=role) for view in PREFERENCE_VIEWS.values())


def get(view):
    """The chat record of ``view`` (``dst`` or ``dst-chat``, ...)."""
    name = view.removesuffix(SUFFIX)
    if name not in CHAT_VIEWS:
        raise ConfigError(f"no chat rendering of view {view!r}: there is one for {', '.join(CHAT_VIEWS)}")
    return CHAT_VIEWS[name]


def config(view, **options):
    """The ``<view>-chat`` config of a loader, with the view's corpus options (those of
    ``views.config``: the responding ``role``, ...). The ``instruction`` is the user's,
    given at load time: ``load("sgd", "dst-chat", instruction="...")``."""
    return views.config(get(view), **options)


def apply(view, dataset, batch_size=256, **options):
    """The ``<view>-chat`` rows of a unified ``datasets.Dataset`` (any data in the unified
    features), with the corpus options of ``config`` and, if given, an ``instruction``."""
    return views.apply(get(view), dataset, batch_size=batch_size, **options)


__all__ = ["AGENT_VIEWS", "CHAT_VIEWS", "FEATURES", "INSTRUCTION", "MODULES", "PREFERENCE_VIEWS", "agent_configs",
           "apply", "config", "get", "instruction", "preference_configs", "templates"]
