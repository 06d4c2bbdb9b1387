"""The simulated user: a model behind an OpenAI-compatible endpoint playing the user of an
episode (``simulated`` mode), shown the conversation exactly as ``user-chat`` rows show it,
so that a model trained on them plays it as it is: the system message (``chat.user.
system_message``: the instruction, then the user's goal as ``chat.ticket`` writes it), an
opening user message (``chat.text.OPENING``), then the user's turns as ``assistant`` and
what the agent sent the user as ``user``.

The user's turn is read as ``user-chat`` completions are (``chat.user.reading``): its
words, and whether it ends with the stop marker. The conversation ends there, or when the
user has spoken ``max_turns`` times without ending it (``ended``: ``"stop"`` or
``"max_user_turns"``, a failed episode).
"""

from typing import NamedTuple, Optional

from ..chat.text import OPENING
from ..chat.ticket import ticket
from ..chat.user import reading, system_message
from ..core.answer import content_text

STOP, MAX_TURNS = "stop", "max_user_turns"


class SimulatedUser:
    """The user of one episode.

    Args:
        endpoint: the user model's endpoint (``endpoint.Endpoint``; its ``answer(messages,
            tools)`` gives the assistant message).
        system: the system message (``chat.user.system_message``).
        max_turns: the most turns the user speaks.
        seed: the seed sent with its requests (None: the endpoint's).

    Example:
        >>> user = SimulatedUser(endpoint, system_message(ticket(goal, schemas)), 30)
        >>> first = user.opening()
        >>> reply = user.reply("Which city?")
    """

    def __init__(self, endpoint, system, max_turns, seed=None):
        self.endpoint, self.max_turns = endpoint, max_turns
        self.seed = getattr(endpoint, "seed", None) if seed is None else seed
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": OPENING}]
        self.said = []  # the user's words, turn by turn
        self.ended = None

    def opening(self):
        """The user's first turn."""
        return self.turn()

    def reply(self, message):
        """The user's answer to what the agent sent it."""
        self.messages.append({"role": "user", "content": message})
        return self.turn()

    def turn(self):
        asked = {"seed": self.seed} if self.seed is not None else {}
        answered = self.endpoint.answer(self.messages, None, **asked)
        words, ends, _ = reading(content_text(answered.get("content")))  # no answer: a turn without words
        self.messages.append({"role": "assistant", "content": words})
        self.said.append(words)
        if ends:
            self.ended = STOP
        elif len(self.said) >= self.max_turns:
            self.ended = MAX_TURNS
        return words


class UserModel(NamedTuple):
    """The simulated user's model: its ``endpoint`` (``endpoint.Endpoint``, or anything with its
    ``answer(messages, tools)``), the most turns it speaks (``max_turns``) and the
    instruction of its system message (None: ``user-chat``'s). Picklable where the endpoint
    is (``endpoint.Endpoint`` is): TRL's factories carry it."""

    endpoint: object
    max_turns: int = 30
    instruction: Optional[str] = None

    def user_of(self, schemas, row, seed=None):
        """The ``SimulatedUser`` of an ``episodes`` row, its system message that of the
        dialogue's ``user-chat`` rows (``schemas``: ``{service name: schema record}``
        holding the row's services); ``seed``: its requests' (None: the endpoint's)."""
        return SimulatedUser(self.endpoint, system_message(ticket(row["goal"], schemas), self.instruction),
                             self.max_turns, seed)
