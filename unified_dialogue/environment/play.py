"""Playing episodes against a served model: any OpenAI-compatible chat endpoint with tools
(vLLM, llama.cpp's server, ...), one episode per dialogue of a split, each written as one
JSON line as soon as it ends, then a summary.

An episode sends the prompt and the tools (exactly ``agent-call-chat``'s, and
``send_message_to_user`` in ``replay`` and ``simulated`` modes) to
``<base_url>/chat/completions``, runs the tool calls of each answer in the episode, sends
their results back as ``tool`` messages, and stops at the first answer without a tool call
(the final answer) or after ``max_steps`` answers. In ``simulated`` mode the user is a
second model (``user.SimulatedUser``), which writes the first user message and answers
each message the agent sends it. A line: ``id``, ``dialogue_id``, the run's ``split``,
``mode``, ``variant``, ``model``, ``temperature``, ``seed`` and ``max_steps``
(``run_header``: a file of another run is not resumed), ``services``, ``unseen_services``,
``ended`` (``answer``, ``max_steps``, ``max_user_turns``: the simulated user spoke its most
turns without ending the conversation, a failed episode, reward 0.0; or ``error``: an
endpoint that had answered before refused a request of the episode, such as one longer
than the model's context, ``EndpointError.of_one_request``), ``error`` (its message, or
None), ``steps``, the reward and its parts, ``final_answer``, ``messages`` (what the model
and the environment said after the prompt); in ``simulated`` mode also ``user`` (its
``model``, ``temperature``, ``seed``, ``turns`` and how it ``ended``), ``unstated`` (the
goal's constraints the user did not state, ``report.unstated``), ``user_stated_goal`` and
``failure`` (``report.failure``: None, ``user`` or ``agent``; ``user`` too where the user's
endpoint refused a request).
"""

import json
import os
import threading
import urllib.error
import urllib.request
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import NamedTuple

from ..chat.agent import service_tools
from ..core.errors import ConfigError
from . import report, reward
from ..core.answer import content_text
from .episode import Episode, error_text
from .gold import SEND
from .tickets import REPLAY_NOTE, SPOKEN, user_text
from .user import MAX_TURNS

# The keys of a line that say which run it belongs to (``run_header``), besides ``user``.
RUN_KEYS = ("split", "mode", "variant", "model", "temperature", "seed", "max_steps")
# How an episode ends when a request of it was refused (``EndpointError.of_one_request``).
ERROR = "error"
SEND_TOOL = {"type": "function", "function": {
    "name": SEND, "description": "Send the user a message; returns the user's reply.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string", "description": "What to tell the user."}},
                   "required": ["message"], "additionalProperties": False}}}


class Flags(NamedTuple):
    """The command's flags an endpoint's messages name: its URL's, its model's, its key's."""

    url: str = "--base-url"
    model: str = "--model"
    key: str = "--api-key-env"


AGENT, USER = Flags(), Flags("--user-base-url", "--user-model", "--user-api-key-env")
# What an HTTP status most likely means, after the endpoint's own message.
HINTS = {
    401: "; give the endpoint's key in the environment variable named by {key}",
    403: "; give the endpoint's key in the environment variable named by {key}",
    404: "; give the base URL under which /chat/completions lies (often ending in /v1) and a {model} it serves",
}


class EndpointError(ConfigError):
    """An endpoint (of ``flags``) that gave no answer (``status`` None) or answered the HTTP
    error ``status``; ``proven``: it had answered a request of the run before (so the error
    is one request's, such as a conversation longer than the model's context)."""

    def __init__(self, message, status=None, proven=False, flags=AGENT):
        super().__init__(message)
        self.status, self.proven, self.flags = status, proven, flags

    def of_one_request(self):
        """Whether the error ends only the episode that made the request: an HTTP 4xx of an
        endpoint that has answered before. Anything else stops the run."""
        return self.proven and self.status is not None and 400 <= self.status < 500


