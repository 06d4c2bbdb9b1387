"""Playing episodes against a served model: any OpenAI-compatible chat endpoint with tools
(vLLM, llama.cpp's server, ...), one episode per dialogue of a split, each written as one
JSON line as soon as it ends, then a summary.

An episode sends the prompt and the tools (exactly ``agent-call-chat``'s, and
``send_message_to_user`` in ``replay`` and ``simulated`` modes) to
``<base_url>/chat/completions``, runs the tool calls of each answer in the episode, sends
their results back as ``tool`` messages, and stops at the first answer without a tool call
(the final answer) or after ``max_steps`` answers. In ``simulated`` mode the user is a
second model (``user.SimulatedUser``), which writes the first user message and answers
each message the agent sends it. A line: ``id``, ``dialogue_id``, ``mode``, ``variant``,
``services``, ``unseen_services``, ``ended`` (``answer``, ``max_steps``, or
``max_user_turns``: the simulated user spoke its most turns without ending the
conversation, a failed episode, reward 0.0), ``steps``, the reward and its parts,
``final_answer``, ``messages`` (what the model and the environment said after the prompt),
``temperature`` and ``seed`` (the agent's); in ``simulated`` mode also ``user`` (its
``model``, ``temperature``, ``seed``, ``turns`` and how it ``ended``), ``unstated`` (the
goal's constraints the user did not state, ``report.unstated``), ``user_stated_goal`` and
``failure`` (``report.failure``: None, ``user`` or ``agent``).
"""

import json
import os
import threading
import urllib.error
import urllib.request
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from ..chat.agent import service_tools
from ..core.errors import ConfigError
from . import report, reward
from ..core.answer import content_text
from .episode import Episode, error_text
from .gold import SEND
from .tickets import SPOKEN, user_text
from .user import MAX_TURNS

SEND_TOOL = {"type": "function", "function": {
    "name": SEND, "description": "Send the user a message; returns the user's reply.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string", "description": "What to tell the user."}},
                   "required": ["message"], "additionalProperties": False}}}


