"""Whose failure: for an episode with a simulated user, whether the user stated every
constraint of its goal, so that a simulator's mistakes are told apart from the agent's.

A constraint (the last value of each of the goal's constraints: what the user wants in the
end) is stated when the episode shows it reached the agent: the agent called a tool of the
constraint's service with that value for the slot, or read it in a row a tool of the service
returned (an offer the user took: a date the agent proposed), both compared as calls are
(``services.Tool.compared``); or the value is in the user's words or in what the agent told
the user, as whole words, case aside. Only values of non-categorical slots are judged:
they are said as they are (as SER judges them), while a categorical value is said in words
("no subtitles" for ``False``), so that only the agent's calls could show it. ``dontcare``
is not judged either. Times and dates are also found in the words people say them with:
``19:00`` as ``7 pm`` or ``7:00 pm``, ``2019-03-05`` as ``March 5th`` or ``the 5th``; a
relative date ("tomorrow") is not found, so a user that says only that, to an agent that
never uses the date in a call, counts as not having stated it.

A failed episode (reward below 1.0) is the user's failure when the user had its say (it
ended the conversation, or spoke its most turns) and left a constraint unstated; else the
agent's (an agent that gives its final answer before the user is done cut it short).
"""

from ..core.features import DONTCARE
from .communicate import mentions


def plain(text):
    return " ".join(text.casefold().split())


def mentioned(value, text):
    """Whether ``value`` is in ``text`` as ``communicate.mentions`` finds it: whole words,
    times and dates as people say them."""
    return mentions(text, [value])


def handled(episode, service, slot, value):
    """Whether the agent called a tool of ``service`` with ``value`` for ``slot``, or read
    that value of the slot in a row such a tool returned."""
    tools = [tool for tool in episode.services.tools.values() if tool.service == service]
    if any((tool.name, slot, tool.compared({slot: value})[slot]) in episode.read for tool in tools):
        return True
    for call in episode.calls:
        tool = episode.services.tools.get(call["tool"])
        arguments = call["arguments"]
        if tool is None or tool.service != service or not isinstance(arguments, dict) or slot not in arguments:
            continue
        if tool.compared({slot: arguments[slot]})[slot] == tool.compared({slot: value})[slot]:
            return True
    return False


def categorical(episode, service, slot):
    tools = [tool for tool in episode.services.tools.values() if tool.service == service]
    return bool(tools and "enum" in (tools[0].slots.get(slot) or {}))


def unstated(goal, episode, user_said):
    """The constraints of ``goal`` the user did not state (see the module's docstring).

    Args:
        goal: the episode's goal (``views.goals.goal``).
        episode: the ``episode.Episode`` played (its calls and what the agent told the user).
        user_said: the user's words, turn by turn.

    Returns:
        ``[{"service", "intent", "slot", "value"}]``, in the goal's order.

    Example:
        >>> unstated(row["goal"], episode, user.said)
        [{'service': 'Restaurants_1', 'intent': 'ReserveRestaurant', 'slot': 'city', 'value': 'San Jose'}]
    """
    heard = plain("\n".join([*user_said, *episode.messages]))
    missing = []
    for entry in goal["intents"]:
        for constraint in entry["constraints"]:
            value, slot = constraint["values"][-1], constraint["slot"]
            if plain(value) == DONTCARE or categorical(episode, entry["service"], slot):
                continue
            if not mentioned(value, heard) and not handled(episode, entry["service"], slot, value):
                missing.append({"service": entry["service"], "intent": entry["intent"], "slot": slot, "value": value})
    return missing


def failure(reward, missing, user_ended):
    """Whose failure an episode is: None (it succeeded), ``"user"`` (the user ended the
    conversation, ``user_ended`` true, with ``missing`` constraints unstated) or ``"agent"``."""
    if reward >= 1.0:
        return None
    return "user" if missing and user_ended else "agent"
