"""What the agent-chat and tool-call tests share: SGD and its SGD-X variants, a build of a
config in one of them, and a service schema written out (tests/test_agent.py,
test_scoring_tool_calls.py)."""

VARIANTS = [None, "v1", "v2", "v3", "v4", "v5"]


def build_variant(build, config, variant):
    return build("sgd", config, **({"variant": variant} if variant else {}))


def schema(name="Restaurants_1", slots=None, intents=None):
    return {
        "service_name": name, "description": "Restaurant search",
        "slots": slots if slots is not None else [
            {"name": "city", "description": "City", "is_categorical": False, "possible_values": []},
            {"name": "price", "description": "Price range", "is_categorical": True,
             "possible_values": ["cheap", "moderate"]},
            {"name": "live_music", "description": "Live music", "is_categorical": True, "possible_values": []},
        ],
        "intents": intents if intents is not None else [
            {"name": "FindRestaurants", "description": "Find restaurants", "is_transactional": False,
             "required_slots": ["city"], "optional_slots": [{"slot": "price", "value": "dontcare"}],
             "result_slots": ["city", "price"]},
        ],
    }
