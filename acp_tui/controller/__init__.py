"""The session controller: one agent's life and the client services, UI-free."""
