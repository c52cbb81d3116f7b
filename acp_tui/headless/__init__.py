"""Print mode (`acp-tui -p PROMPT`): one turn without a terminal UI, for scripts and CI (README, "Print mode").

The session controller drives the agent exactly as the TUI does; `policy` answers what the agent asks
(permissions, files, forms, logins) by the `--approve` policy, `output` writes what the model says, and
`run` holds the turn together: signals, the timeout, the exit code.
"""
