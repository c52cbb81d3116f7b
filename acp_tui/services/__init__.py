"""Client services: each one capability the client offers the agent (permissions, files, terminals, ...)."""