class Endpoint:
    """An OpenAI-compatible chat endpoint: ``base_url`` (ending in ``/v1`` or wherever
    ``/chat/completions`` lies), ``model``, ``api_key`` (or None), ``temperature``,
    ``timeout`` in seconds, ``seed`` (sent with each request where given), ``flags``: the
    command's flags its messages name (``AGENT``, or ``USER`` for a simulated user's)."""

    def __init__(self, base_url, model, api_key=None, temperature=0.0, timeout=120.0, seed=None, flags=AGENT):
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model, self.api_key, self.temperature, self.timeout = model, api_key, temperature, timeout
        self.seed, self.flags = seed, flags
        self.answered = False

    def open(self, url, body=None):
        """The response to a POST of ``body`` (a GET without one) to ``url``."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        return urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=self.timeout)

    def failed(self, error):
        """The EndpointError of an ``urllib`` error."""
        where = f"{self.flags.url} {self.base_url}"
        if isinstance(error, urllib.error.HTTPError):
            text = error.read().decode("utf-8", "replace")[:300]
            hint = HINTS.get(error.code, "").format(key=self.flags.key, model=self.flags.model)
            return EndpointError(f"{where} ({self.flags.model} {self.model}): the endpoint answered {error.code}: "
                                 f"{text}{hint}", error.code, self.answered, self.flags)
        reason = getattr(error, "reason", error)
        return EndpointError(f"{where}: no answer ({reason}); start the server or fix the URL", flags=self.flags)

    def reachable(self):
        """Raise EndpointError unless the endpoint answers at all, with the key it is given:
        a GET of ``<base_url>/models``, before any long work (any other answer will do: a
        server need not list its models)."""
        try:
            with self.open(self.base_url + "/models"):
                pass
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                raise self.failed(error) from None
        except (urllib.error.URLError, OSError) as error:
            raise self.failed(error) from None

    def answer(self, messages, tools):
        """The assistant message the endpoint answers ``messages`` with (``tools``: None or
        empty for none)."""
        body = {"model": self.model, "messages": messages, "temperature": self.temperature,
                **({"tools": tools} if tools else {}), **({"seed": self.seed} if self.seed is not None else {})}
        try:
            with self.open(self.url, body) as response:
                reply = json.loads(response.read().decode("utf-8"))
        except (urllib.error.URLError, OSError) as error:
            raise self.failed(error) from None
        except ValueError:
            raise EndpointError(f"{self.flags.url} {self.url}: the answer is not JSON: is it an OpenAI-compatible "
                                f"endpoint?", flags=self.flags) from None
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise EndpointError(f"{self.flags.url} {self.url}: the answer has no choices[0].message",
                                flags=self.flags) from None
        self.answered = True
        return message


def tools_of(ready, services, mode):
    """The OpenAI tools of an episode: its services' tools, then ``send_message_to_user``."""
    tools = [tool for name in services for tool in service_tools(ready.schemas[name])]
    return tools + ([SEND_TOOL] if mode in SPOKEN else [])


def run_call(episode, call):
    """The ``tool`` message answering one tool call of the model."""
    function = call.get("function") or {}
    name = function.get("name")
    try:
        arguments = function.get("arguments") or {}
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        content = error_text("the arguments are not JSON: write them as a JSON object")
    else:
        if name == SEND and episode.mode in SPOKEN:
            content = (episode.send_message_to_user(arguments.get("message")) if isinstance(arguments, dict)
                       else error_text("the arguments must be a JSON object"))
        else:
            content = episode.call(name, arguments)
    return {"role": "tool", "tool_call_id": call.get("id") or "", "name": name, "content": content}


def run_header(endpoint, split, mode, max_steps, variant=None, user_model=None):
    """What every line of one run holds alike: ``split``, ``mode``, ``variant``, the agent's
    ``model``, ``temperature``, ``seed``, ``max_steps``; in ``simulated`` mode ``user``
    (its ``model``, ``temperature``, ``seed``)."""
    header = {"split": split, "mode": mode, "variant": variant, "model": endpoint.model,
              "temperature": endpoint.temperature, "seed": endpoint.seed, "max_steps": max_steps}
    if user_model is not None:
        model = user_model.endpoint
        header["user"] = {"model": model.model, "temperature": model.temperature, "seed": model.seed}
    return header


class Stopped(Exception):
    """The run stopped (an interruption, or another episode's error) before this episode ended."""


