"""GEM-metrics' lexical metrics, computed as GEM-metrics computes them.

GEM-metrics (github.com/GEM-benchmark/GEM-metrics) is the GEM benchmark's scorer. Its
install pulls in torch and the neural metrics, and it reads GEM's own file layout; this module
gives the numbers of its default metric list without a neural model, on plain Python lists,
under GEM-metrics' output key names and with its rounding:

- ``bleu`` (sacrebleu, lowercased, 5 decimals), ``chrf``, ``chrf+``, ``chrf++`` (sacrebleu,
  epsilon smoothing, unrounded), ``ter`` (sacrebleu, normalised, case-insensitive, 5 decimals);
- ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum``: each ``{precision, recall, fmeasure}``
  (rouge-score with the Porter stemmer on the tokenised texts; several references by
  leave-one-out "jackknifing"; the mean over the items, 5 decimals);
- ``nist`` (mteval-style NIST of e2e-metrics, 5-grams, unrounded);
- ``local_recall`` (``{"1": ..., "n": ...}``: the share of the words that n references use
  which the prediction uses too);
- ``msttr-100`` and ``msttr-100_nopunct``, ``ttr``, ``yules_i``;
- the n-gram statistics: ``total_length``, ``mean_pred_length``, ``std_pred_length``,
  ``median_pred_length``, ``min_pred_length``, ``max_pred_length``, and for n = 1, 2, 3
  ``distinct-n``, ``vocab_size-n``, ``unique-n``, ``entropy-n``, ``cond_entropy-n`` (n = 2, 3),
  each also with the suffix ``-nopunct``.

Tokenisation: GEM-metrics tokenises with NLTK's Punkt (``word_tokenize``) when the Punkt data
is installed and otherwise with its own regular-expression tokeniser. Offline, the usual
case, it is the latter, so ``tokenizer="fallback"`` is the default here; ``"punkt"`` uses
``nltk.word_tokenize`` where the data is installed. The tokenisation changes ROUGE, local
recall, MSTTR and the n-gram statistics; BLEU, chrF, TER (sacrebleu's own tokenisation), NIST
(its own mteval tokenisation), TTR and Yule's I (whitespace) do not depend on it.
"""

import itertools
import math
import re
import string
from collections import Counter, defaultdict

import numpy as np

LEXICAL_METRICS = ("bleu", "rouge", "chrf", "nist", "msttr", "ngrams", "ter", "ttr", "yules_i", "local_recall")
TOKENIZERS = ("fallback", "punkt")

PUNCTUATION = frozenset(string.punctuation)

# ---------------------------------------------------------------- numpy 1.x's float sums

# GEM-metrics averages with numpy and needs numpy 1.x (it imports numpy.NaN, gone in 2.0).
# numpy 1.x sums a float64 array in blocks of 8192 (its buffer size), each block pairwise
# (blocks of at most 128 by eight running sums); numpy 2 sums otherwise, which can change the
# last digit. These functions sum as numpy 1.x does, whatever numpy is installed.
_BUFFER = 8192
_BLOCK = 128


def _pairwise(values, start, count):
    if count < 8:
        total = 0.0
        for value in values[start:start + count]:
            total += value
        return total
    if count <= _BLOCK:
        sums = list(values[start:start + 8])
        end = start + count - count % 8
        for offset in range(start + 8, end, 8):
            for k in range(8):
                sums[k] += values[offset + k]
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]))
        for value in values[end:start + count]:
            total += value
        return total
    half = count // 2
    half -= half % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, count - half)


def numpy1_sum(values):
    """``numpy.add.reduce`` of a list of floats as numpy 1.x computes it."""
    values = [float(value) for value in values]
    total = 0.0
    for start in range(0, len(values), _BUFFER):
        total += _pairwise(values, start, min(_BUFFER, len(values) - start))
    return total


def numpy1_mean(values):
    """``numpy.mean`` of a list of numbers as numpy 1.x computes it."""
    return np.float64(numpy1_sum(values) / len(values)) if len(values) else np.float64("nan")


def numpy1_std(values):
    """``numpy.std`` of a list of numbers as numpy 1.x computes it."""
    mean = numpy1_mean(values)
    deviations = [float(value) - float(mean) for value in values]
    return np.float64(math.sqrt(numpy1_sum([d * d for d in deviations]) / len(values)))


# ---------------------------------------------------------------- GEM's fallback tokeniser

