"""One episode: an agent playing one dialogue's goal against the database, and its own
state (the calls it made, its transactions, what it told the user), never shared.

Every call is answered with a text the model reads: the result rows as a JSON list of
objects (as ``agent-chat``'s tool messages hold them; ``[]`` for no row), for a
transaction the corpus's service refused (``NOTIFY_FAILURE``) the refusal object
``chat.agent.refusal`` gives (the alternative the service offered with it, where it offered
one; no transaction is made), the same refusal without an alternative for a booking that
differs from the gold's only in values the user gave up (``superseded``), or ``{"error": "..."}`` saying what to change (an unknown tool, an argument
that is no slot of the tool, a missing required one, a value outside a categorical slot's
values, a message to a user who has left). A bad call never raises.

``replay`` mode: the user's turns come back one per ``send_message_to_user`` call, in
order; the last one ends the conversation (a further message is answered with an error).
``simulated`` mode: the reply is the simulated user's (``environment.user``), which ends
the conversation with the stop marker or at its most turns.
``ticket`` mode has no user to talk to: the goal is the first user message, and the
agent's final answer (which the episode does not see) is what the user is told.
"""

import os
from collections import Counter

from ..chat.agent import dumps, refusal
from ..core.errors import ConfigError
from . import database
from .database import pairs_dict
from .services import Services
from .tickets import SPOKEN, user_text

NOT_TEXT = "arguments must be a JSON object of the tool's arguments"


def error_text(message):
    return dumps({"error": message})


class Episode:
    """The state of one episode of a dialogue.

    Args:
        services: the ``Services`` of the dialogue's service schemas.
        path: the database file of the split (``database.build``).
        row: the dialogue's ``episodes`` row (at least ``dialogue_id``, ``mode``,
            ``user_turns`` and ``outcome``).
        user: in ``simulated`` mode, the ``user.SimulatedUser`` (after its opening turn).

    Raises:
        ConfigError: the database file is not there.

    Example:
        >>> episode = Episode(Services(schemas), path, row)
        >>> episode.call("Restaurants_1__FindRestaurants", {"city": "San Jose", "cuisine": "Italian"})
        '[{"city": "San Jose", ...}]'
    """

    def __init__(self, services, path, row, user=None):
        if not os.path.isfile(path):  # else each call would answer an error, a run learning nothing
            raise ConfigError(f"the database file {path} is not there (a cache cleared?): build it again with "
                              f"environment.trl(...) or environment.splits.database_file(...)")
        self.services = services
        self.user = user
        self.path = path
        self.dialogue_id = row["dialogue_id"]
        self.mode = row["mode"]
        self.user_turns = list(row.get("user_turns") or [])
        self.outcome = row["outcome"]
        self.next_turn = 1  # the first user turn is the prompt's
        self.ended = bool(user is not None and user.ended)
        self.calls = []  # {"tool", "arguments", "answer"} in order
        self.transactions = []  # (tool name, key) of each transaction that returned a row
        self.made = Counter()  # times each call key was made
        self.read = set()  # (tool name, slot, compared value) of every row returned
        self.messages = []  # what the agent sent the user
        self.rows = []  # (tool name, row) of every row returned, in order
        # the calls the corpus's service refused, answered as refusals (their alternative offered)
        self.refused = Counter(gold_keys(services, self.outcome.get("refused") or ()))
        self.aliases = aliases(services, self.outcome.get("aliases") or ())
        self.given_up = given_up(services, row.get("goal") or {}, self.outcome)

    # ------------------------------------------------------------ tools

    def call(self, name, arguments):
        """Call the tool ``name`` with ``arguments`` (a dict); the text the model reads."""
        tool = self.services.tools.get(name)
        if tool is None:
            answer = error_text(f"there is no tool {name!r}; the tools are {', '.join(self.services.tools)}")
        elif not isinstance(arguments, dict):
            answer = error_text(NOT_TEXT)
        else:
            answer = self.answer(tool, arguments)
        self.calls.append({"tool": name, "arguments": arguments, "answer": answer})
        return answer

    def answer(self, tool, arguments):
        arguments = self.service_forms(tool, arguments)
        key = tool.key(arguments)
        recordings = database.recorded(self.path, self.dialogue_id, key)
        if not recordings:
            problems = tool.problems(arguments)
            if problems:
                return error_text("; ".join(problems))
        occurrence = self.made[key]
        self.made[key] += 1
        if recordings:
            rows = recordings[min(occurrence, len(recordings) - 1)]
        elif tool.transactional and superseded(tool, arguments, self.given_up):
            return dumps(refusal([]))
        elif tool.transactional:
            rows = tool.confirmation(arguments)
        else:
            rows = database.matching(self.path, tool, tool.compared(arguments), self.dialogue_id,
                                     self.services.identity(tool))
        refused = tool.transactional and occurrence < self.refused[key]
        if tool.transactional and rows and not refused:
            self.transactions.append((tool.name, key))
        for row in rows:
            compared = self.services.row_values(tool, row)
            self.read.update((tool.name, slot, value) for slot, value in compared.items())
            self.rows.append((tool.name, row))
        return dumps(refusal(rows) if refused else rows)

    def service_forms(self, tool, arguments):
        """``arguments`` with each value the dialogue said in another form (the user's
        words, a relative date) in the service's form (the outcome's ``aliases``)."""
        return {slot: self.aliases.get((tool.service, slot, tool.compared({slot: value})[slot]), value)
                if isinstance(value, str) else value for slot, value in arguments.items()}

    def send_message_to_user(self, message):
        """``replay`` and ``simulated`` modes: tell the user ``message``; the user's next
        turn, or an error once the user has left."""
        if not isinstance(message, str):
            answer = error_text("the message must be text")
        elif self.ended or self.mode not in SPOKEN:
            answer = error_text(user_text("ended"))
        elif self.mode == "simulated" and self.user is None:
            answer = error_text("no model plays the user of this episode (a simulated user is given to the episode)")
        elif self.user is not None:
            self.messages.append(message)
            answer = self.user.reply(message)
            if self.user.ended:
                self.ended = True
                answer = f"{answer}\n\n({user_text('ended')})"
        else:
            self.messages.append(message)
            answer = self.user_turns[self.next_turn] if self.next_turn < len(self.user_turns) else ""
            self.next_turn += 1
            if self.next_turn >= len(self.user_turns):
                self.ended = True
                answer = f"{answer}\n\n({user_text('ended')})"
        self.calls.append({"tool": "send_message_to_user", "arguments": {"message": message}, "answer": answer})
        return answer

    # ------------------------------------------------------------ what it did

    def trajectory(self):
        """The calls made, in order: ``[{"tool", "arguments", "answer"}]``."""
        return list(self.calls)

    def __getstate__(self):
        return dict(self.__dict__)


