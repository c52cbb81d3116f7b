"""ui/browsers: full screens the user opens to look through something (sessions, transcripts, notices, help)."""
