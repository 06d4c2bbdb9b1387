"""Scorers for tasks on the project's views. ``rows``: what every scorer shares (its error,
reading predictions, pairing them with rows by id, writing metrics); ``dst``: dialogue
state tracking on SGD, with the DSTC8 metrics (``score_dst``, or ``python -m
unified_dialogue.scoring.dst``)."""
