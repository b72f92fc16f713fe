"""cctui's policy: who may approve what (the authority ladder), from TOML files.

- ``patterns``: Claude Code's rule syntax (``Bash(npm test*)``, ``Edit(src/**)``) matched
  against one tool call.
- ``model``: the policy file (hard denies, rules, client grants, timeouts, the breaker).
- ``load``: reading, line-precise problems, the user's and the project's merged, the last
  good policy kept.
- ``clients``: MCP clients registered with their own token (``cctui clients add``).
- ``verdict``: what a rung said, and in words.
- ``ladder``: the rules rung, the delegates' authority, the breaker.
- ``replay``: ``cctui policy test``: the audit log's decisions through a policy.
"""

from cctui.core.policy.clients import ClientRecord, ClientRegistry
from cctui.core.policy.ladder import Ladder
from cctui.core.policy.load import InForce, PolicyError, PolicyProblem, PolicyStore, check_file
from cctui.core.policy.model import SHIPPED_HARD_DENY, ClientGrant, Policy
from cctui.core.policy.verdict import Verdict

__all__ = [
    "SHIPPED_HARD_DENY",
    "ClientGrant",
    "ClientRecord",
    "ClientRegistry",
    "InForce",
    "Ladder",
    "Policy",
    "PolicyError",
    "PolicyProblem",
    "PolicyStore",
    "Verdict",
    "check_file",
]
