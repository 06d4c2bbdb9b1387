"""A model for lm-eval that needs no weights (tests only): it answers each request with the
row's gold text (``prompts.doc_to_target``), or with that text perturbed (model argument
``perturb=true``), and keeps the prompts it was shown. Importing this module registers it
as ``unified-dialogue-oracle``."""

import hashlib
import json

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from unified_dialogue.harness.prompts import doc_to_target

NAME = "unified-dialogue-oracle"


def perturbed(identifier, text):
    """``text`` changed on about half of the rows (chosen by the id, so every run is the
    same): cut to its first half, or its words in reverse order."""
    kind = hashlib.sha256(identifier.encode()).digest()[0] % 4
    if kind == 0:
        return text[: len(text) // 2]
    if kind == 1:
        return " ".join(reversed(text.split(" ")))
    return text


@register_model(NAME)
class OracleLM(LM):
    def __init__(self, perturb=False, **_):
        super().__init__()
        self.perturb = perturb in (True, "true", "True")
        self.prompts = {}

    def generate_until(self, requests, disable_tqdm=False):
        answers = []
        for request in requests:
            identifier = request.doc["id"]
            self.prompts[identifier] = request.args[0]
            gold = doc_to_target(request.doc)
            # a row under several variants (harness.variants) is perturbed differently under each
            chosen_by = request.doc.get("variant", "") + identifier
            answers.append(perturbed(chosen_by, gold) if self.perturb else gold)
        return answers

    @property
    def tokenizer_name(self):
        return NAME

    def chat_template(self, chat_template=False):
        return ""

    def apply_chat_template(self, chat_history, add_generation_prompt=True):
        # What an OpenAI-compatible backend sends: the messages themselves, as JSON.
        return json.dumps(chat_history)

    def loglikelihood(self, requests):
        raise NotImplementedError("generation only")

    def loglikelihood_rolling(self, requests):
        raise NotImplementedError("generation only")
