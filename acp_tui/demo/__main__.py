"""`python -m acp_tui.demo`: serve one ACP client on stdin/stdout until stdin closes."""

from __future__ import annotations

import sys

from acp_tui.demo.cli import main

if __name__ == "__main__":
    sys.exit(main())
