"""FaithDial's faithfulness rows: the BEGIN rules (views.faithfulness), the ``preference``,
``preference-unpaired``, ``critic`` and ``critic-chat`` rows on the fixtures, checked
against the source files and the ``response-chat`` rows, the option that widens or narrows
the pairs, and the card's counts (the corpus's statistics) against the rows built."""

import json
import shutil
from collections import Counter

import pytest

from conftest import fixture_dir
from loaders.faithdial import mapping
from unified_dialogue import chat, load, registry, views
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.testing import read_json, write_checksums
from unified_dialogue.tools import stats
from unified_dialogue.views import faithfulness
from unified_dialogue.views.faithfulness import ENTAILMENT, HALLUCINATION

EVERY_UNFAITHFUL = ",".join(faithfulness.UNFAITHFUL_LABELS)


def utterances(split, folder=None):
    return [u for d in read_json((folder or fixture_dir("faithdial")) / mapping.SPLIT_FILES[split])
            for u in d["utterances"]]


@pytest.mark.parametrize("begin, unfaithful, label", [
    (["Hallucination", "Entailment"], ("Hallucination",), HALLUCINATION),  # FaithCritic: Hallucination first
    (["Entailment"], ("Hallucination",), ENTAILMENT),
    (["Partial Hallucination"], ("Hallucination",), None),
    (["Generic", "Uncooperative"], ("Hallucination",), None),
    (["Partial Hallucination"], ("Hallucination", "Partial Hallucination"), HALLUCINATION),
    (["Hallucination", "Entailment"], ("Partial Hallucination",), ENTAILMENT),
    ([], ("Hallucination",), None),
    (None, ("Hallucination",), None),
    (["hallucination"], ("Hallucination",), None),  # labels as written
])
def test_the_critic_label_is_faithcritics_reading_of_the_begin_labels(begin, unfaithful, label):
    assert faithfulness.critic_label(begin, unfaithful) == label


@pytest.mark.parametrize("original, response, rewritten", [
    ("It is red.", "It is blue.", True),
    ("It is red.", "It is red!", True),  # a typo fix is a rewrite; its labels say whether it was unfaithful
    (None, "It is red.", False),
    ("", "It is red.", False),
    ("  \n", "It is red.", False),
    (" It is\tred. ", "It is red.", False),  # spacing only
    ("It is red.", "", True),
    ("It is red.", None, True),
])
def test_a_response_rewrote_its_original_where_their_words_differ(original, response, rewritten):
    assert faithfulness.rewritten(original, response) is rewritten


def test_a_pair_needs_a_rewrite_of_an_original_read_as_unfaithful():
    assert faithfulness.rejected("Bees sting twice.", "Bees sting once.", ["Hallucination"])
    assert not faithfulness.rejected("Bees stnig once.", "Bees sting once.", ["Entailment"])  # a typo fix
    assert not faithfulness.rejected(None, "Bees sting once.", ["Hallucination"])
    assert not faithfulness.rejected("Bees sting twice.", "Bees sting once.", ["Generic"])
    assert faithfulness.rejected("Bees sting twice.", "Bees sting once.", ["Generic"], ("Generic",))


@pytest.mark.parametrize("text, problem", [
    ("Hallucination", None),
    (" Partial Hallucination ,Generic", None),
    (EVERY_UNFAITHFUL, None),
    ("Entailment", "Entailment marks a faithful original"),
    ("Hallucination,hallucination", "'hallucination' is no BEGIN label of an unfaithful original"),
    ("", "'' is no BEGIN label"),
    ("Hallucination,", "'' is no BEGIN label"),
])
def test_the_option_names_begin_labels_of_unfaithful_originals(text, problem):
    found = faithfulness.unfaithful_problem(text)
    assert found == problem if problem is None else problem in found


def test_a_wrong_option_is_refused_before_anything_is_built(tmp_path):
    with pytest.raises(ConfigError, match=r"option unfaithful='Entailment': Entailment marks a faithful original"):
        load("faithdial", "preference", data_dir=str(tmp_path / "nowhere"), unfaithful="Entailment")
    with pytest.raises(ConfigError, match="takes no option 'unfaithful'.*unfaithful is an option of preference"):
        load("faithdial", "response", data_dir=str(tmp_path / "nowhere"), unfaithful="Hallucination")


def test_preference_rows_are_response_chat_prompts_with_both_responses(build):
    for split, rows in build("faithdial", "preference").items():
        chats = {row["id"]: row for row in build("faithdial", "response-chat")[split]}
        views = {row["id"]: row for row in build("faithdial", "response")[split]}
        for row in rows:
            view = views[row["id"]]
            assert row["prompt"] == chats[row["id"]]["prompt"]
            assert row["chosen"] == chats[row["id"]]["completion"] == [
                {"role": "assistant", "content": view["response"]}]
            assert row["rejected"] == [{"role": "assistant", "content": view["original_response"]["utterance"]}]
            assert row["begin"] == view["original_response"]["begin"]
            assert HALLUCINATION in row["begin"] and row["chosen"] != row["rejected"]
        pairs = [u for u in utterances(split) if u["original_response"] and HALLUCINATION in u["BEGIN"]]
        assert [(r["chosen"][0]["content"], r["rejected"][0]["content"]) for r in rows] == [
            (u["response"], u["original_response"]) for u in pairs], split


def test_unpaired_rows_are_trls_unpairing_of_the_pairs(build):
    trl_data = pytest.importorskip("trl.data_utils")
    for split, rows in build("faithdial", "preference-unpaired").items():
        pairs = build("faithdial", "preference")[split]
        unpaired = trl_data.unpair_preference_dataset(pairs.select_columns(["prompt", "chosen", "rejected"]))
        key = lambda r: json.dumps([r["prompt"], r["completion"], r["label"]])  # noqa: E731
        assert sorted(map(key, rows)) == sorted(map(key, unpaired)), split
        assert rows["id"] == [f"{i}/{side}" for i in pairs["id"] for side in ("chosen", "rejected")]
        assert rows["label"] == [True, False] * pairs.num_rows


