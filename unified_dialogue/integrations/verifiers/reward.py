"""A rollout's reward and parts, and its line as the evaluation command writes one: the
environment's own (``environment.reward.parts``, ``environment.report``) on the episode
rebuilt from the rollout's record (``record.episode_of``), with the agent's final answer
read from the trace.
"""

from verifiers.v1.types import content_text

from ...environment import gold, report, reward
from ...environment.episode import Episode
from ...environment.play import ERROR
from ...environment.services import Services
from ...environment.user import MAX_TURNS
from .record import RECORD_KEYS, episode_of

# Where a rollout's line is kept in its trace (``trace.info``), for ``summary``.
INFO_KEY = "sgd"


def final_answer(trace):
    """The agent's final answer: its last message where that is an answer without a tool call
    (None where the rollout ended otherwise: at its most turns, or at an error)."""
    messages = trace.messages
    last = messages[-1] if messages else None
    if last is None or last.role != "assistant" or getattr(last, "tool_calls", None):
        return None
    return content_text(last.content)


def record_of(trace):
    """The rollout's record (``record.RECORD_KEYS``) from its state."""
    state = trace.state
    return {key: list(getattr(state, key, None) or ()) for key in RECORD_KEYS}


def scored(data, trace):
    """The reward and parts of a rollout of the task of ``data`` (an ``SgdData``); its line
    (``line``) is kept in ``trace.info`` as well."""
    found = trace.info.get(INFO_KEY)
    if found is None:
        episode = episode_of(data, record_of(trace))
        found = trace.info[INFO_KEY] = line(data, episode, final_answer(trace), trace)
    return {part: found[part] for part in reward.PARTS}


def line(data, episode, final, trace):
    """What the evaluation command's line of the episode holds that its summary reads: the
    reward and parts, ``services``, ``unseen_services``, ``domains``, ``transactions``,
    ``ended``, ``steps``; in ``simulated`` mode ``unstated``, ``user_stated_goal`` and
    ``failure`` (``environment.report``)."""
    parts = reward.parts(episode, final)
    row = data.episode
    ended = "answer" if final is not None else (ERROR if trace.errors else "max_steps")
    made = {"id": data.id, "dialogue_id": row["dialogue_id"], "mode": data.mode, "services": row["services"],
            "unseen_services": data.unseen_services, "domains": data.domains, **parts,
            "transactions": len(row["outcome"]["transactions"]),
            "steps": sum(message.role == "assistant" for message in trace.messages)}
    user = episode.user
    if user is not None:
        if user.ended == MAX_TURNS:
            ended = MAX_TURNS
        missing = report.unstated(row["goal"], episode, user.said)
        blamed = report.failure(parts["reward"], missing, user.ended is not None)
        made.update(user={"turns": len(user.said), "ended": user.ended}, unstated=missing,
                    user_stated_goal=not missing, failure=None if parts["reward"] >= 1.0 else blamed)
    return {**made, "ended": ended}


def gold_parts(data):
    """The reward and parts the gold agent earns in the episode of ``data``; in ``simulated``
    mode against the dialogue's own user turns, replayed."""
    row = data.episode if data.mode != "simulated" else {**data.episode, "mode": "replay"}
    episode = Episode(Services(data.schemas[name] for name in row["services"]), data.database, row)
    return reward.parts(episode, gold.play(episode, data.gold))
