"""acp-tui: a terminal chat client for Agent Client Protocol agents."""

__version__ = "0.1.0"
