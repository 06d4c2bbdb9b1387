"""The probe agents of ``probes`` (its docstring says what each does): ``Careful``, and the
others as changes of what it calls (``extra_calls``, ``book``, ``search_before``) or
answers (``answer``). An agent is a generator of steps (``run``): it yields the calls of one
message, is sent their answers (the texts the model would read), and returns its final
answer; it reads the prompt and the tools' schemas only (``probe_values``).
"""

import itertools
import json
from dataclasses import dataclass, field
from typing import Optional

from .probe_values import (Tool, ask_label, asked_slot, names_item, offered_row, read_answer, read_ticket, rewritten,
                           same, similarity, today_of, tools_of, yes_no_text)

# A label fits an argument when its words are this close (similarity); below, it is not used.
FIT = 0.6
MOST_ROWS_BOOKED = 5
# The most searches tried again to find an item a question names.
MOST_RETRIES = 8


@dataclass
class Act:
    """What a probe did for one request: the tool, the arguments, the rows it got (None:
    no call made, or an error), the row acted on, and the search row before a booking."""

    request: object
    tool: Optional[Tool] = None
    arguments: dict = field(default_factory=dict)
    rows: Optional[list] = None
    row: Optional[dict] = None
    found: Optional[dict] = None
    refused: bool = False
    offered: Optional[dict] = None
    alternative: bool = False


def names_other(ask):
    """Whether a question names its item by more than a number (``a scale of 5`` names none)."""
    return names_item(ask) and not ask[len(ask_label(ask)) + len(" of "):].strip().isdigit()


