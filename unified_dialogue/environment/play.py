"""Playing episodes against a served model: any OpenAI-compatible chat endpoint with tools
(vLLM, SGLang, llama.cpp's server, ``transformers serve``, ...), one episode per dialogue
of a split (or of a sample, ``chosen``), each as many times as the run's trials, each
written as one JSON line as soon as it ends, then a summary (``results.summary``).

An episode sends the prompt and the tools (exactly ``agent-call-chat``'s, and
``send_message_to_user`` in ``replay`` and ``simulated`` modes) to
``<base_url>/chat/completions`` (``endpoint.Endpoint``), runs the tool calls of each
answer in the episode, sends their results back as ``tool`` messages, and stops at the
first answer without a tool call (the final answer) or after ``max_steps`` answers. An
answer whose text holds a tool call the server did not parse (``text_calls``) is a final
answer too, counted. In ``simulated`` mode the user is a second model
(``user.SimulatedUser``), which writes the first user message and answers each message the
agent sends it.

A line: ``id``, ``dialogue_id``, ``trial`` (0 the first) and ``trial_seed`` (the seed its
requests sent, ``runs.trial_seed``), the run's ``split``, ``mode``, ``variant``,
``model``, ``temperature``, ``seed``, ``max_steps``, ``max_tokens`` and
``reward_version`` (``runs.run_header``: a file of another run is not resumed),
``services``, ``unseen_services``, ``ended`` (``answer``, ``max_steps``,
``max_user_turns``: the simulated user spoke its most turns without ending the
conversation, a failed episode, reward 0.0; or ``error``: an endpoint that had answered
before refused a request of the episode, such as one longer than the model's context,
``EndpointError.of_one_request``), ``error`` (its message, or None), ``steps``, the
reward and its parts, ``transactions`` (the gold outcome's count), ``text_tool_calls``
(the tool calls given as text in the model's answers), ``final_answer``, ``messages``
(what the model and the environment said after the prompt); in ``simulated`` mode also
``user`` (its ``model``, ``temperature``, ``seed``, ``trial_seed`` (this trial's), ``max_turns``,
``instruction`` (None: ``user-chat``'s; else ``runs.digest`` of it), ``max_tokens``,
``opening``: its first message, the prompt's last, ``turns`` and how it ``ended``),
``unstated`` (the goal's constraints the user did not state, ``report.unstated``),
``user_stated_goal`` and ``failure`` (``report.failure``: None, ``user`` or ``agent``;
``user`` too where the user's endpoint refused a request). An episode whose request still
failed after the retries (``endpoint``: a 429, a 5xx, no answer in time) has no line: a
rerun plays it.
"""

import json
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

from ..chat.agent import service_tools
from ..core.answer import content_text
from ..core.errors import ConfigError
from . import report, reward
from .endpoint import USER, EndpointError, Stopped
from .episode import Episode, error_text
from .gold import SEND
from .results import ERROR, summary
from .runs import finished, run_header, sample, trial_seed
from .text_calls import text_calls
from .tickets import REPLAY_NOTE, SPOKEN, user_text
from .user import MAX_TURNS

SEND_TOOL = {"type": "function", "function": {
    "name": SEND, "description": "Send the user a message; returns the user's reply.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string", "description": "What to tell the user."}},
                   "required": ["message"], "additionalProperties": False}}}


class Unplayed(Exception):
    """An episode's request still failing after the retries (a 429, a 5xx, no answer in
    time: ``EndpointError.transient``): the episode is not written, and a rerun plays it."""

    def __init__(self, key, error):
        super().__init__(str(error))
        self.key, self.error = key, error


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


def play_episode(endpoint, ready, row, unseen, max_steps, variant=None, user_model=None, stop=None, trial=0):
    """Play one trial (``trial``: 0 the first) of one episode; its JSON line as a dict.
    ``stop``: a ``threading.Event`` that, once set, ends the episode before its next
    request (``Stopped``). Raises ``Unplayed`` where a request still fails after the
    retries, once the endpoint has answered before."""
    prompt = [dict(message) for message in row["prompt"]]
    user = None
    if row["mode"] == "simulated":
        if user_model is None:
            raise ConfigError("--mode simulated: give the user's model (--user-base-url and --user-model)")
        user = user_model.user_of(ready.schemas, row, trial_seed(user_model.endpoint.seed, trial))
    services, tools = ready.services(row["services"]), tools_of(ready, row["services"], row["mode"])
    said, final, ended, error, episode = [], None, "max_steps", None, None
    seed = trial_seed(endpoint.seed, trial)
    try:
        if user is not None:
            opening = user.opening()
            prompt[-1]["content"] = f"{opening}\n\n({user_text('ended')})" if user.ended else opening
        episode = Episode(services, ready.path, row, user)
        for _ in range(max_steps):
            if stop is not None and stop.is_set():
                raise Stopped()
            message = endpoint.answer(prompt + said, tools, seed, stop)
            calls = message.get("tool_calls") or []
            content = content_text(message.get("content"))
            said.append({"role": "assistant", "content": content, **({"tool_calls": calls} if calls else {})})
            if not calls:
                final, ended = content, "answer"
                break
            said.extend(run_call(episode, call) for call in calls)
    except EndpointError as failed:
        if failed.transient and failed.proven:
            raise Unplayed((row["id"], trial), failed) from None
        if not failed.of_one_request():
            raise
        ended, error = ERROR, failed
    episode = episode or Episode(services, ready.path, row, user)
    parts = reward.parts(episode, final)
    if user is not None and user.ended == MAX_TURNS:
        ended = MAX_TURNS
    header = run_header(endpoint, ready.name, ready.mode, max_steps, variant, user_model)
    in_text = sum(sum(text_calls(m["content"]).values()) for m in said if m["role"] == "assistant")
    record = {"id": row["id"], "dialogue_id": row["dialogue_id"], "trial": trial, "trial_seed": seed, **header,
              "services": row["services"], "unseen_services": [s for s in row["services"] if s in unseen],
              "ended": ended, "error": None if error is None else str(error),
              "steps": sum(m["role"] == "assistant" for m in said), **parts,
              "transactions": len(row["outcome"]["transactions"]), "text_tool_calls": in_text,
              "final_answer": final, "messages": said}
    if user is not None:
        missing = report.unstated(row["goal"], episode, user.said)
        blamed = "user" if error is not None and error.flags == USER else \
            report.failure(parts["reward"], missing, user.ended is not None)
        record.update(user={**header["user"], "trial_seed": user.seed, "opening": user.said[0] if user.said else None,
                            "turns": len(user.said), "ended": user.ended},
                      unstated=missing, user_stated_goal=not missing, failure=None if parts["reward"] >= 1.0 else blamed)
    return record


