"""Subcommands of `oware-companion`, one module per concern, each with `register()`."""
