"""What can go wrong with a command in the service, beyond the check every command meets
(:mod:`core.referee.command_check`) and the referee's refusals (:class:`core.referee.CommandError`).
"""

from __future__ import annotations


class CommandNotLogged(RuntimeError):
    """A command that could not be written to the session log, so was not applied."""
