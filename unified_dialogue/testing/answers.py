"""What the stand-in server (``testing.server``) answers: a chat config's rows matched with
the conversation a client sends, and the row's prediction or gold completion given back.

A client may send a row's ``prompt`` as it is (the OpenAI client: ``tools`` beside the
messages, earlier calls as ``tool_calls``, results as ``tool`` messages), or as lm-eval's
tasks write it (``harness.prompts``: the tools at the end of the system message, calls and
results as text; or the whole conversation as one plain text, to ``/v1/completions``). Both
sides are compared after the same normalisation: a message's content given as a list of
text parts is joined, tool-call arguments and tool parameters given as JSON text are
parsed, ids and absent or None keys are left out, and an instruction put before the row's
own system message (lm-eval's ``--system_instruction``) is allowed. A request with
``tools`` is answered with ``tool_calls``; one without, with the text the row's prompt
asks for (``<tool_call>{...}</tool_call>`` for a call).
"""

import json
import threading

from datasets import Value

from .. import registry
from ..chat.agent import loaded, plain_messages, plain_tools
from ..core.answer import content_text
from ..core.errors import ConfigError
from ..harness import prompts
from ..scoring.tool_calls import MalformedOutput, parse_tool_calls

# A role some clients send for the system message.
SYSTEM_ROLES = {"system", "developer"}
# How a plain-text prompt's system message starts (harness.prompts.plain_text).
SYSTEM_PREFIX = f"{prompts.ROLE_NAMES['system']}: "


class NoAnswer(ValueError):
    """A request no row answers: the server's HTTP 400, with this message."""


class UnknownIds(ConfigError):
    """Predictions whose ids name no row."""


def has_prompt(row_or_features):
    """Whether rows (or a config's features) hold a conversation to answer: a chat
    config's ``prompt`` messages, or D3ST's ``input`` text (not the ``nlg`` view's GEM
    prompt text)."""
    prompt = row_or_features.get("prompt")
    return "input" in row_or_features or (prompt is not None and not isinstance(prompt, (str, Value)))


def check_config(corpus, config):
    """Raise ConfigError where the config's rows have no conversation to answer, or no
    completion to answer it with (``episodes``: an agent plays them); an unknown corpus or
    config is left to ``load`` to name."""
    try:
        features = registry.get(corpus).config(config).features
    except (KeyError, ValueError):
        return
    lacks = "prompt messages" if not has_prompt(features) else \
        "completion to answer with" if "prompt" in features and "completion" not in features else None
    if lacks:
        raise ConfigError(f"--config {config}: its rows have no {lacks}; the stand-in server answers the chat "
                          f"configs (dst-chat, agent-call-chat, ...) and d3st")


def normal_message(message):
    """``[role, text, [[name, arguments], ...]]`` of a message as a client or a row has it."""
    if not isinstance(message, dict):
        raise NoAnswer(f"a message is {type(message).__name__}, not an object")
    calls = []
    for call in message.get("tool_calls") or []:
        function = (call.get("function") or {}) if isinstance(call, dict) else {}
        try:
            arguments = loaded(function.get("arguments") or {})
        except ValueError:  # arguments that are not JSON: compared as the text they are
            arguments = function.get("arguments")
        calls.append([function.get("name"), arguments])
    role = message.get("role")
    return ["system" if role in SYSTEM_ROLES else role, content_text(message.get("content")), calls]


def normal_tools(tools):
    """The tools as a sorted tuple of JSON texts of ``{name, description, parameters}``."""
    functions = [tool.get("function", tool) if isinstance(tool, dict) else {} for tool in tools or []]
    return tuple(sorted(json.dumps({"name": f.get("name"), "description": f.get("description") or "",
                                    "parameters": loaded(f.get("parameters") or {})}, sort_keys=True)
                        for f in functions))


def conversation(messages, tools=()):
    """``(system, turns, tools)``: the system messages' text, the other messages as one
    JSON text (the index key), the normalised tools."""
    normal = [normal_message(message) for message in messages]
    system = "\n\n".join(text for role, text, _ in normal if role == "system")
    turns = json.dumps([m for m in normal if m[0] != "system"], sort_keys=True, ensure_ascii=False)
    return system, turns, normal_tools(tools)


def system_matches(sent, own):
    """Whether a request's system text is the row's, or the row's after an instruction of
    the client's own."""
    return sent == own or sent.endswith("\n\n" + own) or (not own and bool(sent))