class Careful:
    """The careful probe; the others change what it calls (``extra_calls``, ``book``) or
    answers (``answer``)."""

    literal = False

    def __init__(self, messages, tools):
        prompt = [m for m in messages if m.get("role") in ("system", "user")]
        self.ticket = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
        self.today = today_of("\n".join(str(m.get("content") or "") for m in prompt))
        self.requests = read_ticket(self.ticket)
        self.tools = tools_of(tools)
        self.acts, self.calls, self.read, self.refusals = [], [], [], []

    # ------------------------------------------------------------ steps

    def call(self, *calls):
        """Make ``calls`` ((tool, arguments) pairs) in one message; their rows (None: an error)."""
        texts = yield [(tool.name, arguments) for tool, arguments in calls]
        read = [read_answer(text) for text in texts]
        self.refusals = [refusal for _, refusal in read]
        for (tool, arguments), (rows, _) in zip(calls, read):
            self.calls.append((tool, arguments, rows))
            self.read += [(tool, row) for row in rows or ()]
        return [rows for rows, _ in read]

    def run(self):
        for request in self.requests:
            act = Act(request, self.tool_for(request))
            self.acts.append(act)
            if act.tool is None:
                continue
            act.arguments = self.arguments(act.tool, request)
            missing = [slot for slot in act.tool.required if slot not in act.arguments]
            if missing and act.tool.booking:
                found = yield from self.search_before(act)
                if found:
                    act.found = found[0]
                    act.arguments.update({slot: str(found[0][slot]) for slot in missing if slot in found[0]})
                    if len(found) > 1:
                        yield from self.book(act, found)
                        continue
            for slot in act.tool.required:
                if slot not in act.arguments:
                    known = self.known(slot)
                    if known is not None:
                        act.arguments[slot] = known
            yield from self.book(act, [act.found])
            if not act.tool.booking:
                rows = yield from self.search_again(act.tool, act.arguments, request, act.rows)
                if rows is not act.rows:
                    act.rows, act.row = rows, self.best(rows, request)
        yield from self.extra_calls()
        self.settle()
        return self.answer()

    def settle(self):
        """A search's item is the one booked after it with the same service, where its rows
        hold that one (the row agreeing with the booking's on every slot they share)."""
        for position, act in enumerate(self.acts):
            if act.tool is None or act.tool.booking or not act.rows:
                continue
            booked = next((later.row for later in self.acts[position + 1:] if later.tool and later.row
                           and later.tool.booking and later.tool.service == act.tool.service), None)
            act.row = next((row for row in act.rows if booked and set(row) & set(booked) and
                            all(same(row[slot], booked[slot]) for slot in set(row) & set(booked))), act.row)

    def book(self, act, found):
        """Call the request's tool with its arguments (``found``: rows of a search before it,
        each a booking of its own for ``overbook``)."""
        (rows,) = yield from self.call((act.tool, act.arguments))
        if rows is None and any(slot not in act.tool.required for slot in act.arguments):
            (rows,) = yield from self.call((act.tool, self.valid(act.tool, act.arguments)))
        refusal = self.refusals[0]
        if refusal is not None:
            act.refused, act.offered = True, offered_row(refusal)
            fallbacks = [value for value in act.request.values if value.fallback]
            if act.offered and fallbacks and not act.request.declines:  # the user accepts the alternative
                accepted = {slot: str(act.offered[slot]) for slot in act.tool.properties if slot in act.offered}
                (rows,) = yield from self.call((act.tool, {**act.arguments, **accepted}))
                act.alternative = bool(rows)
        act.rows = rows
        act.row = self.best(rows or [], act.request) if rows else None

    def search_before(self, act):
        """The rows of the search a booking needs (best first): the same service's search
        tool whose arguments share most with the booking's, called with the ticket's values."""
        searches = [tool for tool in self.tools.values() if tool.service == act.tool.service and not tool.booking]
        if not searches:
            return []
        search = max(searches, key=lambda tool: len(set(tool.properties) & set(act.tool.properties)))
        arguments = self.arguments(search, act.request)
        for slot in search.required:
            if slot not in arguments and self.known(slot) is not None:
                arguments[slot] = self.known(slot)
        (rows,) = yield from self.call((search, arguments))
        rows = (yield from self.search_again(search, arguments, act.request, rows)) or []
        return [self.best(rows, act.request)] if rows else []

    def search_again(self, tool, arguments, request, rows):
        """The rows a search (``arguments``) gave, or, where it found nothing or missed an
        item the ticket names (``unfound``), those of the search tried again (``retries``)
        until the item is read, where their best row fits the ticket better."""
        for retry in self.retries(tool, arguments, request):
            if rows and not self.unfound(tool.service, request):
                break
            (more,) = yield from self.call((tool, retry))
            if more and (not rows or self.fit(self.best(more, request), request) >
                         self.fit(self.best(rows, request), request)):
                rows = more
        return rows

    def unfound(self, service, request):
        """Whether the request names an item no row of ``service`` read holds: one a question
        names, or a value the user accepted when offered."""
        held = {" ".join(str(value).casefold().split()) for tool, row in self.read if tool.service == service
                for value in row.values()}
        return any(names_item(ask) and self.named_item(ask, service)[1] is None for ask in request.asks) or \
            any(given.accepted and " ".join(given.value.casefold().split()) not in held for given in request.values)

    def retries(self, tool, arguments, request):
        """The arguments of a search tried again, fewest changes first: the ticket's values as
        it writes them, only the required ones, then each value the user first asked for in
        place of the current one, then their combinations (at most ``MOST_RETRIES`` in all)."""
        options = []
        for slot, value in arguments.items():
            given = self.given_for(tool.properties[slot], slot, [request], filters=True)
            earlier = [self.form(text, tool.properties[slot], slot) for text in (given.earlier if given else ())]
            options.append([(slot, value)] + [(slot, text) for text in earlier if text != value])
        required = {slot: value for slot, value in arguments.items() if slot in tool.required}
        combined = sorted((dict(changed) for changed in itertools.product(*options)),
                          key=lambda retry: sum(retry[slot] != value for slot, value in arguments.items()))
        made = []
        written = {slot: self.value_for(tool.properties[slot], slot, [request], filters=True) or value
                   for slot, value in arguments.items()}
        for retry in [written, required, *combined]:
            if retry != arguments and retry not in made:
                made.append(retry)
        return made[:MOST_RETRIES]

    def extra_calls(self):
        return
        yield

    # ------------------------------------------------------------ reading

    def tool_for(self, request):
        """The tool whose description (and service) fits the request best."""
        def score(tool):
            said = tool.description.split(" (service:")[0]
            return (request.service == tool.service, similarity(request.description, said, tool.name))

        candidates = sorted(self.tools.values(), key=score, reverse=True)
        return candidates[0] if candidates and score(candidates[0])[1] > 0 else None

    def given_for(self, prop, slot, requests, filters=False):
        """The ticket's ``Value`` for an argument: the label that fits it best, in ``requests``
        (``filters``: a search's argument, which a value the user only accepted is not)."""
        best, best_fit = None, 0.0
        for request in requests:
            for given in request.values:
                if filters and given.accepted:
                    continue
                fit = similarity(given.label, prop.get("description") or slot, slot)
                if fit > best_fit:
                    best, best_fit = given, fit
        return best if best_fit >= FIT else None

    def value_for(self, prop, slot, requests, filters=False):
        given = self.given_for(prop, slot, requests, filters)
        return given.value if given else None

    def form(self, value, prop, slot):
        """A ticket's value as the probe writes it in an argument."""
        return value if self.literal else rewritten(value, prop, slot, self.today)

    def arguments(self, tool, request):
        made = {}
        for slot, prop in tool.properties.items():
            value = self.value_for(prop, slot, [request], filters=not tool.booking)
            if value is None:
                continue
            if not self.literal:
                if value.casefold() == "dontcare" and slot not in tool.required:
                    continue
                value = rewritten(value, prop, slot, self.today)
            made[slot] = value
        return made

    def known(self, slot):
        """A value for ``slot`` from the rest of the ticket or a row acted on before."""
        for tool in self.tools.values():
            if slot in tool.properties:
                value = self.value_for(tool.properties[slot], slot, self.requests)
                if value is not None:
                    return self.form(value, tool.properties[slot], slot)
        for act in reversed(self.acts):
            for row in (act.row, act.found):
                if row and slot in row:
                    return str(row[slot])
        return None

    def valid(self, tool, arguments):
        """The arguments without an optional one a categorical slot refuses."""
        return {slot: value for slot, value in arguments.items()
                if slot in tool.required or "enum" not in tool.properties.get(slot, {}) or
                any(same(value, option) for option in tool.properties[slot]["enum"])}

    def fit(self, row, request):
        """How well a row fits the ticket, ``(names, score)``: the item names the ticket gives
        that it holds (the item the user goes on with), then its values the request gives (2
        each) or another request gives (1 each), each for the slot its label fits."""
        names = score = 0
        for other in self.requests:
            for given in other.values:
                wanted = [value for value in (given.value, given.fallback) if value]
                held = [slot for slot in self.slots_of(given.label, row)
                        if any(same(value, row[slot]) for value in wanted)]
                names += any("name" in slot or "title" in slot for slot in held)
                score += (2 if other is request else 1) if held else 0
        return names, score

    def slots_of(self, label, row):
        """The slots of ``row`` a ticket's label fits: the tools' arguments it describes, or
        where it describes none, any slot named so, else every slot (a value the probe cannot
        place counts wherever the row holds it)."""
        described = {slot for tool in self.tools.values() for slot, prop in tool.properties.items()
                     if similarity(label, prop.get("description") or slot, slot) >= FIT}
        named = [slot for slot in row if similarity(label, slot.replace("_", " "), slot) >= FIT]
        return [slot for slot in row if slot in described] if described else named or list(row)

    def best(self, rows, request):
        return max(rows, key=lambda row: self.fit(row, request)) if rows else None

    def named_item(self, ask, service, first=()):
        """``(label, row)`` of a ``Tell me`` entry that names its item (``<label> of <item>``,
        the item's values comma separated): the row that holds the item among ``first`` (the
        rows of the request the question is under), else the rows of ``service`` read, the
        latest first; else ``(ask, None)``."""
        pieces = ask.split(" of ")
        rows = [row for row in first if row] + [row for tool, row in reversed(self.read) if tool.service == service]
        for cut in range(len(pieces) - 1, 0, -1):
            label, item = " of ".join(pieces[:cut]), " of ".join(pieces[cut:])
            parts = [part.strip() for part in item.split(",") if part.strip()]
            for row in rows:
                if all(any(same(part, value) for value in row.values()) for part in parts):
                    return label, row
        return ask, None

    def told(self, act, ask):
        """``(row, value)`` of an asked slot: the item of ``act`` (or the alternative a
        refusal offered for it), or the item the entry names (None: not found; never another
        item's value for a named one, ``names_other``)."""
        label, named = self.named_item(ask, act.tool.service, (act.row, act.found, act.offered))
        if named is not None:
            slot = asked_slot(self.tools, label, named)
            return (named, named[slot]) if slot is not None else (None, None)
        if names_other(ask):
            return None, None
        for row in (act.row, act.found, act.offered):
            if row:
                slot = asked_slot(self.tools, ask, row)
                if slot is not None:
                    return row, row[slot]
        return None, None

    # ------------------------------------------------------------ answers

    def item_text(self, act):
        """The item acted on by its values, a yes or no aside, and those the ticket's
        questions about the service ask (each answered on its own line, for its item)."""
        row = act.row or act.found or {}
        asked = {asked_slot(self.tools, ask_label(ask), row) for other in self.acts
                 if other.tool and act.tool and other.tool.service == act.tool.service for ask in other.request.asks}
        shown = {slot: value for slot, value in row.items()
                 if str(value) not in ("True", "False") and slot not in asked}
        return ", ".join(f"{slot.replace('_', ' ')}: {value}" for slot, value in shown.items())

    def act_text(self, act):
        request = act.request
        if act.tool is None:
            return f"I found no service to {request.description}."
        said = ", ".join(f"{slot.replace('_', ' ')}: {value}" for slot, value in act.arguments.items())
        if act.tool.booking and act.refused:
            head = f"The service could not do it ({request.description}, {said})."
            if act.alternative:
                head += f" It offered instead, and I booked: {self.item_text(act)}."
            elif act.offered:
                head += " I did not take the alternative it offered."
        elif act.tool.booking:
            head = f"Done ({request.description}): {said}." if act.rows else \
                f"I could not do it ({request.description}, {said}): the service refused it."
            if act.row:  # the confirmation the service returned, read back
                head += f" The service confirmed: {self.item_text(act)}."
        else:
            head = f"Found ({request.description}): {self.item_text(act)}." if act.row else \
                f"Nothing was found ({request.description}, {said})."
        lines = [head]
        # the questions about the item acted on first, right after it is named; then those naming another
        mine = [row for row in (act.row, act.found, act.offered) if row]
        for ask in sorted(request.asks, key=lambda ask: names_other(ask) and
                          self.named_item(ask, act.tool.service, mine)[1] not in mine):
            _, value = self.told(act, ask)
            lines.append(f"- {ask}: {yes_no_text(value)}" if value is not None else f"- {ask}: not given by the service")
        return "\n".join(lines)

    def answer(self):
        return "\n".join(self.act_text(act) for act in self.acts) or "I found nothing to do."


