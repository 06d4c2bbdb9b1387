"""GEM-metrics' metrics of the predictions alone (lexical diversity): MSTTR, TTR, Yule's I,
and the n-gram statistics (lengths, distinct-n, vocabulary size, unique n-grams, entropy and
conditional entropy)."""

from collections import Counter

import numpy as np

from .sums import numpy1_mean, numpy1_std

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