class Endpoint:
    """An OpenAI-compatible chat endpoint: ``base_url`` (ending in ``/v1`` or wherever
    ``/chat/completions`` lies), ``model``, ``api_key`` (or None), ``temperature``,
    ``timeout`` in seconds, ``seed`` (sent with each request where given)."""

    def __init__(self, base_url, model, api_key=None, temperature=0.0, timeout=120.0, seed=None):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.temperature, self.timeout = model, api_key, temperature, timeout
        self.seed = seed

    def answer(self, messages, tools):
        """The assistant message the endpoint answers ``messages`` with (``tools``: None or
        empty for none)."""
        body = {"model": self.model, "messages": messages, "temperature": self.temperature,
                **({"tools": tools} if tools else {}), **({"seed": self.seed} if self.seed is not None else {})}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, json.dumps(body, ensure_ascii=False).encode("utf-8"), headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                reply = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", "replace")[:300]
            raise ConfigError(f"--base-url {self.url}: the endpoint answered {error.code}: {text}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise ConfigError(f"--base-url {self.url}: no answer ({reason}); start the server or fix the URL") from None
        except ValueError:
            raise ConfigError(f"--base-url {self.url}: the answer is not JSON: is it an OpenAI-compatible "
                              f"endpoint?") from None
        try:
            return reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise ConfigError(f"--base-url {self.url}: the answer has no choices[0].message") from None


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


def play_episode(endpoint, ready, row, unseen, max_steps, variant=None, user_model=None):
    """Play one episode; its JSON line as a dict."""
    prompt = [dict(message) for message in row["prompt"]]
    user = None
    if row["mode"] == "simulated":
        if user_model is None:
            raise ConfigError("--mode simulated: give the user's model (--user-base-url and --user-model)")
        user = user_model.user_of(ready.schemas, row)
        opening = user.opening()
        prompt[-1]["content"] = f"{opening}\n\n({user_text('ended')})" if user.ended else opening
    episode = Episode(ready.services(row["services"]), ready.path, row, user)
    tools = tools_of(ready, row["services"], row["mode"])
    said, final, ended = [], None, "max_steps"
    for _ in range(max_steps):
        message = endpoint.answer(prompt + said, tools)
        calls = message.get("tool_calls") or []
        content = content_text(message.get("content"))
        said.append({"role": "assistant", "content": content, **({"tool_calls": calls} if calls else {})})
        if not calls:
            final, ended = content, "answer"
            break
        said.extend(run_call(episode, call) for call in calls)
    parts = reward.parts(episode, final)
    if user is not None and user.ended == MAX_TURNS:
        ended = MAX_TURNS
    record = {"id": row["id"], "dialogue_id": row["dialogue_id"], "mode": row["mode"], "variant": variant,
              "services": row["services"],
              "unseen_services": [s for s in row["services"] if s in unseen], "ended": ended,
              "steps": sum(m["role"] == "assistant" for m in said), **parts,
              "transactions": len(row["outcome"]["transactions"]), "final_answer": final, "messages": said,
              "temperature": endpoint.temperature, "seed": endpoint.seed}
    if user is not None:
        missing = report.unstated(row["goal"], episode, user.said)
        model = user_model.endpoint
        record.update(user={"model": model.model, "temperature": model.temperature, "seed": model.seed,
                            "turns": len(user.said), "ended": user.ended},
                      unstated=missing, user_stated_goal=not missing,
                      failure=report.failure(parts["reward"], missing, user.ended is not None))
    return record


# ---------------------------------------------------------------- files and summary

def finished(path, run=None):
    """The lines of ``path`` already written whole, by id; a last line cut short by an
    interruption is removed (its episode is played again). ``run``: ``{"mode", "variant"}``
    every line must have (a file of another run is an error, not resumed)."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        data = f.read()
    whole = data[:data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        with open(path, "r+b") as f:
            f.truncate(len(whole))
    done = {}
    for number, line in enumerate(whole.decode("utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
            done[record["id"]] = record
        except (ValueError, KeyError, TypeError):
            raise ConfigError(f"--out {path}: line {number} is not an episode's line; give a new file, or the "
                              f"file of the run to resume") from None
        other = {key: record.get(key) for key in run or {} if record.get(key) != run[key]}
        if other:
            raise ConfigError(f"--out {path}: line {number} is an episode of another run "
                              f"({', '.join(f'{k} {v!r}' for k, v in other.items())}); give a new file")
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
        "per_domain": {name: means(group) for name, group in sorted(by_domain.items())},
    }
    if any("failure" in r for r in records):  # a simulated user: its failures apart from the agent's
        made["failures"] = {"agent": sum(r.get("failure") == "agent" for r in records),
                            "user": sum(r.get("failure") == "user" for r in records)}
        made["without_user_failures"] = means([r for r in records if r.get("failure") != "user"])
        made["ended_at_max_user_turns"] = sum(r["ended"] == MAX_TURNS for r in records)
    return made


def evaluate(endpoint, ready, out, *, unseen=(), limit=None, concurrency=4, max_steps=30, variant=None,
             progress=None, user_model=None):
    """Play the episodes of ``ready``, writing each line to ``out`` as it ends; episodes
    already there are kept, not played again.

    Args:
        endpoint: an ``Endpoint``.
        ready: a ``splits.Split`` (its episodes, schemas and database).
        out: the JSON-lines file (appended to; a file of another mode or variant is refused).
        unseen: the services the train split lacks.
        limit: play only the first ``limit`` episodes.
        concurrency: episodes played at once (threads).
        max_steps: answers of the model per episode.
        variant: the SGD-X variant of ``ready``, written in each line.
        progress: ``progress(done, total)``, called as episodes end.
        user_model: in ``simulated`` mode, the user's model (``user.UserModel``).

    Returns:
        The summary (``summary``) of every line of ``out`` that belongs to the episodes asked for.

    Raises:
        ConfigError: the endpoint does not answer, or answers an error.

    Example:
        >>> evaluate(Endpoint("http://127.0.0.1:8000/v1", "my-model"), prepare("validation"), "episodes.jsonl")
    """
    rows = ready.episodes if limit is None else ready.episodes.select(range(min(limit, len(ready.episodes))))
    done = finished(out, {"mode": ready.mode, "variant": variant})
    todo = [row for row in rows if row["id"] not in done]
    lock, unseen = threading.Lock(), frozenset(unseen)
    if progress:
        progress(len(rows) - len(todo), len(rows))
    pool = ThreadPoolExecutor(max_workers=concurrency)
    try:
        with open(out, "a", encoding="utf-8") as f:
            for record in pool.map(lambda row: play_episode(endpoint, ready, row, unseen, max_steps, variant,
                                                            user_model), todo):
                with lock:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")
                    f.flush()
                    done[record["id"]] = record
                    if progress:
                        progress(sum(row_id in done for row_id in rows["id"]), len(rows))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    wanted = set(rows["id"])
    return summary([record for key, record in done.items() if key in wanted])
