"""The answer in a model's output: what every scorer and reward reads of a model's text
(``dst-chat``, ``nlu-chat`` and D3ST texts, tool calls, generated text). A reasoning block
is never part of the answer, nor is a code fence around it; docs/scoring.md ("The answer
in a model's output") gives the rule with each model's shape.

- Reasoning blocks before the answer, one or several, as the models write them (``BLOCKS``):
  ``<think>…</think>``, ``[THINK]…[/THINK]`` (Magistral), ``◁think▷…◁/think▷`` (Kimi).
- A block the chat template opened in the prompt (DeepSeek-R1, QwQ, Qwen3.5, Nemotron 3
  end their prompt with ``<think>``): where the output does not begin with a block,
  everything up to its first ``</think>`` (``PROMPT_OPENED_END``).
- gpt-oss's harmony messages, special tokens kept: ``analysis`` messages are reasoning,
  the ``final`` message's content is the answer; without a final message, the other
  messages (a ``commentary`` tool call) are the answer as they are written.
- A reasoning block that never ends (the output cut at the token limit): no answer, and a
  ``malformed`` problem; never the draft.
- Then a code fence around the whole answer (```` ```lang ```` … ```` ``` ````): its content.
  A fence whose closing line was cut off is left as it is (the answer is cut too). The
  answer is given without surrounding white space.

An output without any of these is its own answer. The texts the project writes never begin
with a marker or a fence (a name that would is quoted) and never hold ``</think>``
(``json_text`` writes ``<\\/think>``, the same JSON string) or end in a harmony token, so a
gold text is its own answer, inside any of these wrappers too.
"""

import json
import re

from .problems import MALFORMED, Problem

# (opening, closing) of the reasoning blocks models write before their answer.
BLOCKS = (("<think>", "</think>"), ("[THINK]", "[/THINK]"), ("◁think▷", "◁/think▷"))
OPENINGS = tuple(opening for opening, _ in BLOCKS)
# The end of a block that chat templates open in the prompt (the output holds only this).
PROMPT_OPENED_END = "</think>"
# Harmony (gpt-oss): an output is a sequence of messages, each with a header and an end.
HARMONY_STARTS = ("<|channel|>", "<|start|>")
_HARMONY_HEADER = re.compile(r"\s*(?:<\|start\|>assistant)?((?:(?!<\|message\|>|<\|start\|>).)*)<\|message\|>",
                             re.S)
_HARMONY_CHANNEL = re.compile(r"<\|channel\|>\s*(\w+)")
_HARMONY_END = re.compile(r"<\|(?:end|return|call)\|>")
FINAL_ENDS = ("<|return|>", "<|end|>")
# What a value the project writes as it is must not hold: a reasoning end (read anywhere)
# and a harmony token (read at the end of a final message). A pattern of both Python's and
# Arrow's (RE2) regular expressions.
MARKER_INSIDE = r"</think>|<\|"
# Every marker the answer is read by, for tests to write into names and values.
OUTPUT_MARKERS = (*OPENINGS, *(closing for _, closing in BLOCKS), *HARMONY_STARTS, "<|message|>", "<|end|>",
                  "<|return|>", "<|call|>", "```")
_FENCE_OPENING = re.compile(r"\s*```[^\n`]*\n")
_FENCE_CLOSING = re.compile(r"\n?```\s*\Z")


def answer(output):
    """The answer part of a model's output, and what made it unreadable.

    Args:
        output: a model's text as generated (harmony's special tokens kept).

    Returns:
        ``(text, problems)``: the answer ("" where there is none), and ``[]``, or one
        ``Problem`` of kind ``malformed`` where a reasoning block never ends.

    Example:
        >>> answer("<think>\\nThe user gave a city.\\n</think>\\n\\nRestaurants_1: intent=NONE; city=Napa")
        ('Restaurants_1: intent=NONE; city=Napa', [])
        >>> answer("<think>\\nThe user gave")
        ('', [Problem(kind='malformed', text='a reasoning block <think>… that never ends: no answer', name=None)])
    """
    if output.lstrip().startswith(HARMONY_STARTS):
        text, problems = _harmony(output)
    else:
        text, problems = _after_reasoning(output)
    return ("", problems) if problems else (_unfenced(text).strip(), [])


def _never_ends(opening):
    return [Problem(MALFORMED, f"a reasoning block {opening}… that never ends: no answer")]


def _after_reasoning(text):
    """``text`` without the reasoning blocks before its answer."""
    rest = text.lstrip()
    if not rest.startswith(OPENINGS) and PROMPT_OPENED_END in text:
        rest = text[text.index(PROMPT_OPENED_END) + len(PROMPT_OPENED_END):].lstrip()
    for _ in range(len(text)):  # each turn takes one block off the front
        opened = next(((opening, closing) for opening, closing in BLOCKS if rest.startswith(opening)), None)
        if opened is None:
            return rest, []
        end = rest.find(opened[1], len(opened[0]))
        if end < 0:
            return "", _never_ends(opened[0])
        rest = rest[end + len(opened[1]):].lstrip()
    return rest, []


def _harmony(text):
    """The answer of a harmony output: the final message's content, else the messages that
    are not reasoning (``analysis``), as written."""
    kept, position = [], 0
    while True:
        header = _HARMONY_HEADER.match(text, position)
        if header is None:
            kept.append(text[position:])  # not a message: as it is
            return "".join(kept), []
        channel = _HARMONY_CHANNEL.search(header.group(1))
        channel = channel.group(1) if channel else None
        if channel == "final":  # to the end of the output: the answer may hold any token
            content = text[header.end():]
            return next((content[:-len(end)] for end in FINAL_ENDS if content.endswith(end)), content), []
        end = _HARMONY_END.search(text, header.end())
        if channel == "analysis" and end is None:
            return "", _never_ends("<|channel|>analysis")
        if channel != "analysis":
            kept.append(text[header.start(1):end.end() if end else len(text)])
        if end is None:
            return "".join(kept), []
        position = end.end()


def _unfenced(text):
    """The content of a code fence around the whole of ``text``, else ``text``."""
    opening = _FENCE_OPENING.match(text)
    closing = _FENCE_CLOSING.search(text, opening.end()) if opening else None
    return text[opening.end():closing.start()] if closing else text


def json_text(value):
    """``value`` as JSON (non-ASCII kept) that no reader of a model's output takes for a
    reasoning end: ``</think>`` inside a string is written ``<\\/think>``, JSON's own escape
    of ``/``, which reads back as the same string.

    Example:
        >>> json_text("a</think>b")
        '"a<\\\\/think>b"'
    """
    return json.dumps(value, ensure_ascii=False).replace(PROMPT_OPENED_END, "<\\/think>")


def content_text(content):
    """A message's content as one text: a string as it is; a list of parts (OpenAI's
    ``{"type": "text", "text": ...}``) the texts of its text parts joined (a reasoning part,
    of another type, is not the answer); anything else (None) the empty text.

    Example:
        >>> content_text([{"type": "text", "text": "a"}, {"type": "thinking", "text": "x"}, {"text": "b"}])
        'ab'
    """
    if isinstance(content, list):
        return "".join(part.get("text") or "" for part in content
                       if isinstance(part, dict) and part.get("type", "text") == "text")
    return content if isinstance(content, str) else ""
