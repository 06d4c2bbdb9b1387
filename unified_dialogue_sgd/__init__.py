"""The name verifiers finds SGD's environment by: ``vf-eval unified-dialogue-sgd …``
(verifiers imports a taskset's id as a top-level module and takes the one ``Taskset`` its
``__all__`` exports). The taskset itself is ``unified_dialogue.integrations.verifiers``.
"""

from unified_dialogue.integrations import verifiers as _taskset
from unified_dialogue.integrations.verifiers import *  # noqa: F401,F403

__all__ = _taskset.__all__