class Answerer:
    """``answer(request) -> message`` over a chat config's rows (see ``from_predictions``)."""

    def __init__(self, rows, predictions):
        self.rows, self.predictions = [], predictions
        self.index, self.texts, systems = {}, {}, {}
        self.turns, self.lock = {}, threading.Lock()
        for row in rows:
            row = {key: row[key] for key in ("id", "prompt", "completion", "tools", "input", "target") if key in row}
            if not has_prompt(row):
                raise ConfigError(f"row {row.get('id')!r} has no 'prompt' messages (nor D3ST's 'input'): the stand-in "
                                  f"server answers the rows of a chat config")
            position = len(self.rows)
            self.rows.append(row)
            forms = [conversation(prompts.messages(row))]
            if "prompt" in row:
                forms.append(conversation(plain_messages(row["prompt"]), plain_tools(row.get("tools") or [])))
            for system, turns, tools in dict.fromkeys(forms):
                system = systems.setdefault(system, system)  # rows of one dialogue share theirs
                self.index.setdefault(turns, []).append((position, system, tools))
            self.texts.setdefault(prompts.plain_text(prompts.messages(row)), []).append(position)
        if predictions is not None:
            unknown = sorted(set(predictions) - {row["id"] for row in self.rows})
            if unknown:
                raise UnknownIds(f"{len(unknown)} prediction id(s) name no row: "
                                  f"{', '.join(map(repr, unknown[:5]))}{' ...' if len(unknown) > 5 else ''}")

    def __call__(self, request):
        if "messages" in request:
            messages, tools = request["messages"], request.get("tools") or []
            if not isinstance(messages, list) or not isinstance(tools, list):
                raise NoAnswer("'messages' and 'tools' must be lists")
            system, turns, tools = conversation(messages, tools)
            found = [p for p, own, own_tools in self.index.get(turns, ())
                     if own_tools == tools and system_matches(system, own)]
            shown = content_text(messages[-1].get("content") if messages and isinstance(messages[-1], dict) else "")
            return self.answer(found, bool(tools), shown)
        prompt = request.get("prompt")
        if not isinstance(prompt, str):
            raise NoAnswer("a request needs 'messages' (chat) or a 'prompt' text (completions)")
        return self.answer(self.plain_text_rows(prompt), False, prompt[-200:])

    def plain_text_rows(self, prompt):
        """The rows whose plain-text prompt is ``prompt``, or ``prompt`` after a system
        instruction of the client's own."""
        if prompt in self.texts:
            return self.texts[prompt]
        if not prompt.startswith(SYSTEM_PREFIX):
            return []
        return [p for text, positions in self.texts.items() for p in positions
                if prompt.endswith("\n\n" + text[len(SYSTEM_PREFIX):] if text.startswith(SYSTEM_PREFIX) else
                                   "\n\n" + text)]

    def answer(self, found, with_tools, shown):
        found = list(dict.fromkeys(found))
        if not found:
            example = f" (ids such as {self.rows[0]['id']!r})" if self.rows else ""
            raise NoAnswer(f"no row of the {len(self.rows)} served has this conversation (it ends with "
                           f"{shown[-120:]!r}): the stand-in server answers only its rows' prompts{example}; a task "
                           f"of another config or split needs a server of its own (--config, --split)")
        if len(found) > 1:  # the same prompt for several rows: answered in turn (see ``ambiguous``)
            with self.lock:
                turn = self.turns[tuple(found)] = self.turns.get(tuple(found), -1) + 1
            found = [found[turn % len(found)]]
        return self.message(self.rows[found[0]], with_tools)

    def ambiguous(self):
        """The ids of the rows that share one prompt but not their answer, a list a prompt.
        The server answers such rows in turn, in row order, one request after the other: a
        client that sends them in another order gets another row's answer."""
        groups = {}
        for entries in self.index.values():
            for position, system, tools in entries:
                groups.setdefault((id(entries), system, tools), []).append(position)
        shared = {tuple(dict.fromkeys(group)) for group in groups.values() if len(set(group)) > 1}
        return [[self.rows[p]["id"] for p in group] for group in sorted(shared)
                if len({json.dumps(self.answer_text(p)) for p in group}) > 1]

    def answer_text(self, position):
        try:
            return self.message(self.rows[position], False)
        except NoAnswer as error:
            return str(error)

    def message(self, row, with_tools):
        """The assistant message answering ``row``: its prediction, or its gold completion."""
        if self.predictions is None:
            if with_tools and "completion" in row:
                (gold,) = plain_messages(row["completion"])
                return {"role": "assistant", "content": gold.get("content") or None,
                        "tool_calls": gold.get("tool_calls") or []}
            return {"role": "assistant", "content": prompts.doc_to_target(row)}
        if row["id"] not in self.predictions:
            raise NoAnswer(f"row {row['id']!r} has no prediction in the predictions served")
        text = self.predictions[row["id"]]
        if with_tools:
            try:
                calls = parse_tool_calls(text)
            except MalformedOutput:
                return {"role": "assistant", "content": text}
            return {"role": "assistant", "content": None,
                    "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}
                                   for name, arguments in calls]}
        return {"role": "assistant", "content": text}


def from_predictions(rows, predictions):
    """An answerer for ``StandInServer``: each request matched with the row whose prompt it
    sends, answered with that row's prediction.

    Args:
        rows: the rows of a chat config (a ``Dataset`` or a list of dicts with ``id`` and
            ``prompt``, or D3ST's ``input``), as ``unified_dialogue.load`` gives them.
        predictions: ``{id: text}`` (as ``scoring.rows.read_predictions`` reads a
            predictions file); None answers each row's gold completion (``gold``).

    Returns:
        ``answer(request) -> message``: the assistant message (``content``, and
        ``tool_calls`` for a request that sends ``tools`` and a text that holds a call).

    Raises:
        ConfigError for a row without a prompt, or a prediction whose id names no row. The
        answerer raises ``NoAnswer`` (the server's HTTP 400) for a request that is no row's
        prompt, or whose row has no prediction. Rows that share their prompt but not their
        answer (``answerer.ambiguous()``; one prompt in SGD's validation ``dst-chat``) are
        answered in turn, in row order.

    Example:
        >>> rows = load("sgd", "agent-call-chat", split="test", data_dir="sgd")  # doctest: +SKIP
        >>> with StandInServer(from_predictions(rows, {"1_00000/3": "..."})) as server:  # doctest: +SKIP
        ...     print(server.base_url)
    """
    return Answerer(rows, predictions)


def gold(rows):
    """An answerer giving each row's gold completion: ``from_predictions(rows, None)``.

    Example:
        >>> server = StandInServer(gold(load("sgd", "dst-chat", split="test"))).start()  # doctest: +SKIP
    """
    return from_predictions(rows, None)
