"""Adapters of the environment to agent frameworks, each in a folder of its own with its own
extra; nothing in the rest of the package imports them."""