def chosen(ready, limit=None, size=None, seed=0):
    """The episodes a run plays: all, the first ``limit``, or ``size`` drawn across domains
    with ``seed`` (``runs.sample``)."""
    rows = ready.episodes
    if size is not None:
        return rows.select(sample(rows["services"], size, seed))
    return rows if limit is None else rows.select(range(min(limit, len(rows))))


def evaluate(endpoint, ready, out, *, unseen=(), limit=None, concurrency=4, max_steps=30, variant=None,
             progress=None, user_model=None, warn=None, trials=1, size=None, sample_seed=0, run=None):
    """Play the episodes of ``ready``, ``trials`` times each, writing each line to ``out`` as
    it ends; the (episode, trial) pairs already there are kept, not played again.

    Args:
        endpoint: an ``Endpoint``.
        ready: a ``splits.Split`` (its episodes, schemas and database).
        out: the JSON-lines file (appended to; a file of another run, ``run_header``, is refused).
        unseen: the services the train split lacks.
        limit: play only the first ``limit`` episodes.
        size, sample_seed: play ``size`` episodes drawn across domains (``chosen``).
        concurrency: episodes played at once (threads).
        max_steps: answers of the model per episode.
        variant: the SGD-X variant of ``ready``, written in each line.
        progress: ``progress(done, total)``, called as episodes end.
        user_model: in ``simulated`` mode, the user's model (``user.UserModel``).
        warn: ``warn(line)``, called with a ``warning: ...`` line for each episode that ended
            at an error of an endpoint (``EndpointError.of_one_request``: its line has
            ``ended: "error"`` and the ``error``), and for the episodes left to a rerun.
        trials: the trials of each episode (trial ``t`` sends the seed ``runs.trial_seed``).
        run: what names the run in the summary (``results.summary``).

    Returns:
        The summary (``results.summary``) of every line of ``out`` that belongs to the
        episodes and trials asked for, with ``left_out`` (the split's dialogues left out of the
        judged set, by reason) and in ``replay`` mode ``replay`` (``tickets.REPLAY_NOTE``: what
        the mode suits).

    Raises:
        ConfigError: ``out`` holds lines of another run, or what is not an episode's line.
        EndpointError: an endpoint does not answer, or answers an error before it answered once.

    Example:
        >>> evaluate(Endpoint("http://127.0.0.1:8000/v1", "my-model"), prepare("validation"), "episodes.jsonl")
    """
    rows = chosen(ready, limit, size, sample_seed)
    wanted = {(key, trial) for key in rows["id"] for trial in range(trials)}
    done = finished(out, run_header(endpoint, ready.name, ready.mode, max_steps, variant, user_model))
    todo = [(row, trial) for trial in range(trials) for row in rows if (row["id"], trial) not in done]
    unseen, stop, unplayed = frozenset(unseen), threading.Event(), []
    count = len(wanted & set(done))
    if progress:
        progress(count, len(wanted))
    pool = ThreadPoolExecutor(max_workers=concurrency)
    try:
        playing = [pool.submit(play_episode, endpoint, ready, row, unseen, max_steps, variant, user_model, stop, trial)
                   for row, trial in todo]
        with open(out, "a", encoding="utf-8") as f:
            for ended in as_completed(playing):  # each line written as its episode ends
                try:
                    record = ended.result()
                except Unplayed as left:
                    unplayed.append(left)
                    continue
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
                f.flush()
                done[record["id"], record["trial"]] = record
                count += 1
                if warn and record["ended"] == ERROR:
                    warn(f"warning: episode {record['id']} ended at an error of the endpoint: {record['error']}")
                if progress:
                    progress(count, len(wanted))
    finally:
        # An interruption or an error ends the run now: the episodes still playing stop before
        # their next request, and none of them is written (they are played again on resume).
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    if warn and unplayed:
        warn(f"warning: {len(unplayed)} episode trial(s) not played, their requests still failing after the "
             f"retries (e.g. {unplayed[0].key[0]}: {unplayed[0].error}); left out of the means: run the same "
             f"command again to play them")
    made = summary([record for key, record in done.items() if key in wanted], run, trials, len(unplayed))
    made["left_out"] = dict(ready.left_out)
    if ready.mode == "replay":
        made["replay"] = REPLAY_NOTE
    return made
