"""ui/dialogs: the modal screens that ask the user something (the guarded base, permission, login, elicitation…)."""