# Each rule is (pattern, replacement), applied in this order to the whole text. The order
# matters: later rules see the spaces earlier ones inserted.
_FALLBACK_RULES = [(re.compile(pattern), replacement) for pattern, replacement in [
    # quotes and brackets always stand alone
    (r'(["<>{}“”«»–|—„‚‘]|\[|\]|``|\'\'|‘‘|\^)', r" \1 "),
    # so do these, and a double hyphen
    (r"([;!()?#\$£%&*…]|--)", r" \1 "),
    # a single hyphen stands alone beside a non-word character, except as a unary minus
    (r"([^\-\w])\-([^\-0-9])", r"\1 - \2"),
    (r"([0-9]\s+)\-([0-9])", r"\1 - \2"),
    (r"([^\-])\-([^\-\w])", r"\1 - \2"),
    # a plus between words or numbers, and before a non-word character
    (r"(\w)\+(\w)", r"\1 + \2"),
    (r"([0-9]\s*)\+([0-9])", r"\1 + \2"),
    (r"\+([^\w\+])", r"+ \1"),
    # an apostrophe beside a non-word character, unless doubled or before a digit ('60)
    (r"([^\'’\w])([\'’])([^\'’\d])", r"\1 \2 \3"),
    (r"([^\'’])([\'’])([^\'’\w])", r"\1 \2 \3"),
    # dot, comma, slash and colon, unless between digits
    (r"(\D|^)([\.,:\/])", r"\1 \2"),
    (r"([\.,:\/])(\D|$)", r"\1 \2"),
    # an ellipsis is one token
    (r"\.\s*\.\s*\.", r"..."),
    # contractions: 's 'm 'd 'll 're 've and n't are tokens of their own
    (r"([\'’´])(s|m|d|ll|re|ve)\s", r" \1\2 "),
    (r"(n[\'’´]t\s)", r" \1 "),
    (r" ([Cc])annot\s", r" \1an not "),
    (r" ([Dd])\'ye\s", r" \1\' ye "),
    (r" ([Gg])imme\s", r" \1im me "),
    (r" ([Gg])onna\s", r" \1on na "),
    (r" ([Gg])otta\s", r" \1ot ta "),
    (r" ([Ll])emme\s", r" \1em me "),
    (r" ([Mm])ore\'n\s", r" \1ore \'n "),
    (r" \'([Tt])is\s", r" \'\1 is "),
    (r" \'([Tt])was\s", r" \'\1 was "),
    (r" ([Ww])anna\s", r" \1an na "),
]]
_SPACES = re.compile(r"\s+")


def fallback_tokenize(text):
    """GEM-metrics' language-independent tokeniser (its fallback when NLTK's Punkt data is
    missing). Text without a token, the empty string included, gives ``[""]``, one empty
    token, as in GEM-metrics: that token counts in the lengths and n-gram statistics.

    >>> fallback_tokenize("I'm at 6:30, don't wait...")
    ['I', "'m", 'at', '6:30,', 'do', "n't", 'wait', '...']
    """
    for pattern, replacement in _FALLBACK_RULES:
        text = pattern.sub(replacement, text)
    return _SPACES.sub(" ", text).strip().split(" ")


def punkt_tokenize(text):
    """NLTK's ``word_tokenize`` in English, which GEM-metrics uses where the Punkt data is
    installed (``nltk.download("punkt_tab")``, or ``"punkt"`` for NLTK before 3.8.2)."""
    import nltk

    return nltk.word_tokenize(text, language="english")


def tokenizer_of(tokenizer):
    """The tokenising function for ``tokenizer``: ``"fallback"``, ``"punkt"`` or a callable
    from text to a list of tokens."""
    if callable(tokenizer):
        return tokenizer
    if tokenizer == "fallback":
        return fallback_tokenize
    if tokenizer == "punkt":
        try:
            punkt_tokenize(".")
        except LookupError:
            from ..core.sources import argument
            from .rows import ScoringError

            raise ScoringError(f"{argument('tokenizer', 'punkt')} needs NLTK's Punkt data, which is not installed "
                               f"(python -m nltk.downloader punkt_tab); {argument('tokenizer', 'fallback')} is what "
                               "GEM-metrics uses without it") from None
        return punkt_tokenize
    raise ValueError(f"tokenizer must be one of {', '.join(TOKENIZERS)} or a function, not {tokenizer!r}")


class Texts:
    """Predictions or references (a list of strings per item) with the tokenised forms the
    metrics read: each distinct text tokenised once; the lowercased forms derived from the
    tokens on each call."""

    def __init__(self, items, tokenize):
        self.items = items
        self._tokenize = tokenize
        self._cache = {}

    def _tokens(self, text):
        tokens = self._cache.get(text)
        if tokens is None:
            tokens = self._cache[text] = self._tokenize(text)
        return tokens

    def tokens(self):
        return [[self._tokens(text) for text in texts] for texts in self.items]

    def lower(self):
        return [[[token.lower() for token in tokens] for tokens in texts] for texts in self.tokens()]

    def lower_nopunct(self):
        return [[[token for token in tokens if token not in PUNCTUATION] for tokens in texts] for texts in self.lower()]


