"""The gold agent: a policy that plays a dialogue's own service calls and system turns,
read from its ``agent-chat`` row. It is the environment's proof: it earns reward 1.0 on
every dialogue, and each of its calls gets the rows the dialogue recorded.

``actions(messages, mode)`` gives the agent's assistant messages in order, each
``{"content", "tool_calls"}`` in the OpenAI format (arguments as JSON text): in ``ticket``
mode every service call, then one final answer composed from the certified gold
(``composed``: what was booked or found, and the values asked for); in ``replay``
mode each system turn's call, then the turn sent with ``send_message_to_user``, except the
last system turn, the final answer. ``play(episode, actions)`` runs them in an episode;
``answerer(rows, mode)`` answers an OpenAI chat request as the gold agent would (the
stand-in server's answer function of the evaluation tests and docs).
"""

import json

from ..chat.agent import plain_messages
from .final_state import unanswered_refusals
from .tickets import SPOKEN

SEND = "send_message_to_user"


def call_message(name, arguments):
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": f"call_{name}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]}


def words(slot):
    return slot.replace("_", " ")


def item_text(item):
    return ", ".join(f"{words(slot['slot'])} {slot['values'][0]}" for slot in item)


def composed(outcome):
    """The gold agent's final answer in ``ticket`` mode, from the certified gold: each
    booking by its identifying values, each refused attempt, each item found, and each
    value asked for, said for its item (a yes-or-no value in words), one line each."""
    lines = [f"Done: {words(call['intent'])}: {item_text(call['item'])}." for call in outcome["transactions"]]
    lines += [f"Sorry, the service could not do it: {words(call['intent'])}: {item_text(call['item'])}."
              for call in unanswered_refusals(outcome)]
    lines += [f"Found: {item_text(entry['item'])}." for entry in outcome.get("found") or ()]
    for entry in outcome["told"]:
        value = entry["values"][-1] if len(entry["values"]) > 1 else entry["values"][0]
        answer = {"true": "yes", "false": "no"}.get(value.casefold(), value)
        about = f"{item_text(entry['item'])} — " if entry["item"] else ""
        lines.append(f"{about}{words(entry['slot'])}: {answer}.")
    return "\n".join(lines) or "Done."


def actions(messages, mode, outcome=None):
    """The gold agent's assistant messages for a dialogue's ``agent-chat`` messages (in
    ``ticket`` mode with the episode's ``outcome``, the final answer ``composed`` from it)."""
    messages = plain_messages(messages)
    said = [m["content"] for m in messages if m["role"] == "assistant" and not m.get("tool_calls")]
    steps, turn = [], 0
    for message in messages:
        if message["role"] != "assistant":
            continue
        if message.get("tool_calls"):
            steps += [call_message(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
            continue
        turn += 1
        if mode in SPOKEN and turn < len(said):
            steps.append(call_message(SEND, {"message": message["content"]}))
    if mode in SPOKEN:
        final = said[-1] if said else ""
    else:
        final = composed(outcome) if outcome is not None else "\n".join(said)
    steps.append({"role": "assistant", "content": final, "tool_calls": []})
    return steps


def play(episode, steps, call=None):
    """Run ``steps`` (assistant messages) in ``episode``; the final answer. ``call``: how
    a tool call is made (``binding``'s methods), by default ``episode.call``."""
    for step in steps:
        for tool_call in step.get("tool_calls") or ():
            function = tool_call["function"]
            arguments = json.loads(function["arguments"])
            if call is not None:
                call(function["name"], arguments)
            elif function["name"] == SEND:
                episode.send_message_to_user(**arguments)
            else:
                episode.call(function["name"], arguments)
        if not step.get("tool_calls"):
            return step["content"]
    return None


def answerer(rows, mode, wrong=False):
    """An answer function for ``testing.server.StandInServer``: the next assistant message
    of the gold agent of the dialogue whose episode the request is playing, found by its
    first user message (``episodes`` rows of ``mode`` with their ``agent-chat`` messages:
    ``rows`` is ``[(episode row, agent-chat row)]``); a request of no episode raises
    ValueError (the server's 400). ``wrong``: an agent that answers at once, without a call."""
    plays = {episode["prompt"][-1]["content"]: actions(chat["messages"], mode, episode["outcome"])
             for episode, chat in rows}

    def answer(request):
        messages = request["messages"]
        first_user = next((m["content"] for m in messages if m["role"] == "user"), None)
        steps = plays.get(first_user)
        if steps is None:
            raise ValueError(f"no episode begins with the user message {first_user!r}")
        if wrong:
            return {"role": "assistant", "content": "Done.", "tool_calls": []}
        done = sum(m["role"] == "assistant" for m in messages)
        return steps[min(done, len(steps) - 1)]

    return answer
