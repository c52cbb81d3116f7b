"""Where the tests find the shared spec, peers and traffic: `shared/` sits beside the repository."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SPEC = SHARED / "spec"
PEERS_DIR = SHARED / "peers"
TRAFFIC = PEERS_DIR / "traffic"
V1_SCHEMA = SPEC / "acp-v1.schema.json"
V2_SCHEMA = SPEC / "acp-v2.schema.json"
LIFECYCLE = SPEC / "prompt-lifecycle-v2.txt"
