"""ui/timeline: the conversation's renderer and the views of its entities (messages, thoughts, tool calls…)."""
