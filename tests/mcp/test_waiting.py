"""The waiting tools' resolver value wrapper stays built between calls."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from mcp.server.mcpserver import AcceptedElicitation

from cctui.mcp_server.asking import waiting


def test_the_wrapper_class_outlives_a_garbage_collection(unfrozen: None) -> None:
    # What the SDK builds for every resolver's value; were it freed, the next waiting call
    # would build the class again (~0.6 ms).
    wrapper = weakref.ref(AcceptedElicitation[Any])
    gc.collect()
    assert wrapper() is not None
    assert AcceptedElicitation[Any] is waiting.ACCEPTED_ANY
