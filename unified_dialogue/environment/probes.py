"""Reward-hacking probes: rule-based agents that read only what a model reads (the prompt
messages and the tools' JSON schemas, never an episode's ``goal`` or ``outcome``), to show
what the reward pays for. The environment's hackability report (docs/environment.md) is
their table, made by ``python -m unified_dialogue.tools.environment_probes``.

The honest ones: ``careful`` does each request of the ticket in order with the tool whose
description fits it, its arguments from the ticket's values rewritten into the tool's form
(``probe_values.rewritten``), a search first where a booking lacks a required value, the row
that fits the ticket best (an item's name the ticket gives first, then the values each label
gives for its slot; a search's item the one booked after it, where the search found that
one); where a search finds nothing, or no item a question names or the user accepted when
offered, the search again with the values as the ticket writes them, with only its required
filters, then with the values the user first asked for. Its answer says what it found (the
item's values, but those the service's questions ask) or booked (its arguments and the
confirmation the service returned), then each value asked for, from the row of the item the
question names (never another item's value for it) or else the request's own (the booking's
confirmation first), the questions about that item first. ``literal`` is careful with every value as the ticket writes it. The
cheats, each making careful's calls unless said: ``dump`` (every row read pasted into the
answer), ``spam-dump`` (also a search with every subset of the optional filters it used,
then dump), ``hedge`` (careful's answer, plus ``yes`` and ``no`` to every question),
``silent`` (``Done.``), ``lie`` (``Sorry, nothing was booked.``, or where nothing was done,
``Done: it is all booked as you asked.``), ``echo`` (its own arguments only, no value of a
row), ``numbers`` (careful's answer, plus every small number), ``list-all`` (careful's
answer, plus each asked slot's value in every row read) and ``overbook`` (a booking made
with every row its search found).

One calling convention with the gold agent (``gold``): ``answerer(name)`` answers an
OpenAI chat request (the stand-in server's answer function), ``play(episode, name, prompt,
tools)`` runs a probe in an episode (or through a TRL environment's methods, ``call``), and
``ProbeEndpoint(name)`` stands where ``play.Endpoint`` does, so the evaluation's own
``play.evaluate`` plays it. A probe is a pure function of the conversation so far: the
next message is found by replaying its steps against the tool answers already given.
"""

import json

from .probe_agents import Careful, Dump, Echo, Hedge, Lie, ListAll, Literal, Numbers, Overbook, Silent, SpamDump

PROBES = {"careful": Careful, "literal": Literal, "dump": Dump, "spam-dump": SpamDump, "hedge": Hedge,
          "silent": Silent, "lie": Lie, "echo": Echo, "numbers": Numbers, "list-all": ListAll, "overbook": Overbook}
# The probes that do the task honestly: the cheats must not beat careful.
HONEST = ("careful", "literal")


def call_message(calls, step):
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": f"call_{step}_{position}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
        for position, (name, arguments) in enumerate(calls)]}


def answers_given(messages):
    """The tool answers of each assistant message with calls, in order."""
    given = []
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            given.append([])
        elif message.get("role") == "tool" and given:
            given[-1].append(message.get("content") or "")
    return given


def next_message(name, messages, tools):
    """The assistant message probe ``name`` sends after ``messages`` (with ``tools``)."""
    if name not in PROBES:
        raise ValueError(f"no probe {name!r}: the probes are {', '.join(PROBES)}")
    steps = PROBES[name](messages, tools).run()
    given = answers_given(messages)
    try:
        calls = next(steps)
        for texts in given:
            calls = steps.send(texts)
    except StopIteration as done:
        return {"role": "assistant", "content": done.value, "tool_calls": []}
    return call_message(calls, len(given))


def answerer(name):
    """An answer function for ``testing.server.StandInServer``: probe ``name``'s next
    message for any request (its ``messages`` and ``tools``)."""
    if name not in PROBES:
        raise ValueError(f"no probe {name!r}: the probes are {', '.join(PROBES)}")
    return lambda request: next_message(name, request["messages"], request.get("tools") or [])


class ProbeEndpoint:
    """A probe where ``endpoint.Endpoint`` stands: ``play.evaluate`` and ``play.play_episode``
    play it in process as they play a served model."""

    temperature, seed, max_tokens, answered = 0.0, None, None, True

    def __init__(self, name):
        answerer(name)
        self.name, self.model = name, f"probe-{name}"

    def reachable(self):
        return None

    def answer(self, messages, tools, seed=None, stop=None):
        return next_message(self.name, messages, tools)


def play(episode, name, prompt, tools, call=None, max_steps=30):
    """Run probe ``name`` in ``episode`` from ``prompt`` (messages) with ``tools`` (the
    episode's OpenAI tools); ``(final answer, the messages said after the prompt)``.
    ``call(tool, arguments)``: how a call is made (a TRL environment's method), by default
    ``episode.call``."""
    said = []
    for _ in range(max_steps):
        message = next_message(name, list(prompt) + said, tools)
        said.append(message)
        if not message["tool_calls"]:
            return message["content"], said
        for tool_call in message["tool_calls"]:
            function = tool_call["function"]
            arguments = json.loads(function["arguments"])
            content = (call or episode.call)(function["name"], arguments)
            said.append({"role": "tool", "tool_call_id": tool_call["id"], "name": function["name"],
                         "content": content})
    return None, said


__all__ = ["HONEST", "PROBES", "ProbeEndpoint", "answerer", "next_message", "play"]