def expected_critic_rows(utterance, unfaithful=(HALLUCINATION,), rewritten=True):
    """The critic rows of a source utterance, ``(source, text, label)``, as FaithCritic makes
    its examples (models/critic_data.py), written out again here from the source fields."""
    begin, original, response = utterance["BEGIN"], utterance["original_response"], utterance["response"]
    label = HALLUCINATION if set(begin) & set(unfaithful) else ENTAILMENT if ENTAILMENT in begin else None
    if label is None:
        return []
    changed = bool(original) and original.split() != response.split()
    rows = [("original", original if changed else response, label)]
    return rows + ([("rewritten", response, ENTAILMENT)] if changed and rewritten else [])


@pytest.mark.parametrize("options", [{}, {"rewritten": False}, {"unfaithful": EVERY_UNFAITHFUL},
                                     {"unfaithful": "Partial Hallucination"}])
def test_critic_rows_are_faithcritics_examples_of_the_source(build, options):
    unfaithful = faithfulness.unfaithful_labels(options.get("unfaithful", HALLUCINATION))
    for split, rows in build("faithdial", "critic", **options).items():
        expected = [row for u in utterances(split) for row in expected_critic_rows(
            u, unfaithful, options.get("rewritten", True))]
        assert [(r["source"], r["response"], r["label"]) for r in rows] == expected, split
        assert all(r["id"] == f"{r['dialogue_id']}/{r['turn_index']}/{r['source']}" for r in rows)
        chats = build("faithdial", "critic-chat", **options)[split]
        assert chats["id"] == rows["id"]
        for chat_row, row in zip(chats, rows):
            assert chat.critic.messages(row) == {"prompt": chat_row["prompt"], "completion": chat_row["completion"]}
            assert chat_row["completion"] == [{"role": "assistant", "content": row["label"]}]
            assert chat_row["prompt"][0]["content"].endswith(f"Knowledge: {row['knowledge']}\n\nResponse: "
                                                             f"{row['response']}")


def test_the_option_widens_and_narrows_the_pairs(build, tmp_path):
    train = utterances("train")
    rewritten = [u for u in train if u["original_response"]]
    assert build("faithdial", "preference", unfaithful=EVERY_UNFAITHFUL)["train"].num_rows == len(rewritten) == 7
    # the fixtures' other splits have no Partial Hallucination: a copy of train alone
    copy = tmp_path / "copy"
    (copy / "data").mkdir(parents=True)
    shutil.copy(fixture_dir("faithdial") / mapping.SPLIT_FILES["train"], copy / mapping.SPLIT_FILES["train"])
    narrow = load("faithdial", "preference", split="train", unfaithful="Partial Hallucination", data_dir=str(copy),
                  verification_mode="no_checks", cache_dir=str(tmp_path / "cache"))
    assert [r["begin"] for r in narrow] == [["Partial Hallucination"]] * 2
    assert build("faithdial", "preference", instruction="Answer.")["train"][0]["prompt"][0]["content"].startswith(
        "Answer.\n\nKnowledge: ")


def test_a_typo_fix_of_a_faithful_original_makes_no_pair_but_two_critic_rows(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("faithdial"), copy)
    path = copy / mapping.SPLIT_FILES["train"]
    dialogues = read_json(path)
    faithful = dialogues[0]["utterances"][1]  # original null, BEGIN Entailment
    assert faithful["original_response"] is None and faithful["BEGIN"] == [ENTAILMENT]
    faithful["original_response"] = faithful["response"].replace("e", "ee", 1)
    path.write_text(json.dumps(dialogues, ensure_ascii=False), encoding="utf-8")
    options = dict(data_dir=str(copy), checksums=write_checksums(copy), cache_dir=str(tmp_path / "cache"),
                   split="train")
    assert load("faithdial", "preference", **options).num_rows == 3  # as before
    critic = load("faithdial", "critic", **options)
    assert [(r["id"], r["response"], r["label"]) for r in critic if r["dialogue_id"] == "faithdial/train/0"
            and r["turn_index"] == 3] == [("faithdial/train/0/3/original", faithful["original_response"], ENTAILMENT),
                                          ("faithdial/train/0/3/rewritten", faithful["response"], ENTAILMENT)]


def test_the_cards_counts_are_the_rows_built(build):
    corpus = registry.get("faithdial")
    figures = stats.statistics(corpus, build("faithdial"))
    for split, counted in figures.items():
        pairs = build("faithdial", "preference")[split]
        critic = build("faithdial", "critic")[split]
        assert counted["preference_pairs"] == pairs.num_rows, split
        assert counted["critic_labels"] == dict(Counter(critic["label"])), split
        rewritten = [u for u in utterances(split) if u["original_response"]]
        assert counted["rewritten_begin"] == dict(Counter(b for u in rewritten for b in u["BEGIN"])), split


def test_the_rows_are_made_of_any_unified_dataset(build):
    unified = build("faithdial")["train"]
    made = {"critic": views.apply("critic", unified, batch_size=2, role="Wizard", rewritten=False),
            "critic-chat": chat.apply("critic", unified, batch_size=2, role="Wizard", rewritten=False),
            "preference": views.apply(chat.PREFERENCE_VIEWS["preference"], unified, batch_size=2, role="Wizard")}
    for config, rows in made.items():
        options = {} if config == "preference" else {"rewritten": False}
        assert rows.to_list() == build("faithdial", config, **options)["train"].to_list(), config
