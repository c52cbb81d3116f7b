"""The shipped colour palettes (TOML), installed from the top-level themes/ folder."""