# ---------------------------------------------------------------- referenced metrics

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


# ---------------------------------------------------------------- NIST (mteval tokenisation)

_MTEVAL_RULES = [(re.compile(pattern), replacement) for pattern, replacement in [
    (r"<skipped>", ""),
    (r"-\n", ""),
    (r"\n", " "),
    (r"&quot;", '"'),
    (r"&amp;", "&"),
    (r"&lt;", "<"),
    (r"&gt;", ">"),
]]
_MTEVAL_PUNCTUATION = [(re.compile(pattern), replacement) for pattern, replacement in [
    # every ASCII symbol except the period, comma, hyphen and apostrophe
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),
    # period and comma, unless inside a number
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    (r"([0-9])(-)", r"\1 \2 "),
]]


def mteval_tokenize(text):
    """The mteval-v13a tokenisation of e2e-metrics' NIST, which GEM-metrics uses; empty text
    gives ``[""]``."""
    for pattern, replacement in _MTEVAL_RULES:
        text = pattern.sub(replacement, text)
    text = f" {text} "
    for pattern, replacement in _MTEVAL_PUNCTUATION:
        text = pattern.sub(replacement, text)
    return _SPACES.sub(" ", text).strip().split(" ")


_NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2
_NIST_ORDER = 5


def _counts(tokens, n):
    """n-gram counts in order of first occurrence."""
    counts = {}
    for k in range(len(tokens) - n + 1):
        gram = tuple(tokens[k:k + n])
        counts[gram] = counts.get(gram, 0) + 1
    return counts


def nist(predictions, references):
    """NIST over lowercased mteval tokens. A prediction's length less n counts towards the
    n-gram total even when negative, and the sums run in e2e-metrics' order, so that the
    score is GEM-metrics' to the last digit."""
    reference_counts = [defaultdict(int) for _ in range(_NIST_ORDER + 1)]
    hits = [[] for _ in range(_NIST_ORDER)]
    totals = [0] * _NIST_ORDER
    average_reference_length = 0.0
    for prediction, refs in zip(predictions, references):
        prediction = [token.lower() for token in mteval_tokenize(prediction)]
        refs = [[token.lower() for token in mteval_tokenize(ref)] for ref in refs]
        for n in range(1, _NIST_ORDER + 1):
            totals[n - 1] += len(prediction) - (n - 1)
            clipped = {}
            for ref in refs:
                for gram, count in _counts(ref, n).items():
                    clipped[gram] = max(clipped.get(gram, 0), count)
                    reference_counts[n][gram] += count
            matched = {}
            for gram, count in _counts(prediction, n).items():
                hit = min(count, clipped.get(gram, 0))
                if hit:
                    matched[gram] = hit
            hits[n - 1].append(matched)
        reference_length = sum(len(ref) for ref in refs)
        reference_counts[0][()] += reference_length
        average_reference_length += reference_length / float(len(refs))

    def information(gram):
        if gram not in reference_counts[len(gram)]:
            return 0.0
        return math.log(reference_counts[len(gram) - 1][gram[:-1]] / float(reference_counts[len(gram)][gram]), 2)

    information_sums = [0.0] * _NIST_ORDER
    for n in range(_NIST_ORDER):
        for matched in hits[n]:
            information_sums[n] += sum(information(gram) * count for gram, count in matched.items())
    if any(total == 0 for total in totals):
        return {"nist": 0.0}
    score = sum(information_sum / total for information_sum, total in zip(information_sums, totals))
    ratio = totals[0] / float(average_reference_length)
    if ratio >= 1:
        penalty = 1
    elif ratio <= 0:
        penalty = 0
    else:
        penalty = math.exp(-_NIST_BETA * math.log(ratio) ** 2)
    return {"nist": penalty * score}


# ---------------------------------------------------------------- referenceless metrics

def msttr(prediction_tokens, prediction_tokens_nopunct, window=100):
    """Mean type-token ratio of consecutive windows of ``window`` tokens of all predictions in
    a row (lowercased), the last incomplete window left out; NaN with no complete window."""

    def mean_ttr(tokens):
        ratios = [len(set(tokens[k:k + window])) / len(tokens[k:k + window])
                  for k in range(0, len(tokens) - window + 1, window)]
        return sum(ratios) / len(ratios) if ratios else float("nan")

    return {f"msttr-{window}": round(mean_ttr([t for [tokens] in prediction_tokens for t in tokens]), 5),
            f"msttr-{window}_nopunct": round(mean_ttr([t for [tokens] in prediction_tokens_nopunct for t in tokens]), 5)}


def _whitespace_vocabulary(predictions):
    vocabulary = Counter(token for text in predictions for token in text.split())
    return sum(vocabulary.values()), vocabulary