class Literal(Careful):
    literal = True


class Dump(Careful):
    def answer(self):
        return "\n".join(json.dumps(row, ensure_ascii=False) for _, row in self.read) or "Nothing was found."


class SpamDump(Dump):
    def extra_calls(self):
        more = []
        for tool, arguments, _ in list(self.calls):
            if tool.booking:
                continue
            optional = [slot for slot in arguments if slot not in tool.required]
            for size in range(len(optional)):
                for kept in itertools.combinations(optional, size):
                    more.append((tool, {slot: value for slot, value in arguments.items()
                                        if slot in tool.required or slot in kept}))
        if more:
            yield from self.call(*more)


class Hedge(Careful):
    def answer(self):
        hedges = [f"{ask}: yes. {ask}: no." for act in self.acts for ask in act.request.asks]
        return "\n".join([super().answer(), *hedges])


class Silent(Careful):
    def answer(self):
        return "Done."


class Lie(Careful):
    def answer(self):
        # the opposite of what happened: nothing done where something was, else success
        if any(act.rows for act in self.acts):
            return "Sorry, nothing was booked."
        return "Done: it is all booked as you asked."


class Echo(Careful):
    def answer(self):
        return "\n".join(f"{tool.name}: " + ", ".join(f"{slot}: {value}" for slot, value in arguments.items())
                         for tool, arguments, _ in self.calls) or "Done."


