"""The texts of an episode, from the templates of ``templates.json`` (the one place they
are written): the system message of each mode (``instruction``) and what the agent is told
once the user has left (``user_text``). The first user message of ``ticket`` mode, the
user's goal written as instructions, is ``chat.ticket.ticket``'s (``user-chat`` rows hold
the same text).
"""

import functools
import json
from importlib import resources

MODES = ("ticket", "replay", "simulated")
# The modes whose user the agent reaches through send_message_to_user: the corpus's user
# turns replayed, or a model playing the user (``environment.user``).
SPOKEN = ("replay", "simulated")
# What replay mode is: the evaluation command's help and summary say it.
REPLAY_NOTE = ("replay: the user replays the corpus's turns in SGD's order, whatever the agent said, so it "
               "suits agents that ask as SGD's system did; simulated is the reactive mode")


@functools.lru_cache(maxsize=None)
def templates():
    """``{"instruction": {mode: text}, "user": {name: text}}``."""
    return json.loads(resources.files(__package__).joinpath("templates.json").read_text(encoding="utf-8"))


def instruction(mode, given=None):
    """The system message of an episode in ``mode``: ``given``, else the mode's template (a
    simulated user is met as a replayed one is, so ``simulated`` has ``replay``'s)."""
    if given is not None:
        return given
    return templates()["instruction"]["replay" if mode in SPOKEN else mode]


def user_text(name):
    return templates()["user"][name]
