"""`python -m acp_tui`: the same entry point as the `acp-tui` console script."""

from acp_tui.cli import main

raise SystemExit(main())
