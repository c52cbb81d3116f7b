"""ui/tabs: several conversations at once: the tab host, its palette commands and the agents a new tab offers."""
