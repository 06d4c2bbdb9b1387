"""GEM-metrics' metrics of predictions against their references, but NIST (``nist``):
BLEU, chrF (corpus and sentence), TER (sacrebleu), ROUGE (rouge-score, with leave-one-out
"jackknifing" over several references) and local recall."""

import itertools
from collections import Counter, defaultdict

from .sums import numpy1_mean

def reference_streams(references):
    """sacrebleu's reference streams: stream k holds each item's k-th reference, None for an
    item with fewer (sacrebleu then scores that item against the ones it has)."""
    return [list(stream) for stream in itertools.zip_longest(*references)]


def bleu(predictions, references):
    from sacrebleu.metrics import BLEU

    return {"bleu": round(BLEU(lowercase=True).corpus_score(predictions, reference_streams(references)).score, 5)}


def chrf(predictions, references):
    """chrF, chrF+ and chrF++ (word n-grams up to 0, 1, 2 added to the character n-grams)."""
    from sacrebleu.metrics import CHRF

    metrics = [CHRF(word_order=order, eps_smoothing=True) for order in range(3)]
    keys = ["chrf" + "+" * order for order in range(3)]
    streams = reference_streams(references)
    if any(len(refs) != 1 for refs in references):
        # each item's best reference depends on the word order: one pass per metric
        return {key: metric.corpus_score(predictions, streams).score for key, metric in zip(keys, metrics)}
    # With one reference per item, an item's statistics are [hypothesis, reference, match]
    # counts per n-gram order, character orders first, so chrF++'s (sacrebleu 2.x's layout)
    # hold chrF's and chrF+'s as prefixes: the n-grams are extracted once instead of three times.
    statistics = metrics[2]._extract_corpus_statistics(predictions, streams)
    scores = {}
    for key, metric in zip(keys, metrics):
        width = 3 * (metric.char_order + metric.word_order)
        totals = [sum(item[k] for item in statistics) for k in range(width)]
        scores[key] = metric._compute_score_from_stats(totals).score
    return scores


_SENTENCE_CHRF = []  # the one CHRF object of sentence_chrf, made on first use


def _sentence_metric():
    if not _SENTENCE_CHRF:
        from sacrebleu.metrics import CHRF

        _SENTENCE_CHRF.append(CHRF(word_order=0, eps_smoothing=True))  # chrf()'s chrF
    return _SENTENCE_CHRF[0]


def chrf_references(references):
    """The character n-grams of an item's references, for ``sentence_chrf`` (extracted once
    where the same references are scored again and again, as rewards do)."""
    metric = _sentence_metric()
    return metric._extract_reference_info([metric._preprocess_segment(text) for text in references])


def sentence_chrf(prediction, references):
    """sacrebleu's sentence chrF of one prediction (the settings of ``chrf``'s chrF) divided
    by 100: the same number as ``CHRF(eps_smoothing=True).sentence_score(prediction,
    references).score / 100``. ``references``: a list of strings, or ``chrf_references``
    of one. (The corpus chrF is computed from n-gram counts summed over the items, so it is
    not the mean of these.)"""
    metric = _sentence_metric()
    info = chrf_references(references) if isinstance(references, (list, tuple)) else references
    statistics = metric._compute_segment_statistics(metric._preprocess_segment(prediction), info)
    return metric._compute_score_from_stats(statistics).score / 100


def ter(predictions, references):
    from sacrebleu.metrics import TER

    score = TER(normalized=True, case_sensitive=False).corpus_score(predictions, reference_streams(references))
    return {"ter": round(score.score, 5)}


ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


class _RougeTokenizer:
    """rouge-score's own tokenisation (lowercase, alphanumeric runs, Porter stems of words
    longer than three characters), remembering each text's and each word's result: scoring
    calls it twice per text and the same words recur."""

    def __init__(self):
        from nltk.stem import porter

        stemmer = porter.PorterStemmer()
        stems = {}

        class Stemmer:
            @staticmethod
            def stem(word):
                stem = stems.get(word)
                if stem is None:
                    stem = stems[word] = stemmer.stem(word)
                return stem

        self._stemmer = Stemmer
        self._texts = {}

    def tokenize(self, text):
        from rouge_score import tokenize

        tokens = self._texts.get(text)
        if tokens is None:
            tokens = self._texts[text] = tokenize.tokenize(text, self._stemmer)
        return tokens


def rouge_items(predictions, references):
    """Each item's ROUGE scores, ``{type: (precision, recall, fmeasure)}``, on texts already
    tokenised and joined by spaces. With several references, the best score (by F-measure)
    of each leave-one-out subset of the references, averaged over the subsets."""
    from rouge_score import rouge_scorer

    tokenizer = _RougeTokenizer()
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=tokenizer)
    one_line = rouge_scorer.RougeScorer(list(ROUGE_TYPES[:3]), tokenizer=tokenizer)

    def score(ref, prediction):
        if "\n" in ref or "\n" in prediction:
            return scorer.score(ref, prediction)
        # rougeLsum is rougeL over each line's longest common subsequence, so on one line
        # each it is rougeL: computed once
        scores = one_line.score(ref, prediction)
        scores["rougeLsum"] = scores["rougeL"]
        return scores

    items = []
    for prediction, refs in zip(predictions, references):
        if len(refs) == 1:
            scores = score(refs[0], prediction)
            items.append({kind: tuple(scores[kind]) for kind in ROUGE_TYPES})
            continue
        scores = [score(ref, prediction) for ref in refs]
        bests = [{kind: max((s[kind] for k, s in enumerate(scores) if k != left_out), key=lambda s: s.fmeasure)
                  for kind in ROUGE_TYPES} for left_out in range(len(refs))]
        items.append({kind: tuple(numpy1_mean([best[kind][part] for best in bests]) for part in range(3))
                      for kind in ROUGE_TYPES})
    return items


def rouge(prediction_tokens, reference_tokens):
    joined_predictions = [" ".join(tokens) for [tokens] in prediction_tokens]
    joined_references = [[" ".join(tokens) for tokens in refs] for refs in reference_tokens]
    items = rouge_items(joined_predictions, joined_references)
    if not items:
        return {}
    return {kind: {part: round(numpy1_mean([item[kind][k] for item in items]), 5)
                   for k, part in enumerate(("precision", "recall", "fmeasure"))}
            for kind in ROUGE_TYPES}


def local_recall(prediction_tokens, reference_tokens):
    """For n = 1 … the most references an item has: of the words that exactly n of an item's
    references use, the share its prediction uses, summed over the items before dividing."""
    sums = defaultdict(lambda: [0, 0])
    most = 0
    for [prediction], refs in zip(prediction_tokens, reference_tokens):
        uses = Counter(word for ref in refs for word in set(ref))
        words = set(prediction)
        most = max(most, len(refs))
        for n in range(1, len(refs) + 1):
            used_by_n = {word for word, count in uses.items() if count == n}
            sums[n][0] += len(words & used_by_n)
            sums[n][1] += len(used_by_n)
    return {"local_recall": {str(n): (sums[n][0] / sums[n][1] if sums[n][1] > 0 else 0) for n in range(1, most + 1)}}
