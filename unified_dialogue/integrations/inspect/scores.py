"""The score of an inspect sample: the environment's reward and every part of it, read from
the episode's record (``play.play_episode``'s line, the evaluation command's), its metrics the
evaluation command's summary (``results.summary``), and pass^k over epochs with the estimator
of the evaluation command's ``--trials`` (``environment.trials.pass_hat_k``).
"""

from inspect_ai.scorer import SampleScore, Score, mean, metric, score_reducer, scorer, stderr

from ...environment import play, reward
from ...environment.trials import pass_hat_k

# Where the solver leaves the episode's record in the sample's store.
RECORD = "unified_dialogue/episode"
# The record's fields a score keeps in its metadata: what the summary groups by, how the
# episode ended, and in simulated mode the user's record and whose failure it is.
KEPT = ("id", "dialogue_id", "services", "unseen_services", "transactions", "ended", "error", "steps", "user",
        "unstated", "user_stated_goal", "failure", "text_tool_calls")
PASS = "pass^"


def score_of(record):
    """The ``Score`` of an episode's record: ``{part: value}`` for each of the reward's parts."""
    return Score(value={part: record[part] for part in reward.PARTS}, answer=record["final_answer"],
                 metadata={key: record[key] for key in KEPT if key in record})


def flat(tree, prefix=""):
    """A nested summary as one level of ``a/b/c`` keys (inspect's metric values are flat)."""
    made = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            made.update(flat(value, f"{prefix}{key}/"))
        else:
            made[f"{prefix}{key}"] = value
    return made


@metric
def summary():
    """The evaluation command's summary of the samples (``results.summary``): each part's mean
    overall, seen, unseen, with and without transactions and per domain (an episode counts in
    each of its services' domains), and in simulated mode the failures, the agent's and the
    user's; where samples ran several epochs, each part's mean over them, the counts of how
    episodes ended those of the first epoch, and the mean pass^k for each k up to the epochs."""
    def compute(scores: list[SampleScore]):  # the annotation asks inspect for the samples' metadata
        records = [{**item.score.metadata, **item.score.value} for item in scores]
        made = flat(play.summary(records))
        for k in sorted({key for record in records for key in record if key.startswith(PASS)}, key=len):
            made[f"overall/{k}"] = sum(record[k] for record in records) / len(records)
        return made

    return compute


@score_reducer(name="trials")
def trials():
    """The epochs of a sample as one score: each part's mean, and pass^k for each k up to the
    epochs (the chance that k epochs drawn without replacement all succeed, reward 1.0)."""
    def reduce(scores):
        n = len(scores)
        successes = sum(score.value["reward"] >= 1.0 for score in scores)
        value = {part: sum(score.value[part] for score in scores) / n for part in reward.PARTS}
        value.update({f"{PASS}{k}": pass_hat_k(n, successes, k) for k in range(1, n + 1)})
        return Score(value=value, answer=scores[0].answer, metadata=scores[0].metadata)

    return reduce


@scorer(metrics=[{part: [mean(), stderr()] for part in reward.PARTS}, summary()])
def environment_reward():
    """The environment's reward of the episode the solver played (``reward.parts``, as the
    evaluation command gives it)."""
    async def score(state, target):
        return score_of(state.store.get(RECORD))

    return score
