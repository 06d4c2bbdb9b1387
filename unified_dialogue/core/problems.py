"""What a reader could not take from a model's text: the one problem type every reader of a
model's output returns (the ``dst-chat``, ``nlu-chat`` and D3ST texts, tool calls, the
answer itself), and the one test of an unreadable text, which the scorers' ``malformed``
counts and the rewards' 0.0 both use.

A problem is of one of ``KINDS``: ``malformed``, text that cannot be read (then the whole
text is unreadable: ``unreadable``), or ``unknown_<what>``, a readable text naming a
service, slot, intent or tool that the schema (or D3ST's legend) does not have, scored as
it reads.
"""

from dataclasses import dataclass
from typing import Optional

MALFORMED = "malformed"
UNKNOWN_SERVICE, UNKNOWN_SLOT, UNKNOWN_INTENT, UNKNOWN_TOOL = \
    "unknown_service", "unknown_slot", "unknown_intent", "unknown_tool"
KINDS = (MALFORMED, UNKNOWN_SERVICE, UNKNOWN_SLOT, UNKNOWN_INTENT, UNKNOWN_TOOL)


@dataclass(frozen=True)
class Problem:
    """One thing a reader could not take from a text.

    ``kind``: one of ``KINDS``; ``text``: a short phrase saying what and where, for people
    (``str(problem)``); ``name``: what was unknown as the text wrote it (a service, slot,
    intent or tool name; a D3ST id such as ``"7"`` or ``"i2"``), None for ``malformed``.

    Its JSON form is ``dataclasses.asdict(problem)``, the same three keys for every kind:
    ``{"kind": "unknown_slot", "text": "Restaurants_1: unknown slot 'area'", "name": "area"}``
    (``"name": null`` where nothing was unknown).

    Raises:
        ValueError for a kind not in ``KINDS``.
    """

    kind: str
    text: str
    name: Optional[str] = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"problem kind {self.kind!r} is not one of {', '.join(KINDS)}")

    def __str__(self):
        return self.text


def unreadable(problems):
    """Whether a text with these problems is unreadable: one of them is ``malformed``. A
    readable text naming what the schema lacks is not (it is scored as it reads).

    Example:
        >>> unreadable([Problem(UNKNOWN_SLOT, "unknown slot 'area'", "area")])
        False
    """
    return any(problem.kind == MALFORMED for problem in problems)


def cut(text, width=40):
    """``text`` on one line, at most ``width`` characters, for a problem's phrase."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
