"""Peer tests: acp-tui against real installed agents (the official SDK examples, Claude's ACP adapter, Gemini CLI) from the tests/.peers cache, with loopback fake models."""
