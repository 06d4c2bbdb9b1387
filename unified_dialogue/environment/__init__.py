"""SGD as an environment: a database, goals and tools that an agent plays, for
reinforcement learning (TRL's ``GRPOTrainer(environment_factory=...)``) and for evaluating
any served model (``python -m unified_dialogue.environment``).

The parts are kept apart: the data (``calls``: the ``database`` config, one row per
service call; ``database``: the SQLite file built from it and how a call is answered;
``services``: the tools and how their arguments are checked and compared), the user
(``views.goals``: what each dialogue's user wants and got, and ``chat.ticket``: the goal
written as instructions, both shared with ``user-chat``; ``tickets`` and ``templates.json``:
the texts of the modes; ``episodes``: the ``episodes`` config, one row per dialogue;
``user``: a model playing the user in ``simulated`` mode; ``report``: whether it stated its
goal, and whose failure an episode is), the episode (``episode``: one run's own state, its transactions and messages),
the reward (``reward``), the gold agent (``gold``), the TRL binding (``binding``) and the
evaluation against an endpoint (``endpoint``: requests and retries; ``play``: the episodes;
``runs``: a run's settings and resume; ``results``: its summary; ``text_calls``: tool calls
given as text; ``trials``: pass^k; ``__main__``: the command). docs/environment.md says all of it.
"""

from .. import views
from . import calls, episodes

DATABASE = views.View.of(calls, key=("id",), name="database")
EPISODES = views.View.of(episodes, key=("id",), options=episodes.OPTIONS, name="episodes")


def configs():
    """The loader configs ``database`` and ``episodes`` (SGD)."""
    return (views.config(DATABASE), views.config(EPISODES))


def trl(split, *, mode="ticket", variant=None, get_reward=False, user=None, **load_options):
    """See ``unified_dialogue.environment.binding.trl``."""
    from .binding import trl as _trl

    return _trl(split, mode=mode, variant=variant, get_reward=get_reward, user=user, **load_options)


def reward_function(part="reward", *parts, **columns):
    """See ``unified_dialogue.environment.binding.reward_function``."""
    from .binding import reward_function as _reward_function

    return _reward_function(part, *parts, **columns)


__all__ = ["DATABASE", "EPISODES", "configs", "reward_function", "trl"]