class Numbers(Careful):
    def answer(self):
        return super().answer() + "\nFigures: " + ", ".join(str(n) for n in range(0, 11)) + "."


class ListAll(Careful):
    def answer(self):
        lines = [super().answer()]
        for act in self.acts:
            for ask in act.request.asks:
                values = []
                for _, row in self.read:
                    slot = asked_slot(self.tools, ask, row)
                    if slot is not None and yes_no_text(row[slot]) not in values:
                        values.append(yes_no_text(row[slot]))
                lines.append(f"{ask}: {', '.join(values)}")
        return "\n".join(lines)


class Overbook(Careful):
    """Careful, but each booking is made with every row a search of its service finds (at
    most ``MOST_ROWS_BOOKED``): the item's name and any value the ticket leaves open taken
    from each row."""

    def search_before(self, act):
        made = len(self.calls)
        found = yield from super().search_before(act)
        searched = (self.calls[-1][2] or []) if len(self.calls) > made else []
        return (found + [row for row in searched if row not in found])[:MOST_ROWS_BOOKED]

    def book(self, act, found):
        if act.tool.booking and len([row for row in found if row]) < 2:
            found = yield from self.search_before(act)
        found = [row for row in found if row]
        if not act.tool.booking or len(found) < 2:
            yield from super().book(act, found)
            return
        bookings = [(act.tool, {**act.arguments, **{slot: str(row[slot]) for slot in act.tool.properties
                                                    if slot in row and ("name" in slot or slot not in act.arguments)}})
                    for row in found]
        answers = yield from self.call(*bookings)
        act.rows = next((rows for rows in answers if rows), answers[0])
        act.row = self.best(act.rows or [], act.request) if act.rows else None


__all__ = ["Careful", "Dump", "Echo", "Hedge", "Lie", "ListAll", "Literal", "Numbers", "Overbook", "Silent", "SpamDump"]
