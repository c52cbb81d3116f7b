"""End-to-end tests: whole acp-tui processes, in tmux (a real terminal) or as print mode (`acp-tui -p`), the README's quickstart as written."""
