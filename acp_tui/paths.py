"""Where acp-tui keeps its files: platform directories, each overridable by an environment variable.

`ACP_TUI_CONFIG_DIR`, `ACP_TUI_DATA_DIR` and `ACP_TUI_STATE_DIR` replace the platformdirs defaults
(tests and portable setups use them). Nothing here creates directories but `saves_dir`: writers call
`ensure_dir`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from pathlib import Path

import platformdirs

__all__ = [
    "APP_NAME",
    "config_dir",
    "config_file",
    "data_dir",
    "history_file",
    "transcripts_dir",
    "state_dir",
    "log_dir",
    "ensure_dir",
    "saves_dir",
]

APP_NAME = "acp-tui"


def _override(variable: str) -> Path | None:
    value = os.environ.get(variable)
    return Path(value).expanduser().absolute() if value else None


def config_dir() -> Path:
    """User configuration directory (holds `config.toml`)."""
    return _override("ACP_TUI_CONFIG_DIR") or Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def config_file() -> Path:
    """The settings file read at start-up."""
    return config_dir() / "config.toml"


def data_dir() -> Path:
    """User data directory: prompt history and transcripts."""
    return _override("ACP_TUI_DATA_DIR") or Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def history_file(cwd: Path) -> Path:
    """Prompt history for one working directory: readable name plus a hash of the absolute path."""
    absolute = str(Path(cwd).expanduser().absolute())
    digest = _sha256_hex(absolute.encode("utf-8", "surrogateescape"))[:16]
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(absolute).name)[:40] or "root"
    return data_dir() / "history" / f"{stem}-{digest}.jsonl"


def _sha256_hex(data: bytes) -> str:
    """SHA-256 from CPython's own module (`_sha256` to 3.11, `_sha2` from 3.12), the digest `hashlib` gives:
    `hashlib` maps OpenSSL, ~4 MB resident for this one digest at start-up (see `cli.import_asyncio_without_tls`)."""
    for name in ("_sha256", "_sha2"):
        with contextlib.suppress(ImportError):
            return str(importlib.import_module(name).sha256(data).hexdigest())
    import hashlib  # a Python built without its own hashes

    return hashlib.sha256(data).hexdigest()


def transcripts_dir() -> Path:
    """Saved conversation transcripts."""
    return data_dir() / "transcripts"


def state_dir() -> Path:
    """User state directory: logs and other files that may be deleted without losing anything."""
    return _override("ACP_TUI_STATE_DIR") or Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    """Default place for log files."""
    return state_dir() / "logs"


def ensure_dir(path: Path) -> Path:
    """Create `path` (and parents) if missing, private to the user; returns it."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def saves_dir() -> Path:
    """Where a file the user saves (a screenshot, an exported conversation) goes unless they say: the
    Downloads folder when there is one, else `saved/` in the data folder (created), else the working folder.
    Never the session's folder by default: an export there lands inside the user's repository."""
    downloads = Path(platformdirs.user_downloads_dir())
    if downloads.is_dir():
        return downloads
    try:
        return ensure_dir(data_dir() / "saved")
    except OSError:
        return Path.cwd()
