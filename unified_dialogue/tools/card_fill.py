"""Filling the card templates (``card_templates/``): ``{{ key }}`` placeholders, whole
templates (``section``) and the sentences the generated sections assemble (``sentence``,
from ``_sentences.md``): the cards' prose lives in the templates, never in the code."""

import re
from importlib import resources

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def template(name):
    """A shared template (the combined card, the unified schema section)."""
    return resources.files("unified_dialogue.tools").joinpath("card_templates", f"{name}.md").read_text(encoding="utf-8")


def fill(text, values):
    """Replace every ``{{ key }}``; a key without a value is an error, not an empty string."""
    missing = sorted({key for key in PLACEHOLDER.findall(text) if key not in values})
    if missing:
        raise KeyError(f"no value for template placeholder(s) {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text)


def section(template_name, **values):
    """A generated section: the shared template ``_<template_name>.md`` filled with ``values``."""
    return fill(template(f"_{template_name}"), values).rstrip("\n")


SENTENCE = re.compile(r"^<!-- (\w+) -->\n(.*?)\n(?=<!-- \w+ -->\n|\Z)", re.S | re.M)


def sentence(name, **values):
    """One sentence of ``_sentences.md`` (the prose the generated sections assemble), filled."""
    return fill(dict(SENTENCE.findall(template("_sentences")))[name], values)


def number(n):
    return f"{n:,}"
