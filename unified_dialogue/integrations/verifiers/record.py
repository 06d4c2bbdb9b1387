"""An episode's record, as JSON, and the episode rebuilt from it.

verifiers keeps a rollout's state as JSON and hands it from process to process (the host
that scores, the tool server that answers the calls). What is kept is what the episode
did, never the episode itself: ``calls`` (each tool call of the agent, ``{"name",
"arguments"}``, in order, ``send_message_to_user`` among them), ``messages`` (what the
agent sent the user) and, in ``simulated`` mode, ``user_answers`` (every answer of the
simulated user's model, its opening first). ``episode_of`` plays the calls again on the
split's database, which is read only, so the same record always gives the same episode:
the same answers, transactions and messages, the simulated user's turns read from the
record instead of its model. The reward of the rebuilt episode is the environment's
(``environment.reward.parts``), as the evaluation command computes it.
"""

import json

from ...core.answer import content_text
from ...environment.episode import Episode
from ...environment.play import run_call
from ...environment.services import Services
from ...environment.user import UserModel

RECORD_KEYS = ("calls", "messages", "user_answers")


class Recorded:
    """An endpoint (``endpoint.Endpoint``'s ``answer``) for a simulated user: the answers of
    ``answers`` in order, then, where ``live`` is given, ``live``'s answers, each added to
    ``answers`` (the record grows as the user speaks)."""

    def __init__(self, answers, live=None):
        self.answers, self.live, self.used = list(answers), live, 0

    def answer(self, messages, tools):
        if self.used == len(self.answers):
            if self.live is None:
                raise ValueError("the record of the simulated user ends before the episode does")
            self.answers.append(content_text(self.live.answer(messages, tools).get("content")))
        self.used += 1
        return {"role": "assistant", "content": self.answers[self.used - 1]}


def simulated_user(data, answers, live=None):
    """The episode's ``SimulatedUser`` (``data``: an ``SgdData``), speaking ``answers``
    first, then ``live``'s; its opening turn spoken."""
    user = UserModel(Recorded(answers, live), data.max_user_turns, data.user_instruction).user_of(
        data.schemas, data.episode)
    user.opening()
    return user


def episode_of(data, record, live=None):
    """The ``Episode`` of ``data`` (an ``SgdData``) after the calls of ``record`` (a dict of
    ``RECORD_KEYS``), played again on the database; ``live``: where the record's user answers
    end, the simulated user's endpoint (None: none; the record is the whole episode)."""
    user = simulated_user(data, record.get("user_answers") or (), live) if data.mode == "simulated" else None
    episode = Episode(Services(data.schemas[name] for name in data.episode["services"]), data.database,
                      data.episode, user)
    for call in record.get("calls") or ():
        run_call(episode, {"function": call})
    return episode


def call(data, record, name, arguments, live=None):
    """Make one tool call in the episode of ``record`` (the agent's next); the text the
    agent reads, and the record after it."""
    episode = episode_of(data, record, live)
    answer = run_call(episode, {"function": {"name": name, "arguments": arguments}})["content"]
    after = {"calls": [*(record.get("calls") or ()), {"name": name, "arguments": arguments}],
             "messages": list(episode.messages),
             "user_answers": list(episode.user.endpoint.answers) if episode.user is not None else []}
    json.dumps(after)  # a record is JSON: refuse anything else here, not in another process
    return answer, after
