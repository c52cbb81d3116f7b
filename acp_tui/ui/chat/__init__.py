"""ui/chat: the main screen and the pieces that serve it (event pump, status, keys, askers…); the
conversation itself is drawn by ui/timeline."""
