"""Adapters of the environment (``unified_dialogue.environment``) to agent frameworks, each in a
package or module of its own, each an optional extra. Nothing in the rest of the package
imports them.
"""