def play_episode(endpoint, ready, row, unseen, max_steps, variant=None, user_model=None, stop=None):
    """Play one episode; its JSON line as a dict. ``stop``: a ``threading.Event`` that, once
    set, ends the episode before its next request (``Stopped``)."""
    prompt = [dict(message) for message in row["prompt"]]
    user = None
    if row["mode"] == "simulated":
        if user_model is None:
            raise ConfigError("--mode simulated: give the user's model (--user-base-url and --user-model)")
        user = user_model.user_of(ready.schemas, row)
    services, tools = ready.services(row["services"]), tools_of(ready, row["services"], row["mode"])
    said, final, ended, error, episode = [], None, "max_steps", None, None
    try:
        if user is not None:
            opening = user.opening()
            prompt[-1]["content"] = f"{opening}\n\n({user_text('ended')})" if user.ended else opening
        episode = Episode(services, ready.path, row, user)
        for _ in range(max_steps):
            if stop is not None and stop.is_set():
                raise Stopped()
            message = endpoint.answer(prompt + said, tools)
            calls = message.get("tool_calls") or []
            content = content_text(message.get("content"))
            said.append({"role": "assistant", "content": content, **({"tool_calls": calls} if calls else {})})
            if not calls:
                final, ended = content, "answer"
                break
            said.extend(run_call(episode, call) for call in calls)
    except EndpointError as failed:
        if not failed.of_one_request():
            raise
        ended, error = ERROR, failed
    episode = episode or Episode(services, ready.path, row, user)
    parts = reward.parts(episode, final)
    if user is not None and user.ended == MAX_TURNS:
        ended = MAX_TURNS
    header = run_header(endpoint, ready.name, ready.mode, max_steps, variant, user_model)
    record = {"id": row["id"], "dialogue_id": row["dialogue_id"], **header, "services": row["services"],
              "unseen_services": [s for s in row["services"] if s in unseen], "ended": ended,
              "error": None if error is None else str(error),
              "steps": sum(m["role"] == "assistant" for m in said), **parts,
              "transactions": len(row["outcome"]["transactions"]), "final_answer": final, "messages": said}
    if user is not None:
        missing = report.unstated(row["goal"], episode, user.said)
        blamed = "user" if error is not None and error.flags == USER else \
            report.failure(parts["reward"], missing, user.ended is not None)
        record.update(user={**header["user"], "turns": len(user.said), "ended": user.ended},
                      unstated=missing, user_stated_goal=not missing, failure=None if parts["reward"] >= 1.0 else blamed)
    return record


# ---------------------------------------------------------------- files and summary

def run_of(line):
    """The run a line belongs to: its ``run_header`` part (the user's turns and end aside)."""
    user = line.get("user")
    return {**{key: line.get(key) for key in RUN_KEYS},
            "user": None if user is None else {key: user.get(key) for key in ("model", "temperature", "seed")}}