def ttr(predictions):
    """Types over tokens of the predictions split at whitespace (untokenised, case kept)."""
    total, vocabulary = _whitespace_vocabulary(predictions)
    return {"ttr": round(len(vocabulary) / total if total else float("nan"), 5)}


def yules_i(predictions):
    """Yule's I, M1² / (M2 − M1), over the whitespace-split predictions (0.0 when M2 = M1)."""
    _, vocabulary = _whitespace_vocabulary(predictions)
    m1 = float(len(vocabulary))
    m2 = sum(count * frequency ** 2 for frequency, count in Counter(vocabulary.values()).items())
    return {"yules_i": round(0.0 if m2 - m1 == 0 else m1 * m1 / (m2 - m1), 3)}


def _entropy(frequencies):
    total = sum(frequencies.values())
    return -sum([frequency / total * np.log2(frequency / total) for frequency in frequencies.values()])


def _conditional_entropy(joint, context):
    total_joint = sum(joint.values())
    total_context = sum(context.values())
    return -sum([frequency / total_joint * np.log2((frequency / total_joint) / (context[gram[:-1]] / total_context))
                 for gram, frequency in joint.items()])


def ngram_stats(prediction_tokens, prediction_tokens_nopunct):
    results = {}
    for suffix, data in (("", prediction_tokens), ("-nopunct", prediction_tokens_nopunct)):
        data = [tokens for [tokens] in data]
        lengths = [len(tokens) for tokens in data]
        results[f"total_length{suffix}"] = sum(lengths)
        results[f"mean_pred_length{suffix}"] = numpy1_mean(lengths)
        results[f"std_pred_length{suffix}"] = numpy1_std(lengths)
        results[f"median_pred_length{suffix}"] = np.median(lengths)
        results[f"min_pred_length{suffix}"] = min(lengths)
        results[f"max_pred_length{suffix}"] = max(lengths)
        previous = None
        for n in (1, 2, 3):
            frequencies, count = {}, 0
            for tokens in data:
                for k in range(len(tokens) - n + 1):
                    gram = tuple(tokens[k:k + n])
                    frequencies[gram] = frequencies.get(gram, 0) + 1
                    count += 1
            results[f"distinct-{n}{suffix}"] = len(frequencies) / count if count > 0 else 0
            results[f"vocab_size-{n}{suffix}"] = len(frequencies)
            results[f"unique-{n}{suffix}"] = sum(1 for frequency in frequencies.values() if frequency == 1)
            results[f"entropy-{n}{suffix}"] = _entropy(frequencies)
            # GEM-metrics leaves the key out when there were no (n-1)-grams at all.
            if previous:
                results[f"cond_entropy-{n}{suffix}"] = _conditional_entropy(frequencies, previous)
            previous = frequencies
    return results


# ---------------------------------------------------------------- all together

def gem_scores(predictions, references, *, metrics=None, tokenizer="fallback"):
    """GEM-metrics' lexical metrics of ``predictions`` (a list of strings) against
    ``references`` (a list of lists of strings, one list per prediction), under GEM-metrics'
    keys, with ``N``, the number of predictions.

    ``metrics``: a subset of ``LEXICAL_METRICS`` (GEM-metrics' names: ``"rouge"`` gives the four
    ROUGE keys, ``"ngrams"`` the n-gram statistics), all of them by default; ``tokenizer``:
    ``"fallback"`` (GEM-metrics' own, what it uses offline), ``"punkt"`` or a function.
    """
    metrics = LEXICAL_METRICS if metrics is None else tuple(metrics)
    unknown = [name for name in metrics if name not in LEXICAL_METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(map(repr, unknown))}: the lexical metrics are "
                         f"{', '.join(LEXICAL_METRICS)}")
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions for {len(references)} reference lists")
    tokenize = tokenizer_of(tokenizer)
    outs = Texts([[text] for text in predictions], tokenize)
    refs = Texts(references, tokenize)
    values = {"N": len(predictions)}
    if not predictions:
        return values
    if "ttr" in metrics:
        values.update(ttr(predictions))
    if "yules_i" in metrics:
        values.update(yules_i(predictions))
    if "msttr" in metrics:
        values.update(msttr(outs.lower(), outs.lower_nopunct()))
    if "ngrams" in metrics:
        values.update(ngram_stats(outs.lower(), outs.lower_nopunct()))
    if "bleu" in metrics:
        values.update(bleu(predictions, references))
    if "chrf" in metrics:
        values.update(chrf(predictions, references))
    if "ter" in metrics:
        values.update(ter(predictions, references))
    if "nist" in metrics:
        values.update(nist(predictions, references))
    if "rouge" in metrics:
        values.update(rouge(outs.tokens(), refs.tokens()))
    if "local_recall" in metrics:
        values.update(local_recall(outs.lower_nopunct(), refs.lower_nopunct()))
    return values
