"""The item-found criterion: for each search whose service made no booking, whether the
episode found the item the user settled on (the outcome's ``found``): a row a search of the
service returned holds every identifying value of the item (``views.items``), compared as
calls compare values, in any form the dialogue used. The query's arguments are not judged:
any search that returns the item counts.

``items_found``: the share of the outcome's items found (1.0 where there are none).
"""

from .final_state import ratio


def holds(episode, tool, row, item):
    """Whether ``row`` (returned by ``tool``) holds every value of ``item``."""
    compared = episode.services.row_values(tool, row)
    return all(slot["slot"] in compared and compared[slot["slot"]] in
               {tool.compared({slot["slot"]: form})[slot["slot"]] for form in slot["values"]} for slot in item)


def is_found(episode, entry):
    """Whether a row a search of the entry's service returned is the entry's item."""
    tools = episode.services.tools
    return any(tools[name].service == entry["service"] and not tools[name].transactional
               and holds(episode, tools[name], row, entry["item"]) for name, row in episode.rows)


def parts(episode):
    """``{items_found, found_ok}`` of an episode."""
    found = [is_found(episode, entry) for entry in episode.outcome.get("found") or ()]
    return {"items_found": ratio(sum(found), len(found), 0), "found_ok": all(found)}