def finished(path, header=None):
    """The lines of ``path`` already written whole, by id; a last line cut short by an
    interruption is removed (its episode is played again). ``header``: the ``run_header``
    of the run (a line of another run is an error, not resumed)."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        data = f.read()
    whole = data[:data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        with open(path, "r+b") as f:
            f.truncate(len(whole))
    done, run = {}, None if header is None else run_of(header)
    for number, line in enumerate(whole.splitlines(), start=1):
        try:
            record = json.loads(line)
            if not all(key in record for key in ("id", *RUN_KEYS)):
                raise KeyError(number)
        except (ValueError, KeyError, TypeError):  # UnicodeDecodeError is a ValueError
            raise ConfigError(f"--out {path}: line {number} is not an episode's line; give a new file, or the "
                              f"file of the run to resume") from None
        other = {key: (value, run[key]) for key, value in run_of(record).items() if run and value != run[key]}
        if other:
            differences = "; ".join(f"{key} {line!r}, not {now!r}" for key, (line, now) in other.items())
            raise ConfigError(f"--out {path}: line {number} is an episode of another run ({differences}); give a "
                              f"new file, or the same flags to resume it")
        done[record["id"]] = record
    return done


def domain(service):
    return service.rsplit("_", 1)[0] if service.rsplit("_", 1)[-1].isdigit() else service


def summary(records):
    """The summary of episode lines: the mean reward and parts overall, per domain (an
    episode counts in each of its services' domains), for episodes of seen services only
    and with an unseen one, and for those with a transaction."""
    def means(group):
        return {"episodes": len(group), **{part: sum(r[part] for r in group) / len(group) for part in reward.PARTS}} \
            if group else {"episodes": 0}

    by_domain = defaultdict(list)
    for record in records:
        for name in sorted({domain(s) for s in record["services"]}):
            by_domain[name].append(record)
    made = {
        "overall": means(records),
        "seen": means([r for r in records if not r["unseen_services"]]),
        "unseen": means([r for r in records if r["unseen_services"]]),
        "with_transactions": means([r for r in records if r["transactions"]]),
        "without_transactions": means([r for r in records if not r["transactions"]]),
        "ended_at_max_steps": sum(r["ended"] == "max_steps" for r in records),
        "ended_with_error": sum(r["ended"] == ERROR for r in records),
        "per_domain": {name: means(group) for name, group in sorted(by_domain.items())},
    }
    if any("failure" in r for r in records):  # a simulated user: its failures apart from the agent's
        made["failures"] = {"agent": sum(r.get("failure") == "agent" for r in records),
                            "user": sum(r.get("failure") == "user" for r in records)}
        made["without_user_failures"] = means([r for r in records if r.get("failure") != "user"])
        made["ended_at_max_user_turns"] = sum(r["ended"] == MAX_TURNS for r in records)
    return made


def evaluate(endpoint, ready, out, *, unseen=(), limit=None, concurrency=4, max_steps=30, variant=None,
             progress=None, user_model=None, warn=None):
    """Play the episodes of ``ready``, writing each line to ``out`` as it ends; episodes
    already there are kept, not played again.

    Args:
        endpoint: an ``Endpoint``.
        ready: a ``splits.Split`` (its episodes, schemas and database).
        out: the JSON-lines file (appended to; a file of another run, ``run_header``, is refused).
        unseen: the services the train split lacks.
        limit: play only the first ``limit`` episodes.
        concurrency: episodes played at once (threads).
        max_steps: answers of the model per episode.
        variant: the SGD-X variant of ``ready``, written in each line.
        progress: ``progress(done, total)``, called as episodes end.
        user_model: in ``simulated`` mode, the user's model (``user.UserModel``).
        warn: ``warn(line)``, called with a ``warning: ...`` line for each episode that ended
            at an error of an endpoint (``EndpointError.of_one_request``: its line has
            ``ended: "error"`` and the ``error``).

    Returns:
        The summary (``summary``) of every line of ``out`` that belongs to the episodes asked
        for, with ``left_out`` (the split's dialogues left out of the judged set, by reason)
        and in ``replay`` mode ``replay`` (``tickets.REPLAY_NOTE``: what the mode suits).

    Raises:
        ConfigError: ``out`` holds lines of another run, or what is not an episode's line.
        EndpointError: an endpoint does not answer, or answers an error before it answered once.

    Example:
        >>> evaluate(Endpoint("http://127.0.0.1:8000/v1", "my-model"), prepare("validation"), "episodes.jsonl")
    """
    rows = ready.episodes if limit is None else ready.episodes.select(range(min(limit, len(ready.episodes))))
    wanted = set(rows["id"])
    done = finished(out, run_header(endpoint, ready.name, ready.mode, max_steps, variant, user_model))
    todo = [row for row in rows if row["id"] not in done]
    unseen, stop = frozenset(unseen), threading.Event()
    count = len(wanted & set(done))
    if progress:
        progress(count, len(rows))
    pool = ThreadPoolExecutor(max_workers=concurrency)
    try:
        playing = [pool.submit(play_episode, endpoint, ready, row, unseen, max_steps, variant, user_model, stop)
                   for row in todo]
        with open(out, "a", encoding="utf-8") as f:
            for ended in as_completed(playing):  # each line written as its episode ends
                record = ended.result()
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
                f.flush()
                done[record["id"]] = record
                count += 1
                if warn and record["ended"] == ERROR:
                    warn(f"warning: episode {record['id']} ended at an error of the endpoint: {record['error']}")
                if progress:
                    progress(count, len(rows))
    finally:
        # An interruption or an error ends the run now: the episodes still playing stop before
        # their next request, and none of them is written (they are played again on resume).
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    made = summary([record for key, record in done.items() if key in wanted])
    made["left_out"] = dict(ready.left_out)
    if ready.mode == "replay":
        made["replay"] = REPLAY_NOTE
    return made
