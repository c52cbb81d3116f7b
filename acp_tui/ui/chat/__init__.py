"""ui/chat: the main screen and the pieces that serve it (event pump, timeline, status, interrupt, askers…)."""