def aliases(services, entries):
    """``{(service, slot, compared form): the service's form}`` of an outcome's aliases."""
    found = {}
    for entry in entries:
        tools = [tool for tool in services.tools.values() if tool.service == entry["service"]]
        if not tools:
            continue
        canonical, *others = entry["values"]
        for other in others:
            key = (entry["service"], entry["slot"], tools[0].compared({entry["slot"]: other})[entry["slot"]])
            found.setdefault(key, canonical)
    return found


def given_up(services, goal, outcome):
    """What the user asked for first and the dialogue never booked: ``[(tool, compared
    arguments of a booking or refused attempt, {slot: compared values the user gave up})]``,
    per transactional intent of the goal whose slot holds more than one value (each but its
    last, which the user still wants)."""
    found = []
    for call in [*outcome.get("transactions", ()), *(outcome.get("refused") or ())]:
        tool = services.tool(call["service"], call["intent"])
        compared = tool.compared(pairs_dict(call["arguments"]))
        earlier = {}
        for intent in goal.get("intents", ()):
            if (intent["service"], intent["intent"]) != (call["service"], call["intent"]):
                continue
            for constraint in intent["constraints"]:
                slot = constraint["slot"]
                values = {tool.compared({slot: value})[slot] for value in constraint["values"][:-1]} - \
                    {compared.get(slot), tool.compared({slot: constraint["values"][-1]})[slot]}
                if slot in compared and values:
                    earlier[slot] = values
        if earlier:
            found.append((tool.name, compared, earlier))
    return found


def superseded(tool, arguments, given_up):
    """Whether a booking not recorded differs from a gold booking or refused attempt only
    in values the user gave up (``given_up``): the dialogue shows they were not had (the
    ticket says ``12:00, then 11:45; if that cannot be done, I accept 11:30``), so the
    service refuses it rather than booking what the user moved away from."""
    compared = tool.compared(arguments)
    for name, gold, earlier in given_up:
        differing = {slot for slot in set(gold) | set(compared) if gold.get(slot) != compared.get(slot)}
        if name == tool.name and differing and all(compared.get(slot) in earlier.get(slot, ()) for slot in differing):
            return True
    return False


def gold_keys(services, calls):
    """The call keys of gold calls (``{service, intent, arguments}`` entries)."""
    return [services.tool(c["service"], c["intent"]).key(pairs_dict(c["arguments"])) for c in calls]


__all__ = ["Episode", "Services", "error_text", "gold_keys"]
