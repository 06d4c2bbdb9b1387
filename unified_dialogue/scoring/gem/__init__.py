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

The metrics are computed in four modules: ``references`` (BLEU, chrF, TER, ROUGE, local
recall), ``mteval`` (NIST), ``diversity`` (MSTTR, TTR, Yule's I, the n-gram statistics), on the
texts ``tokens`` tokenises and with the sums of ``sums`` (numpy 1.x's, as GEM-metrics ran on).
"""

from .diversity import msttr, ngram_stats, ttr, yules_i
from .mteval import nist
from .references import bleu, chrf, chrf_references, local_recall, rouge, sentence_chrf, ter
from .sums import numpy1_mean, numpy1_std, numpy1_sum
from .tokens import TOKENIZERS, Texts, fallback_tokenize, punkt_tokenize, tokenizer_of

__all__ = [
    "LEXICAL_METRICS", "TOKENIZERS", "gem_scores", "sentence_chrf", "chrf_references", "tokenizer_of",
    "fallback_tokenize", "punkt_tokenize", "numpy1_sum", "numpy1_mean", "numpy1_std",
]

LEXICAL_METRICS = ("bleu", "rouge", "chrf", "nist", "msttr", "ngrams", "ter", "ttr", "yules_i", "local_recall")


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
