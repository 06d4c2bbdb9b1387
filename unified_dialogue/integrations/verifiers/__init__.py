"""SGD's environment as a verifiers taskset (verifiers' v1 API, ``pip install
unified-dialogue[verifiers]``): one id, ``unified_dialogue.integrations.verifiers``, with the
split, the mode, the variant and the load options as its configuration.

    vf-eval unified_dialogue.integrations.verifiers --env.taskset.split validation \\
        --env.taskset.mode ticket -m MODEL --client.base-url http://127.0.0.1:8000/v1 --no-push

Each task is one judged episode of the environment (``taskset``), its tools the evaluation
command's, answered from the split's database by a tool server of the rollout
(``toolset``); its reward and metrics are the environment's reward and parts, by name
(``reward``), on the episode rebuilt from the rollout's record, kept as JSON (``record``);
``vf-validate`` checks that the gold agent earns 1.0 in each. The agent plays through
verifiers' plain tool loop in an environment of this package (``env``), which in
``simulated`` mode plays the user as the evaluation command does. ``summary`` gives a run's
summary as the evaluation command prints it, with pass^k over repeated rollouts.
docs/environment.md ("verifiers") says all of it.
"""

from .env import SgdEnv
from .taskset import SgdTaskset

__all__ = ["SgdEnv", "SgdTaskset"]
